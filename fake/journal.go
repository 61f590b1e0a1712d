package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/convoapi/convo-go/internal/keymatch"
)

// Request is one entry of the request journal ([Server.Requests]).
type Request struct {
	// Method is the HTTP method.
	Method string
	// Prefix is the version prefix the client sent, "/v1" or "/api/v1";
	// "" for a path outside the API (the attachment files under /_files/).
	Prefix string
	// Path is the path relative to the base URL, escaped as sent, e.g.
	// "/channels" or "/conversations/abc%2Fdef/messages", which the path
	// patterns of [Server.RequestsMatching] match.
	// Outside the API it is the whole path ("/_files/...").
	// A company's API key in it (a key sent as an id), as sent or
	// percent-escaped (even twice), is replaced by [Redacted].
	Path string
	// CompanyID is the id of the company whose key the request carried; ""
	// without a valid key.
	CompanyID string
	// Query is the parsed query string, with every company's API key
	// redacted wherever it appears, in names and values.
	Query url.Values
	// Header holds the request headers: Authorization and X-Api-Key
	// redacted (Authorization keeps its scheme: "Bearer [REDACTED]"), and
	// every company's API key wherever it appears in another value or in
	// a header's name (the name then becomes [Redacted]).
	Header http.Header
	// Body is the request body, with every company's API key redacted
	// wherever it appears, as sent or escaped in any way (JSON's \u and
	// short escapes, Go's \x, URL and HTML escapes, mixed, once or twice
	// over): the span that spells it is replaced. A key shorter than 8
	// bytes is replaced only where it stands alone, as everywhere in the
	// journal. It is nil when the request had no valid key: the
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
	// RetryAfter is the wait the answer asked for in its Retry-After
	// header (a 429 or a 503), whole seconds; 0 when it asked for none.
	RetryAfter time.Duration
}

// Redacted is what replaces API key values in the journal.
const Redacted = keymatch.Redacted

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
	n := entryOverhead + len(e.Method) + len(e.Prefix) + len(e.Path) + len(e.CompanyID) + len(e.Body)
	for _, m := range []map[string][]string{e.Query, e.Header} {
		for k, vs := range m {
			n += len(k)
			for _, v := range vs {
				n += len(v)
			}
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

func (s *Server) record(r *http.Request, co *company, keys []string, body []byte, status int, retryAfter string) {
	j := &s.journal
	if j.limit <= 0 || j.maxBytes <= 0 {
		return
	}
	companyID := ""
	if co != nil {
		companyID = co.id
	}
	prefix, rel := splitPrefix(r.URL.EscapedPath())
	m := keymatch.New(keys...) // finds a key escaped in any way, once or twice over
	entry := Request{
		Method: r.Method, Prefix: prefix, Path: m.Redact(rel), CompanyID: companyID,
		Query: redactQuery(r.URL.Query(), m), Header: redactHeader(r.Header, keys, m),
		BodySize: len(body), Status: status, Time: s.clock.Now(),
	}
	if secs, err := strconv.Atoi(retryAfter); err == nil && secs > 0 {
		entry.RetryAfter = time.Duration(secs) * time.Second
	}
	if body != nil {
		entry.Body = truncateBody([]byte(m.Redact(string(body))), j.bodyCap())
	}
	j.add(entry)
}

// redactQuery replaces the keys in a parsed query, in names and values.
func redactQuery(q url.Values, m *keymatch.Matcher) url.Values {
	out := make(url.Values, len(q))
	for _, name := range slices.Sorted(maps.Keys(q)) { // names that redact alike merge in a stable order
		vs := q[name]
		for i, v := range vs {
			vs[i] = m.Redact(v)
		}
		name = m.Redact(name)
		out[name] = append(out[name], vs...)
	}
	return out
}

// journalKeys returns the keys the journal redacts: every company's, not
// only the request's, since a request may carry another company's key in
// its query or body. It is read before the handler runs, so that recording
// never waits on the state's lock.
func (s *Server) journalKeys() []string {
	if s.journal.limit <= 0 || s.journal.maxBytes <= 0 {
		return nil
	}
	return s.companyKeys()
}

// companyKeys returns every company's API key.
func (s *Server) companyKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	keys := make([]string, 0, len(s.companies))
	for _, c := range s.companies {
		keys = append(keys, c.apiKey)
	}
	return keys
}

// RedactKeys returns v with every company's API key replaced by
// [Redacted] wherever it appears, as the journal does: as is or escaped in
// any way (JSON, Go, URL, HTML escapes, mixed, once or twice over; see
// [Request]). It is for the log lines and error texts of a server that
// wraps the fake (cmd/convofake logs paths, where a client may have put a
// key as an id). A key shorter than 8 bytes is replaced only where it
// stands alone, not inside a longer word.
func (s *Server) RedactKeys(v string) string { return keymatch.New(s.companyKeys()...).Redact(v) }

// truncateBody keeps at most max bytes of b, followed by a marker line.
func truncateBody(b []byte, max int) []byte {
	if len(b) <= max {
		return bytes.Clone(b)
	}
	out := make([]byte, 0, max+48)
	out = append(out, b[:max]...)
	return append(out, "\n[fake: body truncated, "+strconv.Itoa(len(b))+" bytes in all]"...)
}

// redactHeader copies h with the values of Authorization (keeping its
// scheme) and X-Api-Key replaced, the keys replaced in every other value,
// and a name that holds a key replaced whole.
func redactHeader(src http.Header, keys []string, m *keymatch.Matcher) http.Header {
	h := http.Header{}
	for name, vs := range src {
		out := make([]string, len(vs))
		for i, v := range vs {
			switch name {
			case "Authorization":
				if scheme, _, found := strings.Cut(v, " "); found {
					out[i] = scheme + " " + Redacted
				} else {
					out[i] = Redacted
				}
			case "X-Api-Key":
				out[i] = Redacted
			default:
				out[i] = m.Redact(v)
			}
		}
		name = redactName(name, keys)
		h[name] = append(h[name], out...)
	}
	return h
}

// redactName is a header name with the keys it holds redacted, whatever
// their case: the name was canonicalized ("Fake-Api-Key" for a header
// sent as "fake-api-key").
func redactName(name string, keys []string) string {
	lower := strings.ToLower(name)
	for _, k := range keys {
		if k != "" && strings.Contains(lower, strings.ToLower(k)) {
			return Redacted
		}
	}
	return name
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

// RequestsMatching returns the requests of the journal, oldest first, whose
// method is method ("" for any; case does not matter) and whose path
// matches pattern ("" for any).
//
// The path rule is the same for fault rules ([Fault.Path]), every journal
// filter and cmd/convofake's GET /_fake/requests?path=: pattern is a
// [path.Match] pattern over the path relative to the base URL, escaped as
// sent ([Request.Path]), e.g. "/channels" or "/conversations/*/messages".
// A leading /v1 or /api/v1 in the pattern means the same as without it, so
// "/v1/channels" matches GET /v1/channels and GET /api/v1/channels alike
// ([Request.Prefix] tells them apart). Paths outside the API match with
// their whole path ("/_files/*"). A malformed pattern matches nothing.
// docs/behaviour.md, "Path patterns", has the rule with examples.
func (s *Server) RequestsMatching(method, pattern string) []Request {
	pattern = relativePattern(pattern)
	var out []Request
	for _, r := range s.Requests() {
		if matchRequest(method, pattern, r.Method, r.Path) {
			out = append(out, r)
		}
	}
	return out
}

// CountRequests is the number of requests [Server.RequestsMatching] returns.
func (s *Server) CountRequests(method, pattern string) int {
	return len(s.RequestsMatching(method, pattern))
}

// LastRequest returns the most recent request matching method and pattern
// (as in [Server.RequestsMatching]); ok is false when there is none.
func (s *Server) LastRequest(method, pattern string) (r Request, ok bool) {
	m := s.RequestsMatching(method, pattern)
	if len(m) == 0 {
		return Request{}, false
	}
	return m[len(m)-1], true
}

// CheckRequests reports an error on t, listing the journal, unless exactly
// want requests match method and pattern (as in [Server.RequestsMatching]).
// It returns whether the check passed.
func (s *Server) CheckRequests(t testing.TB, method, pattern string, want int) bool {
	t.Helper()
	if _, err := path.Match(relativePattern(pattern), ""); err != nil {
		t.Errorf("fake: pattern %q: %v", pattern, err)
		return false
	}
	if got := s.CountRequests(method, pattern); got != want {
		t.Errorf("fake: %d requests match %s, want %d; the journal holds:\n%s", got, describeFilter(method, pattern), want, s.journalListing())
		return false
	}
	return true
}

// CheckLastBody reports an error on t unless the last request matching
// method and pattern (as in [Server.LastRequest]) has a body equal, as JSON,
// to wantJSON. It returns whether the check passed.
func (s *Server) CheckLastBody(t testing.TB, method, pattern, wantJSON string) bool {
	t.Helper()
	r, ok := s.LastRequest(method, pattern)
	if !ok {
		t.Errorf("fake: no request matches %s; the journal holds:\n%s", describeFilter(method, pattern), s.journalListing())
		return false
	}
	var got, want any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Errorf("fake: the expected body is not JSON: %v", err)
		return false
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("fake: the last request matching %s has body\n\t%s\nwant\n\t%s", describeFilter(method, pattern), r.Body, wantJSON)
		return false
	}
	return true
}

func describeFilter(method, pattern string) string {
	if method == "" {
		method = "any method"
	}
	if pattern == "" {
		pattern = "any path"
	}
	return method + " " + pattern
}

// journalListing is one line per journaled request, for failure messages.
func (s *Server) journalListing() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "\t%s %s%s -> %d\n", r.Method, r.Prefix, r.Path, r.Status)
	}
	if b.Len() == 0 {
		return "\t(nothing)\n"
	}
	return b.String()
}
