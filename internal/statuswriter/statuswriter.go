// Package statuswriter records the status an http.Handler answers with, for
// the fake's request journal and convofake's request log.
package statuswriter

import "net/http"

// Writer wraps a ResponseWriter and remembers the first status written; a
// Write without WriteHeader counts as 200. Status stays 0 when nothing was
// written (a dropped connection).
type Writer struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records code, then writes it.
func (w *Writer) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records the implicit 200, then writes b.
func (w *Writer) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection, so that a
// handler below can hijack it (drop faults) or flush.
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
