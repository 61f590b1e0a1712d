package convo

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// Do sends a request to an endpoint of the service through the same pipeline
// as every typed call: authentication header, retries, size-capped body read
// and typed errors. It is the way to reach the endpoints the specification does
// not show (sending, templates, tags…), which the typed client does not
// invent.
//
// path is relative to {base_url} and starts with "/" (for example
// "/chatapp/templates"); escape any identifier you put in it with
// url.PathEscape (an identifier that is "." or ".." cannot be reached: dot
// segments are refused). query is nil, a url.Values, or a struct encoded with
// go-querystring's `url` tags. body is nil or a value marshalled to JSON (a
// json.RawMessage is sent as is; an io.Reader or a []byte is refused, as JSON
// would not carry them as you mean). out is nil or a non-nil pointer that
// receives the envelope's `data` (OpenAPI envelopes); anything else is refused before
// any request.
//
// Retries: a 429 is retried for every method, after the wait the server asks
// in Retry-After (capped by WithMaxRetryWait; nonsense, see MaxRetryAfter,
// is ignored) or a jittered exponential backoff;
// transport errors (a connection cut while the body is read included) and
// 408, 502, 503 and 504 are retried only for methods that
// are safe to repeat (GET, HEAD, OPTIONS, PUT, PATCH, DELETE) — a POST is never
// repeated except on 429, which the service answers before doing anything.
// A wait longer than WithMaxRetryWait, or one that would end after the
// context's deadline, is not started: the call returns the last answer's
// typed error at once (with Error.RetryAfter set when the server asked for a
// wait). When the retries run out, the error is that of the last answer.
//
// opts adjust this call only (extra headers, retries, timeout, metadata
// capture; see Option); the client's options are the defaults.
//
// Any 2xx is a success (the service answers 200, and 201 for a contact
// creation). A 204 No Content, or any answer to HEAD, has no
// body: Do returns nil and leaves out as it is. Every other 2xx must carry the
// success envelope, else the error wraps ErrMalformedResponse.
func (c *Client) Do(ctx context.Context, method, path string, query any, body any, out any, opts ...Option) error {
	if method == "" {
		return errors.New("convo: Do: empty method")
	}
	if !strings.HasPrefix(path, "/") || strings.Contains(path, "//") || strings.ContainsAny(path, "?#") { // "//" also rules out "://"
		return fmt.Errorf("convo: Do: path %q must be relative to the base URL, start with a single / and carry no query", path)
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("convo: Do: path %q must not contain dot segments", path)
		}
	}
	if out != nil {
		if rv := reflect.ValueOf(out); rv.Kind() != reflect.Pointer || rv.IsNil() {
			// json would silently decode into a copy and the caller would see nothing.
			return fmt.Errorf("convo: Do: out must be nil or a non-nil pointer, got %T", out)
		}
	}
	switch body.(type) {
	case io.Reader, []byte:
		// json.Marshal would send "{}" for a reader and a base64 string for bytes.
		return fmt.Errorf("convo: Do: body %T would not be sent as is: pass the value to encode, or json.RawMessage for JSON already encoded", body)
	}
	q, err := encodeQuery(query)
	if err != nil {
		return fmt.Errorf("convo: Do: %w", err)
	}
	method = strings.ToUpper(method)
	if err := checkQueryText(q); err != nil {
		return fmt.Errorf("convo: %s %s: %w", method, path, err)
	}
	return c.send(ctx, method, path, q.Encode(), body, out, true, opts)
}

// encodeQuery turns nil, url.Values or a go-querystring struct into values.
func encodeQuery(v any) (url.Values, error) {
	switch q := v.(type) {
	case nil:
		return nil, nil
	case url.Values:
		return q, nil
	case map[string][]string:
		return url.Values(q), nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	vals, err := query.Values(v)
	if err != nil {
		return nil, fmt.Errorf("encoding query: %w", err)
	}
	return vals, nil
}

// pathSegment escapes one path parameter so that no identifier can reach
// another endpoint: "/" becomes %2F and the dot segments "." and ".." are
// escaped too, since servers and proxies would otherwise resolve them.
func pathSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

// callInfo travels in the request context, so that the retry policy and the
// attempt logger (which see only a context and a response) know the call.
type callInfo struct {
	// context.Context is the call's context: a *callInfo is itself the
	// context the request carries (Value finds the callInfo), which spares
	// a context.WithValue per call.
	context.Context

	method     string
	path       string // without query: query values are personal data
	attempt    int    // round trips so far (for the log)
	retries    int    // retries decided so far by checkRetry
	maxRetries int    // this call's retry budget
	maxWait    time.Duration
	apiKey     string       // a per-call key (WithAPIKey on the call), else ""
	keyMatch   *keyMatcher  // apiKey's matcher, built when first needed (see redactCall)
	middleware []Middleware // the call's own (WithMiddleware on the call)
	meta       Response

	trace  *Trace      // the client's, or the call's own (WithTrace)
	finder *rateFinder // the rate finder that paces the call; nil: none
	route  string      // WithRoute's template; "": the path's route
}

type callInfoKey struct{}

// Value returns the callInfo itself for callInfoKey, else asks the call's
// context.
func (ci *callInfo) Value(key any) any {
	if key == (callInfoKey{}) {
		return ci
	}
	return ci.Context.Value(key)
}

func callInfoFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	return ci
}

// envelope is the success body of every operation. Data holds the caller's pointer so
// that the payload is decoded in one pass, straight into its final type.
type envelope struct {
	Success   *bool        `json:"success"`
	Data      any          `json:"data"`
	Timestamp envelopeTime `json:"timestamp"`
}

// envelopeTime decodes the envelope's timestamp without failing the call when
// it is missing or malformed: it is metadata, not the payload.
type envelopeTime struct{ t time.Time }

func (e *envelopeTime) UnmarshalJSON(b []byte) error {
	var t time.Time
	if t.UnmarshalJSON(b) == nil {
		e.t = t
	}
	return nil
}

// serviceTimed is implemented by payloads that carry times the service issued
// and must judge them on the service's clock (an attachment's expires_at):
// the pipeline hands them the envelope's timestamp and the local reading at
// receipt.
type serviceTimed interface {
	observeServiceTime(serviceTime, received time.Time)
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// call is the one request pipeline every typed endpoint goes through: they
// all answer with the envelope, so a body-less 2xx is an error there. params
// is the call's parameter struct, encoded by go-querystring (or nil).
func (c *Client) call(ctx context.Context, method, path string, params any, body any, out any, opts []Option) error {
	q, err := encodeQuery(params)
	if err == nil {
		err = checkQueryText(q)
	}
	if err != nil {
		return fmt.Errorf("convo: %s %s: %w", method, path, err)
	}
	return c.send(ctx, method, path, q.Encode(), body, out, false, opts)
}

// send is the pipeline. noContentOK (Client.Do) accepts a 204, or any answer
// to HEAD, as a success without a body. It builds the call's record from the
// client's settings and the call's options, runs the exchange, then records
// the metadata and scrubs the key from the error.
func (c *Client) send(ctx context.Context, method, path string, q string, body any, out any, noContentOK bool, opts []Option) error {
	if ctx == nil {
		return errors.New("convo: nil context")
	}
	if c == nil || c.rc == nil {
		return errors.New("convo: the Client was not built with NewClient")
	}
	o, err := callConfig(opts)
	if err != nil {
		return err
	}
	start := time.Now()
	info := c.newCallInfo(method, path, &o)
	if timeout := cmp.Or(o.timeout, c.timeout); timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	m := &info.meta
	ctx = info.traceStart(ctx)
	err = c.exchange(ctx, info, q, body, out, noContentOK, o.header)
	m.Attempts, m.Duration = info.attempt, time.Since(start)
	if err != nil {
		err = c.finishError(err, info)
	}
	info.traceDone(ctx, err)
	if o.response != nil {
		*o.response = *m
	}
	return err
}

// newCallInfo is the one place where a call's record is made: the client's
// settings, overridden by the call's options.
func (c *Client) newCallInfo(method, path string, o *config) *callInfo {
	info := &callInfo{method: method, path: path, maxRetries: c.maxRetries, maxWait: c.maxWait, apiKey: o.apiKey,
		middleware: o.middleware, trace: cmp.Or(o.trace, c.trace), finder: c.finderFor(path), route: o.route}
	if o.retriesSet {
		info.maxRetries = o.maxRetries
	}
	if o.maxWaitSet {
		info.maxWait = o.maxRetryWait
	}
	return info
}

// exchange sends the request (retrying as the policy says) and reads the
// answer into out or a typed error.
func (c *Client) exchange(ctx context.Context, info *callInfo, q string, body any, out any, noContentOK bool, extra http.Header) error {
	if err := ctx.Err(); err != nil {
		return c.transportError(ctx, info.method, info.path, err)
	}
	info.Context = ctx
	req, err := c.newRequest(info, q, body, extra)
	if err != nil {
		return err
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	resp, tooLarge, err := c.roundTrip(req, info, buf)
	if err != nil {
		return err
	}
	data := buf.Bytes()
	info.meta.StatusCode, info.meta.Header = resp.StatusCode, resp.Header
	c.noteRetirement(info, resp.Header)
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return c.parseError(resp, info, data, tooLarge)
	case tooLarge:
		return c.badBody(resp, info, data, ErrResponseTooLarge, fmt.Sprintf("response body larger than %d bytes", c.maxBody))
	case noContentOK && (resp.StatusCode == http.StatusNoContent || info.method == http.MethodHead):
		// No body by definition (any 2xx is a success): out is left as it is.
		return nil
	}
	return c.decodeSuccess(resp, info, data, out)
}

// newRequest builds the call's request, its context being the call's record
// (info), with the JSON body, the client's headers and the call's extra ones.
func (c *Client) newRequest(info *callInfo, q string, body any, extra http.Header) (*retryablehttp.Request, error) {
	method, path := info.method, info.path
	if err := checkPathText(path); err != nil {
		return nil, fmt.Errorf("convo: %s: %w", method, err)
	}
	var raw any // retryablehttp treats a nil []byte as a body; keep it untyped nil
	if body != nil {
		payload, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("convo: %s %s: encoding body: %w", method, path, err)
		}
		if err := checkBodyText(payload, body); err != nil {
			return nil, fmt.Errorf("convo: %s %s: %w", method, path, err)
		}
		raw = payload
	}
	u := c.base + path
	if q != "" {
		u += "?" + q
	}
	req, err := retryablehttp.NewRequestWithContext(info, method, u, raw)
	if err != nil {
		// url.Parse's error quotes the whole URL, query values included.
		return nil, fmt.Errorf("convo: %s %s: building request: %w", method, path, withoutURL(err))
	}
	c.setHeaders(req.Header, raw != nil, info.apiKey)
	for k, v := range extra {
		if k == "User-Agent" {
			v = []string{c.userAgent + " " + strings.TrimSpace(v[0])}
		}
		req.Header[k] = v
	}
	return req, nil
}

// roundTrip sends req through the retrying client and reads the answer's
// body into buf (capped), sending again when the body is cut mid-way and
// the policy allows.
func (c *Client) roundTrip(req *retryablehttp.Request, info *callInfo, buf *bytes.Buffer) (resp *http.Response, tooLarge bool, err error) {
	for {
		if resp, err = c.rc.Do(req); err != nil {
			var held *gateHeld
			if errors.As(err, &held) {
				return nil, false, held.asError(info.method, info.path)
			}
			return nil, false, c.transportError(info, info.method, info.path, err)
		}
		buf.Reset()
		var readErr error
		tooLarge, readErr = readCapped(buf, resp.Body, resp.ContentLength, c.maxBody)
		_ = resp.Body.Close() // read to its end, or refused: never waited for
		if readErr == nil {
			return resp, tooLarge, nil
		}
		if c.logger != nil && c.logger.Enabled(info, slog.LevelDebug) {
			c.logger.LogAttrs(info, slog.LevelDebug, "convo: reading the body failed",
				slog.String("method", info.method), slog.String("path", c.redactCall(info, req.URL.EscapedPath())),
				slog.Int("attempt", info.attempt), slog.Int("status", resp.StatusCode),
				slog.String("error", c.redactCall(info, withoutURL(readErr).Error())))
		}
		// A body cut mid-answer is never seen by the retry engine, which
		// hands the response over before the body is read: the policy is
		// asked here, with the rules of a transport error (only methods
		// safe to repeat, within the call's deadline and retry budget).
		if retry, _ := c.checkRetry(info, nil, readErr); !retry {
			return nil, false, c.transportError(info, info.method, info.path, readErr)
		}
	}
}

// fixedHeaders are the headers every call sends with key: Accept, User-Agent,
// the key in the client's authentication scheme, and the headers given to
// NewClient with WithHeader.
func (c *Client) fixedHeaders(key string) http.Header {
	h := http.Header{"Accept": {"application/json"}, "User-Agent": {c.userAgent}}
	switch c.authScheme {
	case AuthAPIKey:
		h["Authorization"] = []string{"ApiKey " + key}
	case AuthXAPIKey:
		h["X-Api-Key"] = []string{key}
	default:
		h["Authorization"] = []string{"Bearer " + key}
	}
	for k, v := range c.extra {
		h[k] = v
	}
	return h
}

// jsonContentType is the Content-Type value of a request with a body.
var jsonContentType = []string{"application/json"}

// setHeaders puts the client's fixed headers on a request (the key of
// WithAPIKey instead of the client's when callKey is set). The value
// slices are shared by every request, which saves an allocation per header
// per call: transports only read them (a RoundTripper must not modify its
// request), and the caller's extra headers replace entries, never edit them.
func (c *Client) setHeaders(h http.Header, hasBody bool, callKey string) {
	fixed := c.headers
	if callKey != "" {
		fixed = c.fixedHeaders(callKey)
	}
	for k, v := range fixed {
		h[k] = v
	}
	if hasBody {
		h["Content-Type"] = jsonContentType
	}
}

func (c *Client) decodeSuccess(resp *http.Response, info *callInfo, data []byte, out any) error {
	if out == nil {
		out = new(json.RawMessage) // still check that the body is the envelope
	}
	env := envelope{Data: out}
	if err := json.Unmarshal(data, &env); err != nil {
		return c.badBody(resp, info, data, ErrMalformedResponse, "response is not valid JSON: "+err.Error())
	}
	if env.Success == nil {
		return c.badBody(resp, info, data, ErrMalformedResponse, "response is not the service's envelope (no success field)")
	}
	info.meta.Timestamp = env.Timestamp.t
	if !*env.Success {
		// A 2xx carrying an error body: treat it as the error it describes.
		return c.parseError(resp, info, data, false)
	}
	if st, ok := out.(serviceTimed); ok {
		received := time.Now() // with its monotonic reading: see Attachment.Expired
		st.observeServiceTime(env.Timestamp.t, received)
	}
	return nil
}

// maxPooledBuffer is the largest buffer put back in the pool: a rare large
// answer must not keep its memory alive for the small ones that follow.
const maxPooledBuffer = 1 << 20

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		bufPool.Put(buf)
	}
}

// readCapped reads at most max bytes into buf and reports whether there was
// more. size is the answer's Content-Length (-1 when unknown): a body
// announced larger than max is refused without reading it, and a body of
// known size is read into one buffer of that size rather than one that
// doubles its way there.
func readCapped(buf *bytes.Buffer, r io.Reader, size, max int64) (tooLarge bool, err error) {
	if size > max {
		return true, nil
	}
	if size > 0 {
		buf.Grow(int(size) + bytes.MinRead) // ReadFrom wants MinRead free for the read that meets the end
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, max+1)); err != nil {
		return false, err
	}
	if int64(buf.Len()) > max {
		buf.Truncate(int(max))
		return true, nil
	}
	return false, nil
}

// drainLimit and drainWindow bound what is read of a body only to free its
// connection: what is left of a proxy's error page, if it arrives at once.
const (
	drainLimit  = 4 << 20
	drainWindow = 100 * time.Millisecond
)

// discard ends a response nobody will read further. A body announced larger
// than drainLimit is closed unread; any other is drained (see drainSoon).
func discard(resp *http.Response) {
	if resp.ContentLength > drainLimit {
		_ = resp.Body.Close()
		return
	}
	_, _ = drainSoon(io.Discard, resp.Body)
}

// drainSoon copies what is left of body into w, at most drainLimit bytes
// for at most drainWindow, then closes it: a connection whose answer is
// already arriving goes back to the pool, and one that trickles is dropped
// rather than waited for, perhaps for minutes. late says the window ran out
// (w has what arrived in time); err is a read failure before that.
func drainSoon(w io.Writer, body io.ReadCloser) (late bool, err error) {
	var expired atomic.Bool
	// Closing the body from the timer unblocks a read that waits.
	stop := time.AfterFunc(drainWindow, func() { expired.Store(true); _ = body.Close() })
	_, err = io.Copy(w, io.LimitReader(body, drainLimit))
	stop.Stop()
	_ = body.Close()
	if expired.Load() {
		return true, nil
	}
	return false, err
}

// transportError wraps a failure to get a response. The URL (with its query
// values) is left out of the text; context errors stay reachable with errors.Is.
func (c *Client) transportError(ctx context.Context, method, path string, err error) error {
	err = withoutURL(err)
	msg := err.Error()
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		msg = ctxErr.Error() + ": " + msg // one line, unlike errors.Join's text
		err = errors.Join(ctxErr, err)
	}
	return &TransportError{Method: method, Path: path, msg: c.redact(msg), err: err}
}

// withoutURL peels the *url.Error layers off err: their text quotes the URL,
// query values (personal data) included. http.Client adds one, and a wrapping
// transport may add another.
func withoutURL(err error) error {
	for {
		ue, ok := err.(*url.Error)
		if !ok {
			return err
		}
		err = ue.Err
	}
}

// TransportError reports a call that got no usable response: a connection
// failure, a timeout, a cancelled context. errors.Is(err, context.Canceled) and
// errors.Is(err, context.DeadlineExceeded) work through it.
type TransportError struct {
	// Method is the request's HTTP method.
	Method string
	// Path is the request's path relative to {base_url}, without the query
	// (its values may be personal data).
	Path string
	// Attempts is the number of requests sent, retries included.
	Attempts int
	// Duration is the whole call's time, waits between attempts included.
	Duration time.Duration
	msg      string
	err      error
}

// Error describes the failure without the URL's query or any secret.
func (e *TransportError) Error() string {
	return "convo: " + e.Method + " " + e.Path + ": " + e.msg
}

// GoString shows the error for %#v without its underlying error, whose text
// is only reached, redacted, through Error.
func (e *TransportError) GoString() string {
	return fmt.Sprintf("&convo.TransportError{Method:%q, Path:%q, Attempts:%d, Duration:%q, Err:%q}",
		e.Method, e.Path, e.Attempts, e.Duration.String(), e.msg)
}

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.err }

// Timeout reports whether the call failed by running out of time: the
// context's deadline, the http.Client's Timeout, or a network timeout.
func (e *TransportError) Timeout() bool {
	if errors.Is(e.err, context.DeadlineExceeded) {
		return true
	}
	var ne interface{ Timeout() bool }
	return errors.As(e.err, &ne) && ne.Timeout()
}

// attemptTransport runs each attempt of a call: it waits for the client's
// rate-limit gate, counts the attempt, runs the middleware (the client's, the
// context's, the call's) around the caller's transport, closes the gate on a
// 429 that asks for a wait, and writes one debug record when a logger is
// set. It deliberately has no CloseIdleConnections method (see
// buildTransport).
type attemptTransport struct {
	c    *Client
	next http.RoundTripper
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	info := callInfoFrom(req.Context())
	if info == nil { // not a request of the pipeline: nothing to add
		return t.next.RoundTrip(req)
	}
	if req.Response == nil { // a redirect hop is the same attempt
		info.attempt++
	}
	fromCtx, _ := req.Context().Value(middlewareKey{}).([]Middleware)
	if len(t.c.middleware)+len(fromCtx)+len(info.middleware) == 0 {
		return t.send(req)
	}
	return runMiddleware(req, slices.Concat(t.c.middleware, fromCtx, info.middleware), t.send)
}

// send waits for the rate-limit gate that governs the call's path, sends
// the attempt, and closes the gate on a 429 that asks for a wait.
func (t *attemptTransport) send(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	info := callInfoFrom(ctx)
	gate, finder := t.c.gates.forPath(info.path), info.finder
	if err := gate.wait(ctx, info); err != nil {
		info.attempt-- // not sent: not an attempt
		return nil, err
	}
	if err := finder.wait(ctx, info); err != nil {
		info.attempt--
		return nil, err
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		if resp.Request == nil {
			resp.Request = req // the retry policy finds the call through it
		}
		t.c.rateLimits(resp, info.path, gate, finder)
	}
	if t.c.logger != nil && t.c.logger.Enabled(ctx, slog.LevelDebug) {
		t.log(req, info, start, resp, err)
	}
	return resp, err
}

// rateLimits tells the rate finder how an answer went, and closes the gate
// on a 429 that asks for a wait the finder does not pace through.
func (c *Client) rateLimits(resp *http.Response, path string, gate *rateGate, finder *rateFinder) {
	if resp.StatusCode != http.StatusTooManyRequests {
		finder.observe(false)
		return
	}
	wait, ok := retryAfter(resp.Header)
	if !ok {
		return
	}
	if wait > 0 && wait <= shortRetryAfter {
		finder.observe(true) // a bucket's refusal, rounded up to the second
		if finder.paces() {
			return
		}
	}
	gate.holdFor(wait, holdLimit(path, c.maxWait))
}

func (t *attemptTransport) log(req *http.Request, info *callInfo, start time.Time, resp *http.Response, err error) {
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", t.c.redactCall(info, req.URL.EscapedPath())), // as sent; an id may hold the key
		slog.Duration("duration", time.Since(start)),
		slog.Int("attempt", info.attempt),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", t.c.redactCall(info, withoutURL(err).Error())))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	t.c.logger.LogAttrs(req.Context(), slog.LevelDebug, "convo: attempt", attrs...)
}
