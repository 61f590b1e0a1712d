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
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

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

// callInfo is one call: its settings, fixed once before the first attempt
// (newCall), and the little state its attempts share. Every step of the
// call's loop is a method on it — the retry engine's hooks (checkRetry,
// backoff, prepareRetry), the attempt (RoundTrip, as the transport of the
// call's own http.Client) and the reading of the answer — so the settings
// reach the attempt without a detour through the context. Middleware sees
// the call only as a read-only CallInfo (CallFromContext).
type callInfo struct {
	c           *Client
	method      string
	path        string // relative to {base_url}, without the query: query values are personal data
	route       string // the path's template, for traces and metrics
	url         string
	body        []byte // nil: no body
	header      http.Header
	apiKey      string      // a per-call key (WithAPIKey on the call), else ""
	keyMatch    *keyMatcher // apiKey's matcher, built when first needed (see redactCall)
	maxRetries  int
	maxWait     time.Duration
	middleware  []Middleware // the client's, the context's, the call's
	trace       *Trace
	limit       *limiter      // the client's limiter; nil: off
	hold        *limiter      // the anomaly report's own hold; nil on other routes
	file        *fileTransfer // a download from a file host; nil for an API call
	noContentOK bool          // Client.Do: a 204, or any answer to HEAD, has no body

	// What the attempts share. The retry engine runs them one after
	// another on the call's goroutine.
	attempt  int           // attempts so far
	retries  int           // retries decided so far by checkRetry
	planned  time.Duration // the wait checkRetry chose before the next attempt
	waitFrom time.Time     // when that wait began; zero: no wait under way
	buf      *bytes.Buffer // the body of the last answer read (API calls)
	tooLarge bool          // it was over the client's cap
	handled  bool          // the response handler has read the last answer
	meta     Response
}

type callKey struct{}

func callInfoFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
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

// send runs one API call: it builds the call from the client's settings
// and the call's options, runs its loop, and reads the answer into out or a
// typed error.
func (c *Client) send(ctx context.Context, method, path string, q string, body any, out any, noContentOK bool, opts []Option) error {
	if ctx == nil {
		return errors.New("convo: nil context")
	}
	if c == nil || c.next == nil {
		return errors.New("convo: the Client was not built with NewClient")
	}
	o, err := callConfig(opts)
	if err != nil {
		return err
	}
	ci, err := c.newCall(ctx, method, path, q, body, &o)
	if err != nil {
		return err
	}
	ci.noContentOK = noContentOK
	buf := bufPool.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	ci.buf = buf
	return ci.do(ctx, &o, func(resp *http.Response) error { return ci.result(resp, out) })
}

// newCall is the one place where a call's settings are made: the client's,
// overridden by the call's options. The request's headers and body are
// built here too, once for every attempt.
func (c *Client) newCall(ctx context.Context, method, path, q string, body any, o *config) (*callInfo, error) {
	if err := checkPathText(path); err != nil {
		return nil, fmt.Errorf("convo: %s: %w", method, err)
	}
	ci := c.newCallInfo(ctx, method, path, o)
	ci.route = cmp.Or(o.route, routeOf(path))
	ci.url = c.base + path
	if q != "" {
		ci.url += "?" + q
	}
	if path == anomaliesPath {
		ci.hold = c.anomalyHold
	}
	if body != nil {
		payload, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("convo: %s %s: encoding body: %w", method, path, err)
		}
		if err := checkBodyText(payload, body); err != nil {
			return nil, fmt.Errorf("convo: %s %s: %w", method, path, err)
		}
		ci.body = payload
	}
	ci.header = make(http.Header, len(c.headers)+len(o.header)+1)
	c.setHeaders(ci.header, ci.body != nil, o.apiKey)
	for k, v := range o.header {
		if k == "User-Agent" {
			v = []string{c.userAgent + " " + strings.TrimSpace(v[0])}
		}
		ci.header[k] = v
	}
	return ci, nil
}

// newCallInfo holds what every call has, API call or download: the retry
// budget and waits, the middleware and the trace.
func (c *Client) newCallInfo(ctx context.Context, method, path string, o *config) *callInfo {
	ci := &callInfo{c: c, method: method, path: path, maxRetries: c.maxRetries, maxWait: c.maxWait,
		apiKey: o.apiKey, trace: cmp.Or(o.trace, c.trace), limit: c.limit}
	if o.retriesSet {
		ci.maxRetries = o.maxRetries
	}
	if o.maxWaitSet {
		ci.maxWait = o.maxRetryWait
	}
	fromCtx, _ := ctx.Value(middlewareKey{}).([]Middleware)
	if n := len(c.middleware) + len(fromCtx) + len(o.middleware); n > 0 {
		ci.middleware = slices.Concat(c.middleware, fromCtx, o.middleware)
	}
	return ci
}

// do runs the call under its timeout and trace, then hands the last answer
// to finish, and stamps the call's metadata on the result.
func (ci *callInfo) do(ctx context.Context, o *config, finish func(*http.Response) error) error {
	start := time.Now()
	if timeout := cmp.Or(o.timeout, ci.c.timeout); timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ctx = ci.traceStart(ctx)
	var err error
	if err = ctx.Err(); err != nil {
		err = ci.transportError(ctx, err)
	} else {
		var resp *http.Response
		if resp, err = ci.run(ctx); err == nil {
			err = finish(resp)
		}
	}
	ci.meta.Attempts, ci.meta.Duration = ci.attempt, time.Since(start)
	if err != nil {
		err = ci.c.finishError(err, ci)
	}
	ci.traceDone(ctx, err)
	if o.response != nil {
		*o.response = ci.meta
	}
	return err
}

// run is the call's loop: go-retryablehttp's, with hooks that are the
// call's own. Each attempt is RoundTrip; the answer retryablehttp will not
// retry is read by the response handler inside the loop, so that a body
// cut part-way is one more failed attempt of the same loop. It returns the
// last answer (its body read), or the failure to get one.
func (ci *callInfo) run(ctx context.Context) (*http.Response, error) {
	var raw any // retryablehttp treats a nil []byte as a body; keep it untyped nil
	if ci.body != nil {
		raw = ci.body
	}
	req, err := retryablehttp.NewRequestWithContext(context.WithValue(ctx, callKey{}, ci), ci.method, ci.url, raw)
	if err != nil {
		// url.Parse's error quotes the whole URL, query values included.
		return nil, fmt.Errorf("convo: %s %s: building request: %w", ci.method, ci.path, withoutURL(err))
	}
	req.Header = ci.header
	hc := ci.c.hc
	if ci.file != nil {
		hc = ci.c.files
		req.SetResponseHandler(func(resp *http.Response) error {
			ci.handled = true
			return ci.file.receive(resp)
		})
	} else {
		req.SetResponseHandler(ci.readBody)
	}
	hc.Transport = ci
	rc := &retryablehttp.Client{
		HTTPClient:   &hc,
		RetryWaitMin: ci.c.retryWaitMin,
		RetryWaitMax: ci.c.retryWaitMax,
		RetryMax:     ci.retryMax(),
		CheckRetry:   ci.checkRetry,
		Backoff:      ci.backoff,
		PrepareRetry: ci.prepareRetry,
		// The last answer comes back as it is, so that the caller's error
		// is the typed error of that answer, not a generic one.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	resp, err := rc.Do(req)
	ci.endWait(ctx) // a wait the context cut short
	if err != nil {
		var held *heldError
		if errors.As(err, &held) {
			return nil, held.asError(ci.method, ci.path)
		}
		return nil, ci.transportError(ctx, err)
	}
	ci.meta.StatusCode, ci.meta.Header = resp.StatusCode, resp.Header
	return resp, nil
}

// result reads the last answer of an API call into out, or into the typed
// error it describes.
func (ci *callInfo) result(resp *http.Response, out any) error {
	c, data := ci.c, ci.buf.Bytes()
	c.noteRetirement(resp.Request.Context(), ci, resp.Header)
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return c.parseError(resp, ci, data, ci.tooLarge)
	case ci.tooLarge:
		return c.badBody(resp, ci, data, ErrResponseTooLarge, fmt.Sprintf("response body larger than %d bytes", c.maxBody))
	case ci.noContentOK && (resp.StatusCode == http.StatusNoContent || ci.method == http.MethodHead):
		// No body by definition (any 2xx is a success): out is left as it is.
		return nil
	}
	return c.decodeSuccess(resp, ci, data, out)
}

// transportError wraps a failure to get an answer. The URL (with its query
// values) is left out of the text; context errors stay reachable with
// errors.Is.
func (ci *callInfo) transportError(ctx context.Context, err error) error {
	path := ci.path
	if ci.file != nil {
		path = ci.file.where
	}
	return ci.c.transportError(ctx, ci.method, path, err)
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

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer put back in the pool: a rare large
// answer must not keep its memory alive for the small ones that follow.
const maxPooledBuffer = 1 << 20

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		bufPool.Put(buf)
	}
}

// idRoutes are the routes whose path holds an id, by the path's prefix and
// suffix around it.
var idRoutes = []struct{ prefix, suffix, route string }{
	{"/conversations/", "/messages", "/conversations/{conversation_id}/messages"},
	{"/attachments/", "", "/attachments/{media_id}"},
}

// routeOf is the route of a request path: the path, with the id of the
// routes that hold one replaced by its name.
func routeOf(path string) string {
	for _, r := range idRoutes {
		if rest, ok := strings.CutPrefix(path, r.prefix); ok {
			if id, ok := strings.CutSuffix(rest, r.suffix); ok && id != "" && !strings.Contains(id, "/") {
				return r.route
			}
		}
	}
	return path
}

// noteRetirement records the Deprecation and Sunset headers of an answer in
// the call's metadata, and logs them at Warn the first time a route
// carries them.
func (c *Client) noteRetirement(ctx context.Context, info *callInfo, h http.Header) {
	dep, sunset := h.Get("Deprecation"), h.Get("Sunset")
	if dep == "" && sunset == "" {
		return
	}
	info.meta.Deprecation = dep
	if t, err := http.ParseTime(sunset); err == nil {
		info.meta.Sunset = t
	}
	route := info.method + " " + info.route
	if _, seen := c.retiring.LoadOrStore(route, true); seen || c.logger == nil {
		return
	}
	c.logger.LogAttrs(ctx, slog.LevelWarn, "convo: the service announces the retirement of a route",
		slog.String("route", route), slog.String("deprecation", dep), slog.String("sunset", sunset))
}
