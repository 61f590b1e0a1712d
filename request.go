package convo

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/go-querystring/query"
)

// A call goes through four files, each once: this one builds its request
// (request), call.go runs the attempts (execute, with the limiters' turns and
// the retry policy's hooks), transport.go bounds each attempt's stalls, and
// response.go classifies each answer and reads the last one into the
// caller's value or a typed error.

// request is one call's settings, fixed before its first attempt: the
// client's, overridden by the call's options, and what is sent. The
// attempts of the call only read it.
type request struct {
	c          *Client
	method     string
	path       string // relative to {base_url}, without the query: query values are personal data
	route      string // the path's template, for traces and metrics
	url        string
	body       []byte // nil: no body
	header     http.Header
	apiKey     string // a per-call key (WithAPIKey on the call), else ""
	maxRetries int
	maxWait    time.Duration
	timeout    time.Duration
	middleware []Middleware // the client's, the context's, the call's
	trace      *Trace
	capture    *Response // CaptureResponse's target, or nil
	limit      *pacer    // the client's limiter; nil: none
	hold       *pacer    // the anomaly report's own hold; nil on other routes
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

// send runs one API call: it builds the request from the client's settings
// and the call's options, and executes it, reading the answer into out or a
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
	r, err := c.newAPIRequest(ctx, method, path, q, body, &o)
	if err != nil {
		return err
	}
	answer := &apiAnswer{out: out, noContentOK: noContentOK, buf: bufPool.Get().(*bytes.Buffer)}
	defer putBuffer(answer.buf)
	_, err = r.execute(ctx, answer)
	return err
}

// newAPIRequest is the one place where an API call's request is made: its
// settings (newRequest), its URL, its headers and body, and the limiters
// its attempts wait for.
func (c *Client) newAPIRequest(ctx context.Context, method, path, q string, body any, o *config) (*request, error) {
	if err := checkPathText(path); err != nil {
		return nil, fmt.Errorf("convo: %s: %w", method, err)
	}
	r := c.newRequest(ctx, method, path, o)
	r.route = cmp.Or(o.route, routeOf(path))
	r.url = c.base + path
	if q != "" {
		r.url += "?" + q
	}
	r.limit = c.limit
	if path == anomaliesPath {
		r.hold = c.anomalyHold
	}
	if body != nil {
		payload, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("convo: %s %s: encoding body: %w", method, path, err)
		}
		if err := checkBodyText(payload, body); err != nil {
			return nil, fmt.Errorf("convo: %s %s: %w", method, path, err)
		}
		r.body = payload
	}
	r.header = make(http.Header, len(c.headers)+len(o.header)+1)
	c.setHeaders(r.header, r.body != nil, o.apiKey)
	for k, v := range o.header {
		if k == "User-Agent" {
			v = []string{c.userAgent + " " + strings.TrimSpace(v[0])}
		}
		r.header[k] = v
	}
	return r, nil
}

// newRequest holds what every call has, API call or download: the retry
// budget and waits, the timeout, the middleware, the trace and the capture.
func (c *Client) newRequest(ctx context.Context, method, path string, o *config) *request {
	r := &request{c: c, method: method, path: path, maxRetries: c.maxRetries, maxWait: c.maxWait,
		timeout: cmp.Or(o.timeout, c.timeout), apiKey: o.apiKey, trace: cmp.Or(o.trace, c.trace), capture: o.response}
	if o.retriesSet {
		r.maxRetries = o.maxRetries
	}
	if o.maxWaitSet {
		r.maxWait = o.maxRetryWait
	}
	fromCtx, _ := ctx.Value(middlewareKey{}).([]Middleware)
	if n := len(c.middleware) + len(fromCtx) + len(o.middleware); n > 0 {
		r.middleware = slices.Concat(c.middleware, fromCtx, o.middleware)
	}
	return r
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

// utc prepares a non-zero time for the query string: converted to UTC, for
// the service's layout (three fractional digits, Z suffix), and rounded UP to the next millisecond when it
// has a finer part. The layout keeps three fractional digits and Format would
// truncate; since the service's timestamps are whole milliseconds,
// rounding up selects exactly the items a full-precision comparison would, for
// an inclusive bound (Since: t ≥ 10:00:00.0005 ⇔ t ≥ 10:00:00.001) as for an
// exclusive one (Until: t < 10:00:00.0005 ⇔ t < 10:00:00.001). Truncating
// would let in an item from before Since.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	t = t.UTC()
	if sub := t.Nanosecond() % int(time.Millisecond); sub != 0 {
		t = t.Add(time.Millisecond - time.Duration(sub))
	}
	return t
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

// ErrInvalidText reports a string the SDK will not send: invalid UTF-8, or a
// NUL character. JSON would silently turn invalid bytes into U+FFFD (two
// different names could then become one on the service) and a NUL is never
// meant; the call fails before any request.
var ErrInvalidText = errors.New("convo: invalid UTF-8 or NUL character")

// InvalidTextError names where the text was found; errors.Is(err,
// ErrInvalidText) holds.
type InvalidTextError struct {
	// Where is "path", "query parameter <name>" or "body" (with the field's path
	// when it could be found, such as "body field custom_fields[Plan]").
	Where string
	// Reason is "invalid UTF-8" or "NUL character".
	Reason string
}

// Error names the place and the reason, never the value (it may be personal
// data).
func (e *InvalidTextError) Error() string {
	return e.Where + ": " + e.Reason + " (invalid UTF-8 or NUL character)"
}

// Unwrap returns ErrInvalidText.
func (e *InvalidTextError) Unwrap() error { return ErrInvalidText }

// checkPathText refuses a path whose segments, once unescaped, are not valid
// UTF-8 or hold a NUL (an identifier read from a broken file, say).
func checkPathText(path string) error {
	if !strings.Contains(path, "%") && utf8.ValidString(path) && strings.IndexByte(path, 0) < 0 {
		return nil
	}
	raw, err := url.PathUnescape(path)
	if err != nil {
		raw = path
	}
	if r := textProblem(raw); r != "" {
		return &InvalidTextError{Where: "path", Reason: r}
	}
	return nil
}

// checkQueryText refuses a query value (or name) that is not valid UTF-8 or
// holds a NUL.
func checkQueryText(q url.Values) error {
	for k, vs := range q {
		if r := textProblem(k); r != "" {
			return &InvalidTextError{Where: "query parameter name", Reason: r}
		}
		for _, v := range vs {
			if r := textProblem(v); r != "" {
				return &InvalidTextError{Where: "query parameter " + k, Reason: r}
			}
		}
	}
	return nil
}

func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "NUL character"
	}
	return ""
}

// checkBodyText inspects the encoded body: json.Marshal writes a NUL as
// \u0000 and an invalid byte as \ufffd (a real U+FFFD stays raw UTF-8), so
// the common case costs one scan. Only when \ufffd shows up is the value
// walked, to tell an invalid byte from an escape written by hand in a
// json.RawMessage.
func checkBodyText(payload []byte, body any) error {
	if bytes.Contains(payload, []byte(`\u0000`)) {
		where := findText(reflect.ValueOf(body), "body", "NUL character")
		return &InvalidTextError{Where: where, Reason: "NUL character"}
	}
	// encoding/json writes invalid UTF-8 as the escape \ufffd; built with
	// GOEXPERIMENT=jsonv2, as the character U+FFFD itself.
	if bytes.Contains(payload, []byte(`\ufffd`)) || bytes.Contains(payload, []byte("\uFFFD")) {
		if where := findText(reflect.ValueOf(body), "body", "invalid UTF-8"); where != "" && where != "body" || hasInvalid(reflect.ValueOf(body), 0) {
			return &InvalidTextError{Where: where, Reason: "invalid UTF-8"}
		}
	}
	return nil
}

// findText returns the path of the first string of v with the given problem,
// or at (the root's name) when none is found by walking.
func findText(v reflect.Value, at, reason string) string {
	if p, ok := walkText(v, at, reason, 0); ok {
		return p
	}
	return at
}

func hasInvalid(v reflect.Value, depth int) bool {
	_, ok := walkText(v, "", "invalid UTF-8", depth)
	return ok
}

// walkText looks for a string with the problem through pointers, interfaces,
// structs (exported fields, by their JSON names), maps and slices. Depth is
// bounded so that a cyclic value cannot loop (json.Marshal refuses those
// anyway).
func walkText(v reflect.Value, at, reason string, depth int) (string, bool) {
	if depth > 32 || !v.IsValid() {
		return "", false
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return walkText(v.Elem(), at, reason, depth+1)
	case reflect.String:
		if textProblem(v.String()) == reason {
			return at, true
		}
	case reflect.Struct:
		return walkStruct(v, at, reason, depth)
	case reflect.Map:
		return walkMap(v, at, reason, depth)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // bytes (a json.RawMessage): not a Go string
		}
		for i := range v.Len() {
			if p, ok := walkText(v.Index(i), fmt.Sprintf("%s[%d]", at, i), reason, depth+1); ok {
				return p, true
			}
		}
	}
	return "", false
}

// walkStruct is walkText over a struct's exported fields, by JSON name.
func walkStruct(v reflect.Value, at, reason string, depth int) (string, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if p, ok := walkText(v.Field(i), at+" field "+name, reason, depth+1); ok {
			return p, true
		}
	}
	return "", false
}

// walkMap is walkText over a map's keys and values.
func walkMap(v reflect.Value, at, reason string, depth int) (string, bool) {
	iter := v.MapRange()
	for iter.Next() {
		k := iter.Key()
		if k.Kind() == reflect.String && textProblem(k.String()) == reason {
			return at + " key", true
		}
		if p, ok := walkText(iter.Value(), fmt.Sprintf("%s[%v]", at, safeKey(k)), reason, depth+1); ok {
			return p, true
		}
	}
	return "", false
}

// safeKey prints a map key only when it is clean text.
func safeKey(k reflect.Value) any {
	if k.Kind() == reflect.String && textProblem(k.String()) != "" {
		return "?"
	}
	return k.Interface()
}
