package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/recordredact"
)

// RecordingNote opens every recording: a recording holds the recorded
// account's data.
const RecordingNote = "This recording holds the data of the account it was made with: its customers' phone numbers, names and message texts, unless it was pseudonymised. Keep it as you keep that data; share a pseudonymised recording only."

// Entry is one line of a recording (JSON lines): the header first, then
// one exchange a line.
type Entry struct {
	// Kind is "header" or "exchange".
	Kind string `json:"kind"`
	// Note is the header's warning ([RecordingNote]).
	Note string `json:"note,omitempty"`
	// Pseudonymised tells, on the header, whether phones, names and texts
	// were replaced.
	Pseudonymised bool `json:"pseudonymised,omitempty"`

	// Method is the request's method.
	Method string `json:"method,omitempty"`
	// Path is the request's path relative to the base URL ("/channels"); for
	// a request outside the API (a temporary file address) it is "".
	Path string `json:"path,omitempty"`
	// URL is the address of a request outside the API, without its query.
	URL string `json:"url,omitempty"`
	// Auth is how the request carried the key: "Bearer", "ApiKey",
	// "x-api-key", or "none"; "" outside the API.
	Auth string `json:"auth,omitempty"`
	// Query is the request's query.
	Query url.Values `json:"query,omitempty"`
	// RequestBody is the request's JSON body, if any.
	RequestBody json.RawMessage `json:"request_body,omitempty"`
	// Status is the answer's HTTP status.
	Status int `json:"status,omitempty"`
	// Header holds the answer's headers that matter: Content-Type,
	// Retry-After, Date and the rate-limit headers.
	Header http.Header `json:"header,omitempty"`
	// Body is the answer's body when it is JSON.
	Body json.RawMessage `json:"body,omitempty"`
	// Text is the answer's body when it is neither JSON nor a file (a
	// proxy's page), redacted.
	Text string `json:"text,omitempty"`
	// File describes a file answer by its size and SHA-256 only.
	File *FileDigest `json:"file,omitempty"`
	// BodyOver, when not 0, says the answer's body was longer than the
	// recorder's cap ([RecorderOptions.MaxBodyBytes]), this many bytes: it
	// was passed on to the client but not recorded.
	BodyOver int64 `json:"body_over,omitempty"`

	line int // the line of the recording it was read from
}

// FileDigest stands for a file's bytes in a recording.
type FileDigest struct {
	// Size is the file's length in bytes.
	Size int64 `json:"size"`
	// SHA256 is its SHA-256, in hexadecimal.
	SHA256 string `json:"sha256"`
}

// RecorderOptions configure a [Recorder].
type RecorderOptions struct {
	// Secrets are removed from the recording in every escaping, beside the
	// keys the recorder sees in the requests' Authorization and x-api-key
	// headers and api_key query parameters, which it always removes.
	Secrets []string
	// Pseudonymise replaces phone numbers, names, e-mail addresses,
	// filenames, tag names, texts and temporary file addresses (bearer
	// secrets while they live) by stand-ins, consistently: one value
	// always becomes the same stand-in, so references still hold. Use it
	// for a recording you share.
	Pseudonymise bool
	// Salt makes the stand-ins of one recording unlike another's; empty: a
	// fixed salt (stand-ins are then guessable by trying values).
	Salt string
	// MaxBodyBytes bounds what the recorder reads of an answer that is not a
	// file; 0: convo.DefaultMaxResponseBytes. A longer answer is recorded by
	// its status and headers only (see [Entry.BodyOver]) and passed on to
	// the client whole, unread, so that the client's own cap (see
	// convo.WithMaxResponseBytes) decides: the recorder holds at most this
	// many bytes of one answer. Give it the client's cap.
	MaxBodyBytes int64
}

// Recorder records a client's exchanges as JSON lines (a cassette): each
// request's method, path, query and body, each answer's status, the
// headers that matter and its body (a file by its size and SHA-256 only).
// API keys are removed in every escaping. A recording holds the recorded
// account's data (see [RecordingNote], its first line): offer
// [RecorderOptions.Pseudonymise] before it leaves your hands.
//
// Plug it in as client middleware ([Recorder.Middleware], which sees the
// API calls) or as a transport ([Recorder.Transport], which also sees the
// downloads of attachment files). It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	w       io.Writer
	opts    RecorderOptions
	secrets []string
	redact  *recordredact.Redactor
	pseudo  *pseudonymiser
	started bool
	err     error
}

// NewRecorder returns a recorder writing to w.
func NewRecorder(w io.Writer, opts RecorderOptions) *Recorder {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = convo.DefaultMaxResponseBytes
	}
	r := &Recorder{w: w, opts: opts, secrets: append([]string(nil), opts.Secrets...)}
	r.redact = recordredact.New(r.secrets...)
	if opts.Pseudonymise {
		r.pseudo = newPseudonymiser(opts.Salt)
	}
	return r
}

// Err returns the first error met while writing the recording.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Middleware records each attempt of a client's calls; give it to
// convo.WithMiddleware.
func (r *Recorder) Middleware(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
	return r.roundTrip(req, next)
}

// Transport returns a transport that records every request sent through
// next (nil: http.DefaultTransport), attachment files included; give it to
// the client's http.Client.
func (r *Recorder) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) { return r.roundTrip(req, next.RoundTrip) })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func (r *Recorder) roundTrip(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	r.learnKey(req.Header, req.URL.Query())
	e := Entry{Kind: "exchange", Method: req.Method, Query: req.URL.Query()}
	if rel, ok := apiPath(req.URL.EscapedPath()); ok {
		e.Path, e.Auth = rel, authForm(req.Header)
	} else {
		e.URL = req.URL.Scheme + "://" + req.URL.Host + req.URL.EscapedPath()
	}
	if req.Body != nil && req.Body != http.NoBody {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if json.Valid(body) {
			e.RequestBody = body
		}
	}
	resp, err := next(req)
	if err != nil {
		return resp, err
	}
	e.Status = resp.StatusCode
	e.Header = http.Header{}
	for name, vs := range resp.Header {
		l := strings.ToLower(name)
		if l == "content-type" || l == "retry-after" || l == "date" || strings.Contains(l, "ratelimit") || strings.Contains(l, "rate-limit") {
			e.Header[name] = vs
		}
	}
	ct := resp.Header.Get("Content-Type")
	if e.Path == "" && !strings.Contains(ct, "json") {
		resp.Body = &digestBody{rc: resp.Body, h: sha256.New(), done: func(n int64, sum []byte) {
			e.File = &FileDigest{Size: n, SHA256: hex.EncodeToString(sum)}
			r.write(e)
		}}
		return resp, nil
	}
	body, over, err := readUpTo(resp, r.opts.MaxBodyBytes)
	if err != nil {
		return resp, err
	}
	switch {
	case over:
		e.BodyOver = r.opts.MaxBodyBytes
	case json.Valid(body):
		e.Body = body
	default:
		e.Text = string(body)
	}
	r.write(e)
	return resp, nil
}

// readUpTo reads at most limit bytes of resp's body. When the body is no
// longer, resp gets a copy of it and over is false; when it is longer,
// resp's body is what was read followed by the rest, unread, and over is
// true, so that the client meets the whole answer and its own cap. An
// answer whose Content-Length is over limit is not read at all; one of
// unknown length is read into a buffer that grows up to limit+1 bytes, so
// that what is allocated stays under twice the limit.
func readUpTo(resp *http.Response, limit int64) (body []byte, over bool, err error) {
	rc := resp.Body
	if resp.ContentLength > limit {
		return nil, true, nil
	}
	body, err = readBounded(rc, limit+1, resp.ContentLength)
	if err != nil {
		rc.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return nil, false, err
	}
	if int64(len(body)) > limit {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), rc), rc}
		return nil, true, nil
	}
	rc.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, false, nil
}

// readBounded reads r to its end or to most bytes, whichever comes first,
// into a buffer sized by the announced length (negative: unknown), grown
// four times over, and to most at once past half of it: what it allocates
// stays under twice most.
func readBounded(r io.Reader, most, announced int64) ([]byte, error) {
	size := min(most, 32<<10)
	if announced >= 0 {
		size = min(most, announced+1)
	}
	buf := make([]byte, 0, size)
	for int64(len(buf)) < most {
		if len(buf) == cap(buf) {
			next := min(most, 4*int64(cap(buf)))
			if 2*next > most {
				next = most
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// authForm is how a request carries its key.
func authForm(h http.Header) string {
	if a := h.Get("Authorization"); a != "" {
		scheme, _, _ := strings.Cut(a, " ")
		return scheme
	}
	if h.Get("X-Api-Key") != "" {
		return "x-api-key"
	}
	return "none"
}

// apiPath is the part of an escaped path after its /v1 segment.
func apiPath(p string) (string, bool) {
	i := strings.Index(p+"/", "/v1/")
	if i < 0 {
		return "", false
	}
	rel := p[i+len("/v1"):]
	if rel == "" {
		rel = "/"
	}
	return rel, true
}

// learnKey adds the key a request carries to the secrets removed: in its
// headers, or in its query (which the service refuses, but a client may
// still send).
func (r *Recorder) learnKey(h http.Header, q url.Values) {
	keys := slices.Clone(q["api_key"])
	for _, v := range h.Values("Authorization") {
		if _, k, ok := strings.Cut(v, " "); ok {
			keys = append(keys, strings.TrimSpace(k))
		}
	}
	keys = append(keys, h.Values("X-Api-Key")...)
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, k := range keys {
		if k != "" && !contains(r.secrets, k) {
			r.secrets = append(r.secrets, k)
			added = true
		}
	}
	if added {
		r.redact = recordredact.New(r.secrets...)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// write redacts (and pseudonymises) e and writes it as one line.
func (r *Recorder) write(e Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	if !r.started {
		r.started = true
		r.writeLine(Entry{Kind: "header", Note: RecordingNote, Pseudonymised: r.pseudo != nil})
	}
	clean := func(s string) string { return r.redact.String(s) }
	if r.pseudo != nil {
		e.URL = r.pseudo.fileURL(e.URL)
	}
	e.Path, e.URL, e.Text = clean(e.Path), clean(e.URL), clean(e.Text)
	q := url.Values{}
	for k, vs := range e.Query {
		for _, v := range vs {
			if r.pseudo != nil {
				v = r.pseudo.param(k, v)
			}
			q.Add(clean(k), clean(v))
		}
	}
	e.Query = q
	if len(q) == 0 {
		e.Query = nil
	}
	e.RequestBody = r.cleanJSON(e.RequestBody)
	e.Body = r.cleanJSON(e.Body)
	r.writeLine(e)
}

// cleanJSON rewrites a JSON document with the secrets removed from every
// string (decoded, so that no JSON escaping hides one) and, when asked,
// pseudonymised.
func (r *Recorder) cleanJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return json.RawMessage(r.redact.Bytes(b))
	}
	if r.pseudo != nil {
		v = r.pseudo.value("", v)
	}
	v = redactValue(r.redact, v)
	out, err := marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return out
}

func redactValue(red *recordredact.Redactor, v any) any {
	switch x := v.(type) {
	case string:
		return red.String(x)
	case []any:
		for i := range x {
			x[i] = redactValue(red, x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			out[red.String(k)] = redactValue(red, vv)
		}
		return out
	}
	return v
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func (r *Recorder) writeLine(e Entry) {
	line, err := marshal(e)
	if err == nil {
		line = r.redact.Bytes(line) // a last pass over the whole line
		_, err = r.w.Write(append(line, '\n'))
	}
	if err != nil && r.err == nil {
		r.err = err
	}
}

// digestBody hashes a file's body as the client reads it and reports its
// size and digest once, at its end or when it is closed.
type digestBody struct {
	rc   io.ReadCloser
	h    hash.Hash
	n    int64
	done func(int64, []byte)
	once sync.Once
}

func (d *digestBody) Read(p []byte) (int, error) {
	n, err := d.rc.Read(p)
	d.h.Write(p[:n])
	d.n += int64(n)
	if err == io.EOF {
		d.finish()
	}
	return n, err
}

func (d *digestBody) Close() error {
	d.finish()
	return d.rc.Close()
}

func (d *digestBody) finish() { d.once.Do(func() { d.done(d.n, d.h.Sum(nil)) }) }
