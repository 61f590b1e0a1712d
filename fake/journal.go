package fake

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
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
	// Query is the parsed query string, with the request's API key
	// redacted wherever it appears.
	Query url.Values
	// Header holds the request headers with the API key values redacted
	// (Authorization keeps its scheme: "Bearer [REDACTED]").
	Header http.Header
	// Body is the request body, with the request's API key redacted
	// wherever it appears. It is nil when the request had no valid key: the
	// server reads no body before the key is checked. A body longer than
	// the journal keeps (64 KiB, less under a small [WithJournalBytes]) is
	// cut and ends with a marker line "[fake: body truncated, N bytes in
	// all]"; BodySize then says how long it was.
	Body []byte
	// BodySize is the length of the body as received (at most 1 MiB, the
	// largest body the server reads).
	BodySize int
	// Status is the HTTP status answered; 0 when the connection was dropped
	// or the client went away first.
	Status int
	// Time is the server clock's reading when the request was answered.
	Time time.Time
}

// Redacted is what replaces API key values in the journal.
const Redacted = "[REDACTED]"

// journalBodyMax is the most of one body the journal keeps.
const journalBodyMax = 64 << 10

// entryOverhead stands for the fixed cost of an entry (struct, maps) in the
// journal's byte budget.
const entryOverhead = 256

// journal keeps the last requests within two bounds: a number of entries
// and a byte budget; the oldest entries go first when either is exceeded.
type journal struct {
	mu       sync.Mutex
	limit    int
	maxBytes int64
	bytes    int64
	entries  []Request // entries[head:] are kept, oldest first
	head     int
}

// bodyCap is the most of one body an entry keeps: 64 KiB, or an eighth of
// a small byte budget, so that one request never evicts the whole journal.
func (j *journal) bodyCap() int {
	if c := j.maxBytes / 8; c < journalBodyMax {
		return int(c)
	}
	return journalBodyMax
}

func entrySize(e *Request) int64 {
	n := entryOverhead + len(e.Method) + len(e.Path) + len(e.Body)
	for k, vs := range e.Query {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	for k, vs := range e.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return int64(n)
}

func (j *journal) add(e Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append(j.entries, e)
	j.bytes += entrySize(&e)
	for n := len(j.entries) - j.head; n > 0 && (n > j.limit || j.bytes > j.maxBytes); n-- {
		j.bytes -= entrySize(&j.entries[j.head])
		j.entries[j.head] = Request{}
		j.head++
	}
	if j.head > 64 && j.head > len(j.entries)/2 {
		n := copy(j.entries, j.entries[j.head:])
		clear(j.entries[n:])
		j.entries, j.head = j.entries[:n], 0
	}
}

func (s *Server) record(r *http.Request, co *company, body []byte, status int) {
	j := &s.journal
	if j.limit <= 0 || j.maxBytes <= 0 {
		return
	}
	key := ""
	if co != nil {
		key = co.apiKey
	}
	entry := Request{
		Method: r.Method, Path: r.URL.Path, Query: redactQuery(r.URL.Query(), key), Header: redactHeader(r.Header),
		BodySize: len(body), Status: status, Time: s.clock.Now(),
	}
	if body != nil {
		entry.Body = truncateBody(redactBytes(body, key), j.bodyCap())
	}
	j.add(entry)
}

// truncateBody keeps at most max bytes of b, followed by a marker line.
func truncateBody(b []byte, max int) []byte {
	if len(b) <= max {
		return bytes.Clone(b)
	}
	out := make([]byte, 0, max+48)
	out = append(out, b[:max]...)
	return append(out, "\n[fake: body truncated, "+strconv.Itoa(len(b))+" bytes in all]"...)
}

// redactHeader copies h with the API key headers' values replaced.
func redactHeader(src http.Header) http.Header {
	h := src.Clone()
	if h == nil {
		return http.Header{}
	}
	for i, v := range h.Values("Authorization") {
		if scheme, _, found := strings.Cut(v, " "); found {
			h["Authorization"][i] = scheme + " " + Redacted
		} else {
			h["Authorization"][i] = Redacted
		}
	}
	for i := range h.Values("X-Api-Key") {
		h["X-Api-Key"][i] = Redacted
	}
	return h
}

// redactQuery replaces key wherever it appears in the values of q.
func redactQuery(q url.Values, key string) url.Values {
	if key == "" {
		return q
	}
	for k, vs := range q {
		for i, v := range vs {
			q[k][i] = strings.ReplaceAll(v, key, Redacted)
		}
	}
	return q
}

// redactBytes replaces key wherever it appears in b.
func redactBytes(b []byte, key string) []byte {
	if key == "" || !bytes.Contains(b, []byte(key)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(key), []byte(Redacted))
}

// Requests returns a copy of the journal, oldest first: every request the
// server received (within the journal's bounds), whatever its answer.
func (s *Server) Requests() []Request {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	return append([]Request(nil), s.journal.entries[s.journal.head:]...)
}

// ClearRequests empties the journal.
func (s *Server) ClearRequests() {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	s.journal.entries, s.journal.head, s.journal.bytes = nil, 0, 0
}
