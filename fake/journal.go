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
//
// Recording is meant to cost almost nothing: an entry keeps the request as
// received (method, escaped path, raw query, a copy of the headers and of
// the body, the keys to redact with), and the redacted [Request] is built
// the first time someone reads the journal, then kept in its place.
type journal struct {
	mu       sync.Mutex
	limit    int
	maxBytes int64
	bytes    int64
	// ring holds the n entries kept, oldest first from ring[start],
	// wrapping around; it grows up to limit+1 entries, then is reused.
	ring     []entry
	start, n int
}

// at is the i-th entry kept, oldest first.
func (j *journal) at(i int) *entry { return &j.ring[(j.start+i)%len(j.ring)] }

// push adds e after the newest entry, growing the ring when it is full.
func (j *journal) push(e entry) {
	if j.n == len(j.ring) {
		grown := make([]entry, min(max(16, 2*len(j.ring)), j.limit+1))
		for i := range j.n {
			grown[i] = *j.at(i)
		}
		j.ring, j.start = grown, 0
	}
	*j.at(j.n) = e
	j.n++
	j.bytes += e.size
}

// dropOldest forgets the oldest entry.
func (j *journal) dropOldest() {
	e := j.at(0)
	j.bytes -= e.size
	*e = entry{}
	j.start = (j.start + 1) % len(j.ring)
	j.n--
}

// entry is one journaled request. Until built, req holds only the fields
// that need no redaction, and the raw fields below hold the rest.
type entry struct {
	req   Request
	built bool
	size  int64 // the entry's part of the byte budget

	path     string      // the escaped path as sent
	rawQuery string      // the query string as the handler saw it
	header   http.Header // a copy of the request's headers, unless packed holds them
	// packed holds the request's headers (see packHeader) followed by the
	// body: one allocation without pointers, that the garbage collector
	// never scans. body, when set by record, is its tail.
	packed     []byte
	packedSize int    // the packed header's part of the byte budget
	body       []byte // a copy of the body; redacted and cut already when bodyDone
	bodyDone   bool
	keys       *keySet // every company's key when the request came
}

// bodyCap is the most of one body an entry keeps: 64 KiB, or an eighth of
// a small byte budget, so that one request never evicts the whole journal.
func (j *journal) bodyCap() int {
	if c := j.maxBytes / 8; c < journalBodyMax {
		return int(c)
	}
	return journalBodyMax
}

// rawSize is an entry's part of the byte budget, counted on the request as
// received: the bytes its Request holds once built, but for the keys
// redacted outside the Authorization and X-Api-Key headers (which a
// built entry holds as [Redacted]).
func (e *entry) rawSize() int64 {
	n := entryOverhead + len(e.req.Method) + len(e.path) + len(e.req.CompanyID) + len(e.body) + queryLen(e.rawQuery)
	for name, vs := range e.header {
		n += len(name)
		for _, v := range vs {
			n += headerValueSize(name, v)
		}
	}
	return int64(n + e.packedSize)
}

// headerValueSize is the budget's count of one value of the header name:
// its size once redacted, for the Authorization and X-Api-Key headers.
func headerValueSize(name, v string) int {
	switch name {
	case "Authorization":
		if scheme, _, found := strings.Cut(v, " "); found {
			return len(scheme) + 1 + len(Redacted)
		}
		return len(Redacted)
	case "X-Api-Key":
		return len(Redacted)
	}
	return len(v)
}

// queryLen is the length of the names and values of a raw query string
// once parsed as url.ParseQuery parses it (pairs with a ";" or a bad
// escape are dropped), without building the map; a name given twice
// counts twice.
func queryLen(raw string) int {
	n := 0
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		kl, ok1 := unescapedLen(k)
		vl, ok2 := unescapedLen(v)
		if ok1 && ok2 {
			n += kl + vl
		}
	}
	return n
}

// unescapedLen is the length of s after url.QueryUnescape; ok is false
// where QueryUnescape fails.
func unescapedLen(s string) (n int, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return 0, false
			}
			i += 2
		}
		n++
	}
	return n, true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (j *journal) add(e entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e.size = e.rawSize()
	j.push(e)
	for j.n > 0 && (j.n > j.limit || j.bytes > j.maxBytes) {
		j.dropOldest()
	}
}

// record journals a request once it is answered. It copies what the entry
// needs and redacts nothing, but for a body longer than the journal keeps
// (redacted before it is cut, so that a key across the cut goes too).
func (s *Server) record(r *http.Request, co *company, keys *keySet, body []byte, status int, retryAfter string) {
	j := &s.journal
	if j.limit <= 0 || j.maxBytes <= 0 {
		return
	}
	e := entry{
		req: Request{
			Method: internMethod(r.Method), BodySize: len(body), Status: status, Time: s.clock.Now(),
		},
		path: r.URL.EscapedPath(), rawQuery: r.URL.RawQuery, keys: keys,
	}
	if co != nil {
		e.req.CompanyID = co.id
	}
	if retryAfter != "" {
		if secs, err := strconv.Atoi(retryAfter); err == nil && secs > 0 {
			e.req.RetryAfter = time.Duration(secs) * time.Second
		}
	}
	if body != nil && len(body) > j.bodyCap() {
		body, e.bodyDone = truncateBody([]byte(keys.matcher().Redact(string(body))), j.bodyCap()), true
	}
	e.packed, e.packedSize = packHeader(r.Header, len(body))
	if body != nil {
		n := len(e.packed)
		e.packed = append(e.packed, body...)
		e.body = e.packed[n:len(e.packed):len(e.packed)]
	}
	j.add(e)
}

// build makes the entry's Request: the path, query, headers and body
// redacted with the entry's keys. Afterwards the entry holds only its
// Request.
func (e *entry) build(bodyCap int) {
	m := e.keys.matcher()
	prefix, rel := splitPrefix(e.path)
	q, _ := url.ParseQuery(e.rawQuery) // as r.URL.Query() parses it
	e.req.Prefix, e.req.Path = prefix, m.Redact(rel)
	e.req.Query = redactQuery(q, m)
	header := e.header
	if e.packed != nil {
		header = unpackHeader(e.packedHeader())
	}
	e.req.Header = redactHeader(header, e.keys.keys, m)
	if e.body != nil {
		if e.bodyDone {
			e.req.Body = e.body
		} else {
			e.req.Body = truncateBody([]byte(m.Redact(string(e.body))), bodyCap)
		}
	}
	e.built = true
	e.path, e.rawQuery, e.header, e.packed, e.body, e.keys = "", "", nil, nil, nil, nil
}

// requestsLocked builds the entries not built yet and returns their
// Requests, oldest first, keeping those keep accepts (nil: all). The caller
// holds j.mu.
func (j *journal) requestsLocked(keep func(*Request) bool) []Request {
	var out []Request
	for i := range j.n {
		e := j.at(i)
		if !e.built {
			e.build(j.bodyCap())
		}
		if keep == nil || keep(&e.req) {
			out = append(out, e.req)
		}
	}
	return out
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
func (s *Server) journalKeys() *keySet {
	if s.journal.limit <= 0 || s.journal.maxBytes <= 0 {
		return nil
	}
	return s.companyKeys()
}

// keySet is every company's API key at one moment, with the matcher that
// finds them, made on first use. It never changes once made, so requests
// and journal entries share it.
type keySet struct {
	keys []string
	once sync.Once
	m    *keymatch.Matcher
}

func (k *keySet) matcher() *keymatch.Matcher {
	k.once.Do(func() { k.m = keymatch.New(k.keys...) })
	return k.m
}

// companyKeys returns every company's API key: the last set made while
// the keys are the same, else a new one.
func (s *Server) companyKeys() *keySet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if ks := s.keys.Load(); ks != nil && len(ks.keys) == len(s.companies) {
		same := true
		for i, c := range s.companies {
			if ks.keys[i] != c.apiKey {
				same = false
				break
			}
		}
		if same {
			return ks
		}
	}
	ks := &keySet{keys: make([]string, 0, len(s.companies))}
	for _, c := range s.companies {
		ks.keys = append(ks.keys, c.apiKey)
	}
	s.keys.Store(ks)
	return ks
}

// RedactKeys returns v with every company's API key replaced by
// [Redacted] wherever it appears, as the journal does: as is or escaped in
// any way (JSON, Go, URL, HTML escapes, mixed, once or twice over; see
// [Request]). It is for the log lines and error texts of a server that
// wraps the fake (cmd/convofake logs paths, where a client may have put a
// key as an id). A key shorter than 8 bytes is replaced only where it
// stands alone, not inside a longer word.
func (s *Server) RedactKeys(v string) string { return s.companyKeys().matcher().Redact(v) }

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
	return s.journal.requestsLocked(nil)
}

// ClearRequests empties the journal.
func (s *Server) ClearRequests() {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	s.journal.ring, s.journal.start, s.journal.n, s.journal.bytes = nil, 0, 0, 0
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

// RequestsSentTooEarly returns, in time order, the requests of reqs (a
// journal: [Server.Requests] or [Server.RequestsMatching]) that repeated a
// request refused with a Retry-After (429 or 503) before that wait had
// passed on the server's clock: the same company, method, path, query and
// body, answered earlier than the refusal's time plus its Retry-After. A
// client that obeys the server makes it return nothing. A request the
// journal no longer keeps (see [WithJournalLimit]) is not judged.
func RequestsSentTooEarly(reqs []Request) []Request {
	reqs = slices.Clone(reqs)
	slices.SortStableFunc(reqs, func(a, b Request) int { return a.Time.Compare(b.Time) })
	type call struct{ company, method, path, query, body string }
	until := map[call]time.Time{} // the end of the last refusal's wait
	var early []Request
	for _, r := range reqs {
		c := call{r.CompanyID, r.Method, r.Path, r.Query.Encode(), string(r.Body)}
		if end, ok := until[c]; ok && r.Time.Before(end) {
			early = append(early, r)
		}
		if r.RetryAfter > 0 {
			until[c] = r.Time.Add(r.RetryAfter)
		}
	}
	return early
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
