package convo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strings"
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
// in Retry-After and never before it has passed (capped by
// WithMaxRetryWait; nonsense, see MaxRetryAfter, is ignored), or after a
// jittered exponential backoff when it asks for none; then the attempt
// waits for its turn at the client's rate limiter (see WithRateLimiter);
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
