package convo

import (
	"bytes"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The retry policy of every call (see Client.Do): which outcomes are
// retried, the backoff between attempts, and what becomes of the answer of
// an attempt that is retried. The call's loop (call.go) asks it through its
// strategy.

// retryableOutcome is the rule of Client.Do: a 429 for every method (the
// service refuses before acting); transport failures, a cut body, 408, 502,
// 503 and 504 for methods safe to repeat; a Retry-After over maxWait is not
// waited for.
func retryableOutcome(method string, maxWait time.Duration, err error, o Outcome) bool {
	if err != nil {
		return repeatable(method) && retryableTransportError(err)
	}
	switch o.StatusCode {
	case http.StatusTooManyRequests:
		return o.RetryAfter <= maxWait
	case http.StatusServiceUnavailable:
		return repeatable(method) && o.RetryAfter <= maxWait
	case http.StatusRequestTimeout, http.StatusBadGateway, http.StatusGatewayTimeout:
		return repeatable(method)
	}
	return false
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
	case errors.As(err, new(*holdError)):
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
