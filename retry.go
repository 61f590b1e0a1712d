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
	"time"
)

// checkRetry is the retry policy (see Client.Do). A response it declines to
// retry goes back to the pipeline, which turns it into a typed *Error; it
// returns an error only when the context has ended (the transport failure of
// the attempt, if any, else the context's error).
//
// It also waits before the next attempt (the retry engine's own backoff is
// zero): a wait that would end after the context's deadline is not started, and the
// call returns the last answer's typed error at once rather than sleeping
// until the deadline and reporting only context.DeadlineExceeded.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err != nil {
			return false, err // keep the failure; the pipeline adds ctxErr if missing
		}
		return false, ctxErr
	}
	info := callInfoFrom(ctx) // every request of the pipeline carries it
	if !retryable(info, resp, err) || info.retries >= info.maxRetries || (resp != nil && resp.ContentLength > c.maxBody) {
		// A body announced over the cap is refused, not waited for, on a
		// retry path as on the success path.
		return false, nil // the budget is per call, body reads included
	}
	wait, shortest := c.planWait(resp, info.retries)
	if dl, has := ctx.Deadline(); has && time.Now().Add(shortest).After(dl) {
		return false, nil
	}
	info.retries++
	if resp != nil {
		keepConnection(resp)
	}
	if err := info.sleep(ctx, WaitRetry, wait); err != nil {
		return false, err
	}
	return true, nil
}

// sleep waits d before the call's next step, telling the call's trace why;
// it returns the context's error if the context ends first.
func (info *callInfo) sleep(ctx context.Context, reason WaitReason, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	info.traceWait(ctx, reason, d)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// retryable reports whether the outcome of an attempt (a response, or the
// transport error err) may be retried, budget aside.
func retryable(info *callInfo, resp *http.Response, err error) bool {
	if err != nil {
		return repeatable(info.method) && retryableTransportError(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		// The service refuses a rate-limited request before acting on it,
		// so even a POST is safe to send again.
		return withinCap(resp, info.maxWait)
	case http.StatusServiceUnavailable:
		return repeatable(info.method) && withinCap(resp, info.maxWait)
	case http.StatusRequestTimeout, http.StatusBadGateway, http.StatusGatewayTimeout:
		return repeatable(info.method)
	}
	return false
}

// planWait returns the wait before retry n and the shortest wait it could be:
// the same, except after a transport error, where backoff (which then gets no
// response, hence no context) draws its own jitter.
func (c *Client) planWait(resp *http.Response, n int) (wait, shortest time.Duration) {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if w, ok := retryAfter(resp.Header); ok {
			if resp.StatusCode == http.StatusTooManyRequests && w > 0 && w <= shortRetryAfter && c.pacesRetry(resp) {
				return 0, 0 // the rate finder spaces the retry
			}
			return w, w
		}
	}
	wait = jitteredBackoff(c.rc.RetryWaitMin, c.rc.RetryWaitMax, n)
	if resp == nil {
		return wait, baseBackoff(c.rc.RetryWaitMin, c.rc.RetryWaitMax, n) / 2
	}
	return wait, wait
}

// pacesRetry reports whether the rate finder paces the retry of resp's call.
func (c *Client) pacesRetry(resp *http.Response) bool {
	if resp.Request == nil {
		return false
	}
	info := callInfoFrom(resp.Request.Context())
	return info != nil && info.finder.paces()
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

// withinCap reports whether the wait the server asks for (if any) is within
// the call's maximum retry wait; a longer one returns the typed error at once.
// The context's deadline is checked by checkRetry against the planned wait.
func withinCap(resp *http.Response, maxWait time.Duration) bool {
	wait, ok := retryAfter(resp.Header)
	return !ok || wait <= maxWait
}

// noBackoff is the retry engine's backoff: checkRetry has already waited.
func noBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

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
	case errors.As(err, new(*gateHeld)):
		return false // the gate already judged: waiting would outlast the call
	}
	return true
}

// keepLastResponse is retryablehttp's ErrorHandler: when retries run out on a
// response, hand that response (body intact) back to the pipeline so the
// caller gets the typed error of the last answer rather than a generic one.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil && (err == nil || !isContextError(err)) {
		return resp, nil
	}
	if resp != nil {
		discard(resp) // the context ended during the wait: that is the outcome
	}
	return nil, err
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
