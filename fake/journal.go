package fake

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Request is one entry of the request journal ([Server.Requests]).
type Request struct {
	// Method is the HTTP method.
	Method string
	// Path is the path as the client sent it (/v1/... or /api/v1/...).
	Path string
	// Query is the parsed query string.
	Query url.Values
	// Header holds the request headers with the API key values redacted
	// (Authorization keeps its scheme: "Bearer [REDACTED]").
	Header http.Header
	// Body is the request body (at most 1 MiB).
	Body []byte
	// Status is the HTTP status answered; 0 when the connection was dropped
	// or the client went away first.
	Status int
	// Time is the server clock's reading when the request was answered.
	Time time.Time
}

// Redacted is what replaces API key values in the journal.
const Redacted = "[REDACTED]"

// journal is a ring of the last limit requests.
type journal struct {
	mu      sync.Mutex
	limit   int
	entries []Request
	next    int // index of the oldest entry once the ring is full
}

func (s *Server) record(r *http.Request, body []byte, status int) {
	if s.journal.limit <= 0 {
		return
	}
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	for i, v := range h.Values("Authorization") {
		scheme, _, found := strings.Cut(v, " ")
		if found {
			h["Authorization"][i] = scheme + " " + Redacted
		} else {
			h["Authorization"][i] = Redacted
		}
	}
	if vs := h.Values("X-Api-Key"); len(vs) > 0 {
		for i := range vs {
			h["X-Api-Key"][i] = Redacted
		}
	}
	q := r.URL.Query()
	entry := Request{Method: r.Method, Path: r.URL.Path, Query: q, Header: h, Body: body, Status: status, Time: s.clock.Now()}
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	j := &s.journal
	if len(j.entries) < j.limit {
		j.entries = append(j.entries, entry)
		return
	}
	j.entries[j.next] = entry
	j.next = (j.next + 1) % j.limit
}

// Requests returns a copy of the journal, oldest first: every request the
// server received (within the journal limit), whatever its answer.
func (s *Server) Requests() []Request {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	j := &s.journal
	out := make([]Request, 0, len(j.entries))
	out = append(out, j.entries[j.next:]...)
	return append(out, j.entries[:j.next]...)
}

// ClearRequests empties the journal.
func (s *Server) ClearRequests() {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	s.journal.entries, s.journal.next = nil, 0
}
