package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testAdminToken = "test-admin-token-6f1d2c" // the admin token of the servers the tests start
	seedKey        = "seed-key"                // the API key of testdata/seed.json
	// safetyTimeout bounds every wait on the server (start, stop): it is a
	// guard against a hung test, never a timing assertion.
	safetyTimeout = 20 * time.Second
	// The ids of testdata/seed.json.
	convID    = "f0000000-0000-4000-8000-000000000001"
	contactID = "c0000000-0000-4000-8000-000000000001"
	accountID = "a0000000-0000-4000-8000-000000000001"
)

// proc is a convofake started by run() on a random loopback port.
type proc struct {
	t      *testing.T
	addr   string // 127.0.0.1:port
	base   string // http://127.0.0.1:port
	stdout *testkit.Buffer
	stderr *testkit.Buffer
	client *http.Client
	cancel context.CancelFunc
	done   chan int
}

// start runs convofake with args after --addr 127.0.0.1:0 and the test admin
// token, waits until it listens, and stops it (asserting exit code 0) at the
// end of the test.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startArgs(t, append([]string{"--addr", "127.0.0.1:0", "--admin-token", testAdminToken}, args...)...)
}

// startArgs is start with the arguments exactly as given.
func startArgs(t *testing.T, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{t: t, stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}, cancel: cancel, done: make(chan int, 1)}
	ready := make(chan string, 1)
	go func() { p.done <- run(ctx, args, p.stdout, p.stderr, func(addr string) { ready <- addr }) }()
	select {
	case p.addr = <-ready:
	case code := <-p.done:
		cancel()
		t.Fatalf("convofake exited with %d before listening; stderr:\n%s", code, p.stderr.String())
	case <-time.After(safetyTimeout):
		cancel()
		t.Fatal("convofake did not start")
	}
	p.base = "http://" + p.addr
	p.client = &http.Client{Timeout: safetyTimeout, Transport: testkit.Transport(t, &http.Transport{})}
	t.Cleanup(func() {
		p.client.CloseIdleConnections()
		assert.Equal(t, exitOK, p.stop(), "exit code after cancel")
	})
	return p
}

// stop cancels the server's context and returns its exit code.
func (p *proc) stop() int {
	p.cancel()
	select {
	case code := <-p.done:
		p.done <- code // later calls see it too
		return code
	case <-time.After(safetyTimeout):
		p.t.Error("convofake did not stop after its context ended")
		return -1
	}
}

// response is an answer read in full.
type response = testkit.Answer

// do sends a request to the server; auth is the whole Authorization value
// ("" for none), headers are name, value pairs.
func (p *proc) do(method, path, auth, body string, headers ...string) response {
	p.t.Helper()
	return testkit.Send(p.t, p.client, method, p.base+path, auth, body, headers...)
}

// serve runs one request through h in memory, no listener.
func serve(h http.Handler, method, target, auth string) response {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, target, nil)
	req.Header.Set("Authorization", auth)
	h.ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// api calls the fake's API with an API key.
func (p *proc) api(path, key string) response {
	p.t.Helper()
	return p.do(http.MethodGet, path, "Bearer "+key, "")
}

// admin calls the admin API with the admin token.
func (p *proc) admin(method, path, body string) response {
	p.t.Helper()
	return p.do(method, path, "Bearer "+testAdminToken, body)
}

// printed returns the NAME=value lines printed on stdout at start.
func (p *proc) printed() map[string]string { return testkit.Printed(p.stdout.String()) }

// runOnce runs convofake expecting it not to start; it returns the exit
// code and stderr.
func runOnce(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr testkit.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), safetyTimeout)
	defer cancel()
	code := run(ctx, args, &stdout, &stderr, func(addr string) {
		t.Errorf("convofake started on %s; it should have refused", addr)
		cancel()
	})
	return code, stderr.String()
}

// anomalyCount returns data.buckets.unanswered.count.
func anomalyCount(t *testing.T, p *proc, key string) float64 {
	t.Helper()
	return testkit.UnansweredCount(t, p.api, key)
}

// startSeeded starts convofake on the demo data and a frozen clock, then
// replaces the data through the admin API with testdata/seed.json.
func startSeeded(t *testing.T, args ...string) *proc {
	t.Helper()
	p := start(t, append([]string{"--clock", "frozen"}, args...)...)
	seed, err := os.ReadFile("testdata/seed.json")
	require.NoError(t, err)
	r := p.admin(http.MethodPost, "/_fake/seed", string(seed))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := r.JSON(t)
	assert.Equal(t, map[string]any{"now": "2026-11-22T10:00:00.000Z", "frozen": true}, body["clock"])
	assert.Equal(t, true, body["api_key_changed"], "the seed's key replaced the demo key")
	return p
}

// assertAdminError checks the admin error shape.
func assertAdminError(t *testing.T, r response, status int, code string) {
	t.Helper()
	assert.Equal(t, status, r.Status, "%s", r.Body)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var e map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &e), "%s", r.Body)
	assert.Equal(t, code, e["error"], "%s", r.Body)
	assert.NotEmpty(t, e["message"])
	assert.Len(t, e, 2, "only error and message: %s", r.Body)
}

// withoutRaw drops data.items[].raw (outside the contract: docs/behaviour.md, "Forward compatibility").
func withoutRaw(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	for _, it := range m["data"].(map[string]any)["items"].([]any) {
		delete(it.(map[string]any), "raw")
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

const twoCompanies = `{"now":"2026-11-22T10:00:00.000Z","companies":[
  {"api_key":"first-key","channels":[{"ref":"c","id":"a1000000-0000-4000-8000-000000000001","channel":"chatapp","provider_identifier":"5511940000001"}],
   "contacts":[{"ref":"a","channel":"c","phone":"5511987654321","name":"Ana"}]},
  {"api_key":"second-key","channels":[{"ref":"c","id":"a2000000-0000-4000-8000-000000000001","channel":"chatapp","provider_identifier":"5511940000009"}],
   "contacts":[{"ref":"b","id":"b2000000-0000-4000-8000-000000000001","channel":"c","phone":"5521977776666","name":"Bruno"},
               {"ref":"c2","channel":"c","phone":"5521977775555","name":"Carla"}]}]}`
