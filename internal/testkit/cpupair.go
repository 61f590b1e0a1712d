// This file (formerly package cpupair) measures a handler against a static one, for the scale
// benchmarks of fake and cmd/convofake: Serve sends each one request in
// memory, Static is the floor they are measured against, and Run (on
// Linux) compares the two by the CPU time of the benchmark's own thread.

package testkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Serve answers one GET of target (a path, or a URL naming the host) with
// the API key through h, in memory, and returns the body; an answer other
// than 200 ends the benchmark.
func Serve(tb testing.TB, h http.Handler, target, key string) []byte {
	// No tb.Helper: it would weigh on both sides of every measured pair.
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s: %d %s", target, rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

// Static writes body as the fake writes an answer's JSON, and does nothing
// else: the floor of the request benchmarks.
func Static(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	})
}
