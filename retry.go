package convo

import (
	"context"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// checkRetry is the retry policy (see Client.Do). It never returns an error of
// its own: a response it declines to retry goes back to the pipeline, which
// turns it into a typed *Error.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	method := http.MethodGet
	if info := callInfoFrom(ctx); info != nil {
		method = info.method
	}
	if err != nil {
		return repeatable(method) && retryableTransportError(err), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		// The service refuses a rate-limited request before acting on it, so
		// even a POST is safe to send again.
		return c.waitFits(ctx, resp), nil
	case http.StatusServiceUnavailable:
		return repeatable(method) && c.waitFits(ctx, resp), nil
	case http.StatusRequestTimeout, http.StatusBadGateway, http.StatusGatewayTimeout:
		return repeatable(method), nil
	}
	return false, nil
}

// waitFits reports whether the wait the server asks for (if any) is within
// WithMaxRetryWait and ends before the context's deadline. When it does not,
// sleeping would only delay the inevitable error.
func (c *Client) waitFits(ctx context.Context, resp *http.Response) bool {
	wait, ok := retryAfter(resp.Header, time.Now())
	if !ok {
		return true
	}
	if wait > c.maxWait {
		return false
	}
	if dl, has := ctx.Deadline(); has && time.Now().Add(wait).After(dl) {
		return false
	}
	return true
}

// backoff waits what the server asked in Retry-After on 429 and 503, otherwise
// a jittered exponential delay: attempt n waits between half and all of
// min·2ⁿ, capped at max.
func (c *Client) backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if wait, ok := retryAfter(resp.Header, time.Now()); ok {
			return wait
		}
	}
	return jitteredBackoff(min, max, attempt)
}

func jitteredBackoff(min, max time.Duration, attempt int) time.Duration {
	d := max
	if attempt < 30 {
		if exp := min << attempt; exp > 0 && exp < max {
			d = exp
		}
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter reads a Retry-After header: whole seconds (D11) or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(100*365*24*time.Hour/time.Second) {
			secs = int64(100 * 365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
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
	}
	return true
}

// keepLastResponse is retryablehttp's ErrorHandler: when retries run out on a
// response, hand that response (body intact) back to the pipeline so the
// caller gets the typed error of the last answer rather than a generic one.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil {
		return resp, nil
	}
	return nil, err
}
