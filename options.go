package convo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// RequestOption adjusts one call. Every service method and Client.Do accept
// any number of them after their usual arguments; the client's options stay
// the defaults for everything a RequestOption does not set. A RequestOption
// that cannot apply (a header that would carry the key, a negative count)
// makes the call fail before any request is sent.
type RequestOption func(*callOptions)

// callOptions is what the RequestOptions of one call set.
type callOptions struct {
	header       http.Header
	maxRetries   int
	retriesSet   bool
	maxRetryWait time.Duration
	maxWaitSet   bool
	timeout      time.Duration
	response     *Response
	apiKey       string
	readAhead    bool
	errs         []error
}

// keyHeaders are the headers that carry the API key (spec §5): a plain
// header option may not set them, or a stray WithHeader could send another
// company's key, or none, without anyone noticing.
var keyHeaders = []string{"Authorization", "X-Api-Key"}

// WithHeader adds a header to the request of this call, after the client's
// own: a value given here replaces the client's (Accept, Content-Type),
// except User-Agent, where it is appended as one more product token so that
// the header still starts with "convo-go/<version>". The headers that carry the API key (Authorization, x-api-key)
// are refused — the call fails before any request — because the key is
// changed only on purpose, with WithRequestAPIKey. A name or value that
// cannot travel in HTTP (a line break, a control character) is refused too.
func WithHeader(key, value string) RequestOption {
	return func(o *callOptions) {
		name := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case name == "" || strings.ContainsAny(name, " :\t") || !validHeaderValue(name):
			o.errs = append(o.errs, fmt.Errorf("WithHeader: invalid header name %q", key))
			return
		case !validHeaderValue(value):
			o.errs = append(o.errs, fmt.Errorf("WithHeader: the value of %s contains a control character", name))
			return
		}
		for _, k := range keyHeaders {
			if name == k {
				o.errs = append(o.errs, fmt.Errorf("WithHeader: %s carries the API key and cannot be set by a header option; use WithRequestAPIKey", name))
				return
			}
		}
		if o.header == nil {
			o.header = make(http.Header, 1)
		}
		o.header.Set(name, value)
	}
}

// WithRequestAPIKey sends this call with another API key (another company's,
// say), in the client's authentication scheme. The key is redacted from the
// call's errors like the client's own. It is the only way to change the key
// of one call.
func WithRequestAPIKey(key string) RequestOption {
	return func(o *callOptions) {
		if strings.TrimSpace(key) == "" || !validHeaderValue(key) {
			// The key itself is never quoted: this error may be logged.
			o.errs = append(o.errs, errors.New("WithRequestAPIKey: the key is empty or contains a control character"))
			return
		}
		o.apiKey = key
	}
}

// WithRequestMaxRetries sets how many times this call may be retried (0: the
// first answer is the last), in place of the client's WithMaxRetries. Which
// failures are retried does not change (see Client.Do).
func WithRequestMaxRetries(n int) RequestOption {
	return func(o *callOptions) {
		if n < 0 {
			o.errs = append(o.errs, fmt.Errorf("WithRequestMaxRetries: negative count %d", n))
			return
		}
		o.maxRetries, o.retriesSet = n, true
	}
}

// WithRequestMaxRetryWait caps the wait the server may ask through
// Retry-After for this call, in place of the client's WithMaxRetryWait: a
// longer wait returns the typed 429 (or 503) at once.
func WithRequestMaxRetryWait(d time.Duration) RequestOption {
	return func(o *callOptions) {
		if d < 0 {
			o.errs = append(o.errs, fmt.Errorf("WithRequestMaxRetryWait: negative duration %v", d))
			return
		}
		o.maxRetryWait, o.maxWaitSet = d, true
	}
}

// WithTimeout bounds the whole call — every attempt and every wait between
// them — by d, on top of the context's own deadline. With Pages and All it
// bounds each page's fetch (bound the whole listing with the context). When it runs out the
// call fails with a *TransportError for which errors.Is(err,
// context.DeadlineExceeded) holds, or with the last answer's typed error if a
// wait would not end in time.
func WithTimeout(d time.Duration) RequestOption {
	return func(o *callOptions) {
		if d <= 0 {
			o.errs = append(o.errs, fmt.Errorf("WithTimeout: need a positive duration, got %v", d))
			return
		}
		o.timeout = d
	}
}

// CaptureResponse fills *r with the metadata of the call's last answer when
// the call returns, whether it succeeded or not: status, headers, attempts,
// total duration and the envelope's timestamp. On a call that got no answer
// (a connection refused, a cancelled context) StatusCode is 0 and Attempts
// says how many tries were made. With Pages and All, *r describes the last
// page fetched.
func CaptureResponse(r *Response) RequestOption {
	return func(o *callOptions) { o.response = r }
}

// WithReadAhead makes Pages and All fetch the next page while the loop body
// works on the current one: at most one page ahead, so memory stays constant,
// and the fetch runs in one goroutine that ends with the loop — breaking out,
// or the context ending, cancels it and waits for it. It is the one exception
// to "iterators start no goroutine", and pays off when the loop body takes
// about as long as a round trip (writing each page to disk or another
// service). Other calls ignore it.
func WithReadAhead() RequestOption {
	return func(o *callOptions) { o.readAhead = true }
}

// Response is the metadata of a call's answer, captured with
// CaptureResponse.
type Response struct {
	// StatusCode is the HTTP status of the last answer; 0 when none came.
	StatusCode int
	// Header holds the last answer's headers; nil when none came.
	Header http.Header
	// Attempts is the number of requests sent, retries included.
	Attempts int
	// Duration is the whole call's time, waits between attempts included.
	Duration time.Duration
	// Timestamp is the envelope's timestamp: when the service produced the
	// answer, on the service's clock (spec §2.1, §7); zero when absent.
	Timestamp time.Time
}

// applyOptions gathers the options of one call; an option that cannot apply
// is reported before any request.
func applyOptions(opts []RequestOption) (callOptions, error) {
	var o callOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if len(o.errs) > 0 {
		return o, fmt.Errorf("convo: %w", errors.Join(o.errs...))
	}
	return o, nil
}

// withTimeout applies WithTimeout to ctx; cancel is never nil.
func (o *callOptions) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.timeout > 0 {
		return context.WithTimeout(ctx, o.timeout)
	}
	return ctx, func() {}
}
