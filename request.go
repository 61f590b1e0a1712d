package convo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// Do sends a request to an endpoint of the service through the same pipeline
// as every typed call: authentication header, retries, size-capped body read
// and typed errors. It is the way to reach the endpoints the specification does
// not show (sending, templates, tags…, D22).
//
// path is relative to {base_url} and starts with "/" (for example
// "/chatapp/templates"); escape any identifier you put in it with
// url.PathEscape. query is nil, a url.Values, or a struct encoded with
// go-querystring's `url` tags. body is nil or a value marshalled to JSON. out is
// nil or a pointer that receives the envelope's `data` (spec §2.1).
//
// Retries: a 429 is retried for every method, after the wait the server asks
// in Retry-After (capped by WithMaxRetryWait) or a jittered exponential backoff;
// transport errors and 408, 502, 503 and 504 are retried only for methods that
// are safe to repeat (GET, HEAD, OPTIONS, PUT, PATCH, DELETE) — a POST is never
// repeated except on 429, which the service answers before doing anything.
func (c *Client) Do(ctx context.Context, method, path string, query any, body any, out any) error {
	if method == "" {
		return errors.New("convo: Do: empty method")
	}
	if !strings.HasPrefix(path, "/") || strings.Contains(path, "://") || strings.ContainsAny(path, "?#") {
		return fmt.Errorf("convo: Do: path %q must be relative to the base URL, start with / and carry no query", path)
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("convo: Do: path %q must not contain dot segments", path)
		}
	}
	q, err := encodeQuery(query)
	if err != nil {
		return fmt.Errorf("convo: Do: %w", err)
	}
	return c.call(ctx, strings.ToUpper(method), path, q, body, out)
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
	method  string
	path    string // without query: query values are personal data
	attempt int
}

type callInfoKey struct{}

func callInfoFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	return ci
}

// envelope is the success body of spec §2.1. Data holds the caller's pointer so
// that the payload is decoded in one pass, straight into its final type.
type envelope struct {
	Success *bool `json:"success"`
	Data    any   `json:"data"`
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// call is the one request pipeline every endpoint goes through.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body any, out any) error {
	if ctx == nil {
		return errors.New("convo: nil context")
	}
	if err := ctx.Err(); err != nil {
		return c.transportError(ctx, method, path, err)
	}
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("convo: %s %s: encoding body: %w", method, path, err)
		}
	}
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	info := &callInfo{method: method, path: path}
	ctx = context.WithValue(ctx, callInfoKey{}, info)
	var raw any // retryablehttp treats a nil []byte as a body; keep it untyped nil
	if payload != nil {
		raw = payload
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, u, raw)
	if err != nil {
		return fmt.Errorf("convo: %s %s: building request: %w", method, path, err)
	}
	c.setHeaders(req.Header, payload != nil)

	resp, err := c.rc.Do(req)
	if err != nil {
		return c.transportError(ctx, method, path, err)
	}
	defer closeBody(resp.Body)

	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	tooLarge, readErr := readCapped(buf, resp.Body, c.maxBody)
	if readErr != nil {
		return c.transportError(ctx, method, path, readErr)
	}
	data := buf.Bytes()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.parseError(resp, method, path, data, tooLarge)
	}
	if tooLarge {
		return c.badBody(resp, method, path, data, ErrResponseTooLarge,
			fmt.Sprintf("response body larger than %d bytes", c.maxBody))
	}
	return c.decodeSuccess(resp, method, path, data, out)
}

func (c *Client) setHeaders(h http.Header, hasBody bool) {
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.userAgent)
	if hasBody {
		h.Set("Content-Type", "application/json")
	}
	switch c.authScheme {
	case AuthAPIKey:
		h.Set("Authorization", "ApiKey "+c.apiKey)
	case AuthXAPIKey:
		h.Set("x-api-key", c.apiKey)
	default:
		h.Set("Authorization", "Bearer "+c.apiKey)
	}
}

func (c *Client) decodeSuccess(resp *http.Response, method, path string, data []byte, out any) error {
	if out == nil {
		out = new(json.RawMessage) // still check that the body is the envelope
	}
	env := envelope{Data: out}
	if err := json.Unmarshal(data, &env); err != nil {
		return c.badBody(resp, method, path, data, ErrMalformedResponse, "response is not valid JSON: "+err.Error())
	}
	if env.Success == nil {
		return c.badBody(resp, method, path, data, ErrMalformedResponse, "response is not the service's envelope (no success field)")
	}
	if !*env.Success {
		// A 2xx carrying an error body: treat it as the error it describes.
		return c.parseError(resp, method, path, data, false)
	}
	return nil
}

// readCapped reads at most max bytes into buf and reports whether there was more.
func readCapped(buf *bytes.Buffer, r io.Reader, max int64) (tooLarge bool, err error) {
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return false, err
	}
	if n > max {
		buf.Truncate(int(max))
		return true, nil
	}
	return false, nil
}

// closeBody drains what is left (bounded) and closes, so the connection goes
// back to the pool.
func closeBody(b io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, b, 64<<10)
	_ = b.Close()
}

// transportError wraps a failure to get a response. The URL (with its query
// values) is left out of the text; context errors stay reachable with errors.Is.
func (c *Client) transportError(ctx context.Context, method, path string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = errors.Join(ctxErr, err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := c.redact(err.Error())
	return &TransportError{Method: method, Path: path, msg: msg, err: err}
}

// TransportError reports a call that got no usable response: a connection
// failure, a timeout, a cancelled context. errors.Is(err, context.Canceled) and
// errors.Is(err, context.DeadlineExceeded) work through it.
type TransportError struct {
	Method string
	Path   string
	msg    string
	err    error
}

// Error describes the failure without the URL's query or any secret.
func (e *TransportError) Error() string {
	return "convo: " + e.Method + " " + e.Path + ": " + e.msg
}

// Unwrap returns the underlying error.
func (e *TransportError) Unwrap() error { return e.err }

// minRedactLen is the shortest key worth redacting: replacing every "k" of a
// message for a one-letter test key would only garble the text.
const minRedactLen = 8

// redact removes the API key from text that came from elsewhere (a server's
// message, a transport error), as a last line of defence.
func (c *Client) redact(s string) string {
	if len(c.apiKey) >= minRedactLen && strings.Contains(s, c.apiKey) {
		s = strings.ReplaceAll(s, c.apiKey, "[REDACTED]")
	}
	return s
}

// attemptTransport writes one debug record per attempt when a logger is set.
// It deliberately has no CloseIdleConnections method (see buildTransport).
type attemptTransport struct {
	next   http.RoundTripper
	logger *slog.Logger
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	info := callInfoFrom(ctx)
	if info != nil {
		info.attempt++
	}
	if t.logger == nil || !t.logger.Enabled(ctx, slog.LevelDebug) {
		return t.next.RoundTrip(req)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.Path),
		slog.Duration("duration", time.Since(start)),
	}
	if info != nil {
		attrs = append(attrs, slog.Int("attempt", info.attempt))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	t.logger.LogAttrs(ctx, slog.LevelDebug, "convo: attempt", attrs...)
	return resp, err
}
