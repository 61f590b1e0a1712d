package convo

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The retry policy of every call (see Client.Do) is this file: the hooks a
// call gives go-retryablehttp's loop. checkRetry decides whether an
// answer is retried and plans the wait; backoff hands that wait to the
// loop, which sleeps it; prepareRetry runs when the wait is over.

// retryMax is the loop's budget of retries. An API call's is its own
// (WithMaxRetries); a download's is larger, because a transfer that makes
// progress may resume more often (see fileTransfer.retryable).
func (ci *callInfo) retryMax() int {
	if ci.file != nil {
		return ci.file.maxRequests(ci.maxRetries) - 1
	}
	return ci.maxRetries
}

// checkRetry is the loop's CheckRetry: whether the outcome of an attempt (an
// answer, a failure to get one, or a failure to read its body) is retried,
// and after how long. A wait that would end after the context's deadline is
// not started: the call returns the last answer's typed error at once
// rather than sleeping until the deadline and reporting only
// context.DeadlineExceeded. It returns an error only when the context has
// ended.
func (ci *callInfo) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err != nil {
			return false, err // keep the failure; the pipeline adds ctxErr if missing
		}
		return false, ctxErr
	}
	if err == nil && ci.handled {
		return false, nil // the answer the loop stops on, read by the response handler
	}
	if !ci.retryable(resp, err) {
		return false, nil
	}
	wait, shortest := ci.planWait(resp, err)
	if dl, has := ctx.Deadline(); has && time.Now().Add(shortest).After(dl) {
		return false, nil
	}
	ci.retries++
	ci.planned = wait
	if resp != nil && err == nil {
		keepConnection(resp)
	}
	return true, nil
}

// retryable reports whether an attempt's outcome may be retried, within
// the call's budget. A body announced over the client's cap is refused, not
// waited for, on a retry path as on the success path.
func (ci *callInfo) retryable(resp *http.Response, err error) bool {
	if ci.file != nil {
		return ci.file.retryable(ci, resp, err)
	}
	if ci.retries >= ci.maxRetries || (err == nil && resp.ContentLength > ci.c.maxBody) {
		return false
	}
	return retryableOutcome(ci.method, ci.maxWait, resp, err)
}

// retryableOutcome is the rule of Client.Do: a 429 for every method (the
// service refuses before acting); transport failures, a cut body, 408, 502,
// 503 and 504 for methods safe to repeat; a Retry-After over maxWait is not
// waited for.
func retryableOutcome(method string, maxWait time.Duration, resp *http.Response, err error) bool {
	if err != nil {
		return repeatable(method) && retryableTransportError(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return withinCap(resp, maxWait)
	case http.StatusServiceUnavailable:
		return repeatable(method) && withinCap(resp, maxWait)
	case http.StatusRequestTimeout, http.StatusBadGateway, http.StatusGatewayTimeout:
		return repeatable(method)
	}
	return false
}

// planWait returns the wait before the next attempt and the shortest it
// could be: the Retry-After of a 429 or 503, whole, else the jittered
// exponential backoff (whose shortest is half its base).
func (ci *callInfo) planWait(resp *http.Response, err error) (wait, shortest time.Duration) {
	if err == nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if w, ok := retryAfter(resp.Header); ok {
			return w, w
		}
	}
	n := ci.retries
	if ci.file != nil {
		n = ci.file.stuck
	}
	min, max := ci.c.retryWaitMin, ci.c.retryWaitMax
	return jitteredBackoff(min, max, n), baseBackoff(min, max, n) / 2
}

// backoff is the loop's Backoff: the wait checkRetry planned. The loop
// sleeps it; its start is noted for the trace.
func (ci *callInfo) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	ci.waitFrom = time.Now()
	return ci.planned
}

// prepareRetry is the loop's PrepareRetry, run when the wait is over and
// before the next attempt: it traces the wait, and points a download's
// next request at the byte reached.
func (ci *callInfo) prepareRetry(req *http.Request) error {
	ci.endWait(req.Context())
	if ci.file != nil {
		ci.file.prepare(req)
	}
	return nil
}

// endWait traces the retry wait under way, if any, with the time it took.
func (ci *callInfo) endWait(ctx context.Context) {
	if ci.waitFrom.IsZero() {
		return
	}
	d := time.Since(ci.waitFrom)
	ci.waitFrom = time.Time{}
	ci.traceWait(ctx, WaitRetry, d)
}

// withinCap reports whether the wait the server asks for (if any) is within
// the call's maximum retry wait; a longer one returns the typed error at once.
func withinCap(resp *http.Response, maxWait time.Duration) bool {
	wait, ok := retryAfter(resp.Header)
	return !ok || wait <= maxWait
}

// baseBackoff is min·2ⁿ capped at max: the longest jittered wait of attempt n.
// A min of 0 means no wait at all (as in retryablehttp), not max.
func baseBackoff(min, max time.Duration, attempt int) time.Duration {
	switch {
	case min <= 0:
		return 0
	case attempt >= 62 || min > max>>attempt:
		return max
	}
	return min << attempt
}

func jitteredBackoff(min, max time.Duration, attempt int) time.Duration {
	d := baseBackoff(min, max, attempt)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
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

// MaxRetryAfter is the longest wait a Retry-After header is believed to ask
// for: the anomaly report's own limit allows about one pass a day. A longer
// one — or a negative or unparsable one, such as "1e12" — is nonsense, and
// the client treats every kind of nonsense alike: as if the header were
// absent, so the call retries on its exponential backoff and nothing is held.
const MaxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header: whole seconds, or an HTTP date
// measured from the service's clock (see serviceNow; a date already passed
// asks for no wait). ok is false when the header is absent or nonsense (see
// MaxRetryAfter).
func retryAfter(h http.Header) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		wait = time.Duration(secs) * time.Second
		return wait, secs >= 0 && secs <= int64(MaxRetryAfter/time.Second)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	wait = max(t.Sub(serviceNow(h)), 0)
	return wait, wait <= MaxRetryAfter
}

// repeatable reports whether a request may be sent twice without harm.
func repeatable(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// retryableTransportError excludes failures that another attempt cannot fix.
func retryableTransportError(err error) bool {
	var (
		unknownCA *x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		certErr   *x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &certErr):
		return false
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		return false
	case errors.As(err, new(*heldError)):
		return false // the limiter already judged: waiting would outlast the call
	}
	return true
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

// keepLimit bounds what is kept in memory of an answer about to be
// retried: the service's error envelopes are a few hundred bytes.
const keepLimit = 64 << 10

// keepConnection reads a response that is about to be retried, so that its
// connection goes back to the pool (retryablehttp would drain only 4 KiB and
// close). The first keepLimit bytes stay readable from memory, because if the
// retries run out this response is the one the caller's typed error is
// built from; a body that does not arrive at once is not waited for (see
// drainSoon), and keeps what came in time.
func keepConnection(resp *http.Response) {
	head := &headWriter{max: keepLimit}
	late, err := drainSoon(head, resp.Body)
	switch {
	case late || err == nil:
		resp.Body = io.NopCloser(bytes.NewReader(head.buf))
	default:
		// Cut mid-answer: what was read comes first, then the failure.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(head.buf), failingReader{err}))
	}
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// headWriter keeps the first max bytes written to it and drops the rest.
type headWriter struct {
	buf []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
