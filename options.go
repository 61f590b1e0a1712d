package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Option configures a Client (NewClient), one call (every service method
// and Client.Do), or a run of Parallel or ParallelSeq. One type serves all
// three, and each setting has one name: given to NewClient it is the
// client's default, given to a call it overrides that default for the call
// only. Each option's documentation says where it applies; one given where
// it cannot (WithBaseURL on a call, CaptureResponse to NewClient,
// ParallelLimit on a call) makes that NewClient, call or run fail with a
// clear error before any request is sent. Later options override earlier
// ones; a nil Option is ignored.
type Option func(*config)

// scope is where a set of options is applied.
type scope uint8

const (
	scopeClient scope = 1 << iota
	scopeCall
	scopeParallel
)

// String names the scopes in s, for error texts.
func (s scope) String() string {
	var names []string
	for _, n := range []struct {
		s    scope
		name string
	}{{scopeClient, "NewClient"}, {scopeCall, "a call"}, {scopeParallel, "Parallel"}} {
		if s&n.s != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " and ")
}

// config is what a set of options says. Fields are grouped by where they
// apply.
type config struct {
	scope scope
	errs  []error

	// NewClient and calls.
	apiKey       string
	maxRetries   int
	retriesSet   bool
	maxRetryWait time.Duration
	maxWaitSet   bool
	header       http.Header
	timeout      time.Duration
	middleware   []Middleware
	trace        *Trace

	// NewClient only.
	baseURL      string
	httpClient   *http.Client
	authScheme   AuthScheme
	retryWaitMin time.Duration
	retryWaitMax time.Duration
	maxBody      int64
	logger       *slog.Logger
	userAgent    string
	insecureHTTP bool
	limiter      RateLimiter
	stallTimeout time.Duration
	stallSet     bool

	// Calls only.
	route     string
	response  *Response
	readAhead bool

	// Parallel and ParallelSeq only.
	limit      int
	collectAll bool
}

// in reports whether the option name may be applied here, and records the
// refusal when it may not.
func (c *config) in(name string, allowed scope) bool {
	if c.scope&allowed != 0 {
		return true
	}
	c.errs = append(c.errs, fmt.Errorf("%s applies to %s, not to %s", name, allowed, c.scope))
	return false
}

// fail records an option's refusal of its value.
func (c *config) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// apply applies opts on c; the error joins every refusal.
func (c *config) apply(opts []Option) error {
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	if len(c.errs) > 0 {
		return fmt.Errorf("convo: %w", errors.Join(c.errs...))
	}
	return nil
}

// callConfig gathers the options of one call.
func callConfig(opts []Option) (config, error) {
	if len(opts) == 0 {
		return config{}, nil // no allocation on the common path
	}
	c := config{scope: scopeCall}
	err := c.apply(opts)
	return c, err
}

// WithAPIKey sets the API key. Without it NewClient reads CONVO_API_KEY; on a
// call it sends that call with another key (another company's, say), in the
// client's authentication scheme. Applies to NewClient and to a call.
//
// The key is redacted from every error and log line the client writes, as
// is and in its JSON-, Go-, URL- and HTML-escaped forms, escaped once or
// twice over (a server that quotes an escaped key back). A key shorter than eight
// bytes (a test key) is redacted only where it stands alone, not glued to a
// letter or a digit, so that redacting it does not garble every word that
// happens to contain it.
func WithAPIKey(key string) Option {
	return func(c *config) {
		if !c.in("WithAPIKey", scopeClient|scopeCall) {
			return
		}
		if c.scope == scopeCall && (strings.TrimSpace(key) == "" || !validHeaderValue(key)) {
			// The key itself is never quoted: this error may be logged.
			c.fail("WithAPIKey: the key is empty or contains a control character")
			return
		}
		c.apiKey = key
	}
}

// WithMaxRetries sets how many times a failed attempt is retried (default 5;
// 0: the first answer is the last). Which failures are retried is described
// on Client.Do. The default leaves room for refusals of a rate limit shared
// with other processes on the key, which no client can foresee: a call
// refused four times in a row is not rare when many clients share a small
// limit. Applies to NewClient and to a call.
func WithMaxRetries(n int) Option {
	return func(c *config) {
		if !c.in("WithMaxRetries", scopeClient|scopeCall) {
			return
		}
		if n < 0 {
			c.fail("WithMaxRetries: negative count %d", n)
			return
		}
		c.maxRetries, c.retriesSet = n, true
	}
}

// WithMaxRetryWait caps a wait asked by the server through Retry-After
// (default 30s). When the server asks for longer, the call returns the typed
// 429 (or 503) error at once, with Error.RetryAfter set, instead of sleeping.
// The random extra a paced call refused again waits on top of a Retry-After
// stays within it too. Applies to NewClient and to a call.
func WithMaxRetryWait(d time.Duration) Option {
	return func(c *config) {
		if !c.in("WithMaxRetryWait", scopeClient|scopeCall) {
			return
		}
		if d < 0 {
			c.fail("WithMaxRetryWait: negative duration %v", d)
			return
		}
		c.maxRetryWait, c.maxWaitSet = d, true
	}
}

// keyHeaders are the headers that carry the API key: a plain header option
// may not set them, or a stray WithHeader could send another company's key,
// or none, without anyone noticing.
var keyHeaders = []string{"Authorization", "X-Api-Key"}

// WithHeader adds a header to every request of the client (given to
// NewClient) or of one call, after the client's own: a value given here
// replaces the client's (Accept, Content-Type), except User-Agent, where it
// is appended as one more product token so that the header still starts with
// "convo-go/<version>". The headers that carry the API key (Authorization,
// x-api-key) are refused, because the key is changed only on purpose, with
// WithAPIKey. A name or value that cannot travel in HTTP (a line break, a
// control character) is refused too. Applies to NewClient and to a call.
func WithHeader(key, value string) Option {
	return func(c *config) {
		if !c.in("WithHeader", scopeClient|scopeCall) {
			return
		}
		name := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case name == "" || strings.ContainsAny(name, " :\t") || !validHeaderValue(name):
			c.fail("WithHeader: invalid header name %q", key)
			return
		case !validHeaderValue(value):
			c.fail("WithHeader: the value of %s contains a control character", name)
			return
		}
		for _, k := range keyHeaders {
			if name == k {
				c.fail("WithHeader: %s carries the API key and cannot be set by a header option; use WithAPIKey", name)
				return
			}
		}
		if c.header == nil {
			c.header = make(http.Header, 1)
		}
		c.header.Set(name, value)
	}
}

// WithTimeout bounds a whole call — every attempt and every wait between
// them — by d, on top of the context's own deadline: given to NewClient it
// bounds every call, given to a call it replaces the client's bound. With
// Pages and All it bounds each page's fetch (bound the whole listing with the
// context). When it runs out the call fails with a *TransportError for which
// errors.Is(err, context.DeadlineExceeded) holds, or with the last answer's
// typed error if a wait would not end in time. Applies to NewClient and to a
// call.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if !c.in("WithTimeout", scopeClient|scopeCall) {
			return
		}
		if d <= 0 {
			c.fail("WithTimeout: need a positive duration, got %v", d)
			return
		}
		c.timeout = d
	}
}

// MiddlewareNext sends a request on: to the next middleware, or to the
// network.
type MiddlewareNext = func(*http.Request) (*http.Response, error)

// Middleware sees every attempt of a call on its way out and its answer on
// the way back: it may read or add headers, time the attempt, record it, or
// answer without calling next. It must return a response or an error, and
// must not read the response body unless it puts back an equivalent one.
type Middleware func(req *http.Request, next MiddlewareNext) (*http.Response, error)

// WithMiddleware adds middleware around each attempt of every call of the
// client (given to NewClient) or of one call. It runs once per attempt: a
// call retried twice passes through it three times, with the request's
// headers (the key included) already set. Every wait of the client — its
// rate limiter (see WithRateLimiter), a Retry-After, the backoff — is over
// before an attempt enters the middleware, so a limiter of your own here
// sees attempts at the pace they leave; an attempt the client's limiter
// holds back (past the call's deadline) never reaches the middleware. The
// requests of a download to the file host pass through it too, without the
// key (see AttachmentsService.DownloadAttachment). Middleware runs in the order
// given, the client's first, then those of the call's context (see
// ContextWithMiddleware), then the call's own; the first is the outermost.
// Applies to NewClient and to a call.
func WithMiddleware(m ...Middleware) Option {
	return func(c *config) {
		if !c.in("WithMiddleware", scopeClient|scopeCall) {
			return
		}
		for _, mw := range m {
			if mw == nil {
				c.fail("WithMiddleware: nil middleware")
				return
			}
		}
		c.middleware = append(c.middleware, m...)
	}
}

type middlewareKey struct{}

// ContextWithMiddleware returns a context under which every call made with
// it (or with a context derived from it) runs m around each attempt, after
// the client's middleware and before the call's own (see WithMiddleware). It
// is how a tool that does not hold the Client — a tracing wrapper around a
// handler, or Parallel, which paces the calls of a run this way — reaches
// the attempts of the calls made on its behalf.
func ContextWithMiddleware(ctx context.Context, m ...Middleware) context.Context {
	prev, _ := ctx.Value(middlewareKey{}).([]Middleware)
	all := make([]Middleware, 0, len(prev)+len(m))
	all = append(append(all, prev...), m...)
	return context.WithValue(ctx, middlewareKey{}, all)
}

// CaptureResponse fills *r with the metadata of the call's last answer when
// the call returns, whether it succeeded or not: status, headers, attempts,
// total duration and the envelope's timestamp. On a call that got no answer
// (a connection refused, a cancelled context) StatusCode is 0 and Attempts
// says how many tries were made. With Pages and All, *r describes the last
// page fetched. Applies to a call.
func CaptureResponse(r *Response) Option {
	return func(c *config) {
		if c.in("CaptureResponse", scopeCall) {
			c.response = r
		}
	}
}

// WithReadAhead makes Pages and All fetch the next page while the loop body
// works on the current one: at most one page ahead, so memory stays constant,
// and the fetch runs in one goroutine that ends with the loop — breaking out,
// or the context ending, cancels it and waits for it. It is the one exception
// to "iterators start no goroutine", and pays off when the loop body takes
// about as long as a round trip (writing each page to disk or another
// service). A panic in that goroutine (a middleware's, a trace hook's) is
// re-raised in the loop's goroutine as a *PanicError. Applies to a call;
// calls other than Pages and All ignore it.
func WithReadAhead() Option {
	return func(c *config) {
		if c.in("WithReadAhead", scopeCall) {
			c.readAhead = true
		}
	}
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
	// answer, on the service's clock; zero when absent.
	Timestamp time.Time
	// Deprecation is the answer's Deprecation header (RFC 9745: the
	// service announces that this route is deprecated, "@" and a Unix time
	// of when); empty when absent. The client also logs it at Warn, once
	// per route, with its logger.
	Deprecation string
	// Sunset is when the route stops working, from the answer's Sunset
	// header (RFC 8594); zero when absent.
	Sunset time.Time
}
