package fake

import (
	"encoding/json"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	convo "github.com/convoapi/convo-go"
)

// Fault is a rule that makes matching requests misbehave: an error answer of
// any status and code (including the send-side codes such as
// CHANNEL_MISMATCH, and CANCEL_FAILED of POST /chatapp/sequences/cancel,
// which only fault rules emit), a Retry-After header, added
// latency, or a dropped
// connection. Faults apply before routing and authentication: they model the
// service or the network failing, whatever the request.
type Fault struct {
	// Method matches the request method; "" matches every method.
	Method string
	// Path is a path pattern, as in [Server.RequestsMatching]: relative to
	// the base URL, e.g. "/conversations/*/messages"; a leading /v1 or
	// /api/v1 means the same as without it. "" matches every path.
	Path string
	// Status is the HTTP status of the error answer; 0 means no error answer
	// (the request is only delayed or dropped, then served normally).
	Status int
	// Code is message.error of the answer; default derived from Status
	// (e.g. INTERNAL_ERROR for 500).
	Code convo.ErrorCode
	// Message is message.message; default a short text naming the code.
	Message string
	// Details is message.details (any JSON-encodable value); nil: no details.
	Details any
	// RetryAfter, when positive, is sent as Retry-After in whole seconds.
	RetryAfter time.Duration
	// Latency is real time added before answering, to exercise client
	// timeouts. When the request's context ends first (the client gave up),
	// the connection is closed without an answer.
	Latency time.Duration
	// Drop closes the connection without any answer.
	Drop bool
	// CutAfter, when positive, serves the request but cuts the answer's
	// body after that many bytes: the connection is dropped there, as a
	// network that fails mid-transfer does (a download that resumes is
	// tested with it, on a temporary file's path "/_files/*").
	CutAfter int64
	// Times is how many matching requests the fault applies to; 0: always.
	Times int
}

type faultSet struct {
	mu     sync.Mutex
	nextID int
	rules  []*faultRule
}

type faultRule struct {
	id   int
	f    Fault
	left int // remaining uses when f.Times > 0
}

// AddFault installs f and returns its id, for [Server.RemoveFault]. Rules are
// tried in the order they were added; the first that matches applies.
func (s *Server) AddFault(f Fault) int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.nextID++
	f.Path = relativePattern(f.Path)
	s.faults.rules = append(s.faults.rules, &faultRule{id: s.faults.nextID, f: f, left: f.Times})
	return s.faults.nextID
}

// RemoveFault removes the rule with the given id and reports whether it was
// still installed (a rule with Times is removed by itself once used up).
func (s *Server) RemoveFault(id int) bool {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for i, r := range s.faults.rules {
		if r.id == id {
			s.faults.rules = append(s.faults.rules[:i:i], s.faults.rules[i+1:]...)
			return true
		}
	}
	return false
}

// FaultRule is an installed fault rule, as [Server.Faults] lists it.
type FaultRule struct {
	// ID is the id [Server.AddFault] returned.
	ID int
	// Fault is the rule as installed (Path normalized: without /v1 or
	// /api/v1).
	Fault Fault
	// Remaining is how many more matching requests the rule applies to;
	// 0 for a rule without Times, which applies to every matching request.
	Remaining int
}

// Faults returns the installed fault rules, in the order they are tried.
func (s *Server) Faults() []FaultRule {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]FaultRule, 0, len(s.faults.rules))
	for _, r := range s.faults.rules {
		fr := FaultRule{ID: r.id, Fault: r.f}
		if r.f.Times > 0 {
			fr.Remaining = r.left
		}
		out = append(out, fr)
	}
	return out
}

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.rules = nil
}

// relativePattern is the one path rule of fault rules and journal filters:
// a pattern is relative to the base URL, and a leading /v1 or /api/v1 is
// cut off, so that it means the same as without it.
func relativePattern(p string) string {
	if _, rel := splitPrefix(p); rel != "" {
		return rel
	}
	return p
}

// matchRequest is the one matching rule of fault rules and journal filters:
// method is "" or the request's method in any case; pattern (relative, see
// relativePattern) is "" or a path.Match pattern matching rel, the
// request's path relative to the base URL.
func matchRequest(method, pattern, gotMethod, rel string) bool {
	if method != "" && !strings.EqualFold(method, gotMethod) {
		return false
	}
	ok, err := path.Match(pattern, rel)
	return pattern == "" || err == nil && ok
}

// take returns the first rule matching the request and consumes one use.
func (fs *faultSet) take(method, p string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, r := range fs.rules {
		if !matchRequest(r.f.Method, r.f.Path, method, p) {
			continue
		}
		if r.f.Times > 0 {
			r.left--
			if r.left <= 0 {
				fs.rules = append(fs.rules[:i:i], fs.rules[i+1:]...)
			}
		}
		return r.f, true
	}
	return Fault{}, false
}

// applyFaults applies the first matching rule; it reports whether the
// request has been answered (or dropped), and returns the writer to serve
// it with otherwise.
func (s *Server) applyFaults(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, bool) {
	_, p := splitPrefix(r.URL.EscapedPath())
	f, ok := s.faults.take(r.Method, p)
	if !ok {
		return w, false
	}
	if f.Latency > 0 && !sleepCtx(r.Context(), f.Latency) {
		// The client gave up or closed its side: close the connection
		// rather than let net/http finish an empty 200.
		panic(http.ErrAbortHandler)
	}
	if f.Drop {
		dropConnection(w)
		return w, true
	}
	if f.Status == 0 {
		if f.CutAfter > 0 {
			w = &cutWriter{ResponseWriter: w, left: f.CutAfter}
		}
		return w, false
	}
	code := f.Code
	if code == "" {
		code = defaultCode(f.Status)
	}
	msg := f.Message
	if msg == "" {
		msg = "Injected fault: " + string(code) + "."
	}
	e := errf(f.Status, code, msg)
	if b, err := json.Marshal(f.Details); err == nil && string(b) != "null" {
		e.details = json.RawMessage(b) // a typed nil (a nil map) is no details either
	}
	e.retryAfter = f.RetryAfter
	s.writeError(w, r, e)
	return w, true
}

// cutWriter writes the first left bytes of a body, then drops the
// connection.
type cutWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) < c.left {
		c.left -= int64(len(p))
		return c.ResponseWriter.Write(p)
	}
	_, _ = c.ResponseWriter.Write(p[:c.left])
	_ = http.NewResponseController(c.ResponseWriter).Flush()
	panic(http.ErrAbortHandler) // net/http closes the connection mid-body
}

// Unwrap lets http.ResponseController reach the connection.
func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// dropConnection closes the client connection without an answer.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
		return
	}
	// The writer cannot be hijacked (HTTP/2, a recorder): abort the handler,
	// which net/http turns into a reset stream or closed connection.
	panic(http.ErrAbortHandler)
}

func defaultCode(status int) convo.ErrorCode {
	switch status {
	case http.StatusBadRequest:
		return convo.CodeInvalidParam
	case http.StatusUnauthorized:
		return convo.CodeUnauthorized
	case http.StatusNotFound:
		return codeNotFound
	case http.StatusTooManyRequests:
		return convo.CodeRateLimited
	}
	text := strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	if text == "" {
		return codeInternalError
	}
	return convo.ErrorCode(text)
}
