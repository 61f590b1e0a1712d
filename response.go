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
	"strconv"
	"strings"
	"sync"
	"time"
)

// classify is the one reading of an attempt's outcome, made when it comes
// back from the network: whether the service accepted it, refused it for
// its rate, or gave no answer, and the wait its Retry-After asks for. The
// retry policy, the limiters and the call's error all take it from here.
func classify(resp *http.Response, err error, sent time.Time) Outcome {
	o := Outcome{Kind: OutcomeFailed, Sent: sent, Received: time.Now()}
	if err != nil || resp == nil {
		return o
	}
	o.Kind, o.StatusCode = OutcomeAccepted, resp.StatusCode
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		o.Kind = OutcomeRefused
		fallthrough
	case http.StatusServiceUnavailable:
		o.RetryAfter, o.asked = retryAfter(resp.Header)
	}
	return o
}

// MaxRetryAfter is the longest wait a Retry-After header is believed to ask
// for: the anomaly report's own limit allows about one pass a day. A longer
// one — or a negative or unparsable one, such as "1e12" — is nonsense, and
// the client treats every kind of nonsense alike: as if the header were
// absent, so the call retries on its exponential backoff, nothing is held,
// and Error.RetryAfter is 0.
const MaxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header: whole seconds, or an HTTP date
// measured from the service's clock (see serviceNow; a date already passed
// asks for no wait). ok is false, and wait 0, when the header is absent or
// nonsense (see MaxRetryAfter).
func retryAfter(h http.Header) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(MaxRetryAfter/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	if wait = max(t.Sub(serviceNow(h)), 0); wait > MaxRetryAfter {
		return 0, false
	}
	return wait, true
}

// serviceNow is the service's clock as an answer states it: its Date header.
// A Retry-After given as a date is measured against it, not against the local
// clock, so that a client whose clock is off (or a test fake on a frozen
// clock) waits what the service asked. Without a usable Date header the local
// clock is the only one left.
func serviceNow(h http.Header) time.Time {
	if d := h.Get("Date"); d != "" {
		if t, err := http.ParseTime(d); err == nil {
			return t
		}
	}
	return time.Now()
}

// apiAnswer is the strategy of an API call: its answer is the service's
// envelope, read whole (capped) into a pooled buffer, then decoded into
// out or a typed error.
type apiAnswer struct {
	out         any
	buf         *bytes.Buffer
	tooLarge    bool // the last answer read was over the client's cap
	noContentOK bool // Client.Do: a 204, or any answer to HEAD, has no body
}

func (a *apiAnswer) client(c *Client) http.Client { return c.hc }
func (a *apiAnswer) retryMax(budget int) int      { return budget }
func (a *apiAnswer) backoffStep(c *call) int      { return c.retries }
func (a *apiAnswer) prepare(*http.Request)        {}

// where is the path an attempt is logged with: as sent (an id may hold the
// key, hence the redaction).
func (a *apiAnswer) where(c *call, req *http.Request) string {
	return c.redact(req.URL.EscapedPath())
}

// target is the path the call's errors name.
func (a *apiAnswer) target(c *call) string { return c.path }

// retryable is Client.Do's rule, within the call's budget. A body
// announced over the client's cap is refused, not waited for, on a retry
// path as on the success path.
func (a *apiAnswer) retryable(c *call, resp *http.Response, err error, o Outcome) bool {
	if c.retries >= c.maxRetries || (err == nil && resp.ContentLength > c.c.maxBody) {
		return false
	}
	return retryableOutcome(c.method, c.maxWait, err, o)
}

// receive reads the answer's body (capped) inside the retry loop, so that
// a body cut part-way is an attempt that failed, retried like a failed
// connection.
func (a *apiAnswer) receive(c *call, resp *http.Response) error {
	a.buf.Reset()
	tooLarge, err := readCapped(a.buf, resp.Body, resp.ContentLength, c.c.maxBody)
	_ = resp.Body.Close() // read to its end, or refused: never waited for
	a.tooLarge = tooLarge
	if err != nil {
		if l := c.c.logger; l != nil && l.Enabled(resp.Request.Context(), slog.LevelDebug) {
			l.LogAttrs(resp.Request.Context(), slog.LevelDebug, "convo: reading the body failed",
				slog.String("method", c.method), slog.String("path", a.where(c, resp.Request)),
				slog.Int("attempt", c.attempt), slog.Int("status", resp.StatusCode),
				slog.String("error", c.redact(withoutURL(err).Error())))
		}
		return err
	}
	return nil
}

// finish reads the last answer into out, or into the typed error it
// describes.
func (a *apiAnswer) finish(c *call, resp *http.Response) error {
	data := a.buf.Bytes()
	c.noteRetirement(resp.Request.Context(), resp.Header)
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return c.parseError(resp, data, a.tooLarge)
	case a.tooLarge:
		return c.badBody(resp, data, ErrResponseTooLarge, fmt.Sprintf("response body larger than %d bytes", c.c.maxBody))
	case a.noContentOK && (resp.StatusCode == http.StatusNoContent || c.method == http.MethodHead):
		// No body by definition (any 2xx is a success): out is left as it is.
		return nil
	}
	return c.decodeSuccess(resp, data, a.out)
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

func (c *call) decodeSuccess(resp *http.Response, data []byte, out any) error {
	if out == nil {
		out = new(json.RawMessage) // still check that the body is the envelope
	}
	env := envelope{Data: out}
	if err := json.Unmarshal(data, &env); err != nil {
		return c.badBody(resp, data, ErrMalformedResponse, "response is not valid JSON: "+err.Error())
	}
	if env.Success == nil {
		return c.badBody(resp, data, ErrMalformedResponse, "response is not the service's envelope (no success field)")
	}
	c.meta.Timestamp = env.Timestamp.t
	if !*env.Success {
		// A 2xx carrying an error body: treat it as the error it describes.
		return c.parseError(resp, data, false)
	}
	if st, ok := out.(serviceTimed); ok {
		received := time.Now() // with its monotonic reading: see Attachment.Expired
		st.observeServiceTime(env.Timestamp.t, received)
	}
	return nil
}

// errorBody is the error envelope (docs/behaviour.md, Errors).
type errorBody struct {
	Success    *bool  `json:"success"`
	StatusCode int    `json:"statusCode"`
	Timestamp  string `json:"timestamp"`
	Path       string `json:"path"`
	Method     string `json:"method"`
	Message    struct {
		Error   ErrorCode       `json:"error"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	} `json:"message"`
	ErrorID string `json:"errorId"`
}

// parseError builds the *Error of a non-2xx answer (or of a 2xx whose body says
// success:false). A body that is not the envelope still yields an *Error with
// the status and a bounded excerpt. Its RetryAfter is the answer's, as
// classified: a wait the client believes, or 0.
func (c *call) parseError(resp *http.Response, data []byte, tooLarge bool) *Error {
	e := &Error{StatusCode: resp.StatusCode, Method: c.method, Path: c.path,
		RetryAfter: c.outcomeOf(resp, nil).RetryAfter}
	var body errorBody
	if tooLarge || json.Unmarshal(data, &body) != nil || body.Message.Error == "" {
		e.cause = ErrMalformedResponse
		if tooLarge {
			e.cause = ErrResponseTooLarge
		}
		e.Body = c.excerpt(data)
		return e
	}
	e.Code = body.Message.Error
	e.Message = body.Message.Message // redacted with every other field by finishError
	if len(body.Message.Details) > 0 && string(body.Message.Details) != "null" {
		e.Details = body.Message.Details
	}
	e.ErrorID = body.ErrorID
	if body.Path != "" {
		e.Path = body.Path
	}
	if body.Method != "" {
		e.Method = body.Method
	}
	if t, err := time.Parse(time.RFC3339Nano, body.Timestamp); err == nil {
		e.Timestamp = t
	}
	if body.StatusCode != 0 && body.StatusCode != resp.StatusCode && resp.StatusCode/100 == 2 {
		e.StatusCode = body.StatusCode // success:false inside a 2xx
	}
	return e
}

// badBody reports a 2xx whose body cannot be used.
func (c *call) badBody(resp *http.Response, data []byte, cause error, msg string) *Error {
	return &Error{
		StatusCode: resp.StatusCode,
		Method:     c.method,
		Path:       c.path,
		Message:    msg,
		Body:       c.excerpt(data),
		cause:      cause,
	}
}

// escapeRoom bounds how much longer than the key an escaped form of it may
// be: each of its bytes written as a twice-escaped character (an HTML
// numeric entity, URL-escaped again, is 15 bytes for one character of four)
// with room to spare.
const escapeRoom = 64

// excerpt keeps a bounded, redacted copy of a body. Redaction comes before
// the cut, over enough of the body that a key starting before the cut, in
// any escaped form, is seen whole: nothing of it can survive in part.
func (c *call) excerpt(data []byte) []byte {
	window := data
	if n := excerptLimit + escapeRoom*max(len(c.c.apiKey), len(c.apiKey)); len(window) > n {
		window = window[:n]
	}
	return truncate([]byte(c.redact(string(window))), excerptLimit)
}

// noteRetirement records the Deprecation and Sunset headers of an answer in
// the call's metadata, and logs them at Warn the first time a route
// carries them.
func (c *call) noteRetirement(ctx context.Context, h http.Header) {
	dep, sunset := h.Get("Deprecation"), h.Get("Sunset")
	if dep == "" && sunset == "" {
		return
	}
	c.meta.Deprecation = dep
	if t, err := http.ParseTime(sunset); err == nil {
		c.meta.Sunset = t
	}
	route := c.method + " " + c.route
	if _, seen := c.c.retiring.LoadOrStore(route, true); seen || c.c.logger == nil {
		return
	}
	c.c.logger.LogAttrs(ctx, slog.LevelWarn, "convo: the service announces the retirement of a route",
		slog.String("route", route), slog.String("deprecation", dep), slog.String("sunset", sunset))
}

// transportError wraps a failure to get a response. The URL (with its query
// values) is left out of the text; context errors stay reachable with
// errors.Is.
func (c *call) transportError(ctx context.Context, err error) error {
	err = withoutURL(err)
	msg := err.Error()
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		msg = ctxErr.Error() + ": " + msg // one line, unlike errors.Join's text
		err = errors.Join(ctxErr, err)
	}
	return &TransportError{Method: c.method, Path: c.how.target(c), msg: msg, err: err}
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
