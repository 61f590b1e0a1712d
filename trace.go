package convo

import (
	"context"
	"time"
)

// Trace receives the events of a call, for tracing and metrics: where it
// starts and ends and each wait on the way. Each attempt is seen by
// middleware (WithMiddleware), which finds the call with CallFromContext.
// Any field may be nil. The functions are called on the call's goroutine,
// must not block, and must be safe for concurrent use when the Trace serves
// several calls at once. Package otelconvo builds OpenTelemetry spans and
// metrics on it.
type Trace struct {
	// CallStart is called before a call's first attempt. The context it
	// returns (nil: ctx) is the call's from then on — every attempt's
	// request carries it — so a span started here is the parent of the
	// attempts'.
	CallStart func(ctx context.Context, call CallInfo) context.Context
	// CallDone is called once when the call returns, with the metadata of
	// its last answer (StatusCode 0: none) and its error.
	CallDone func(ctx context.Context, call CallInfo, resp Response, err error)
	// Wait is called once for each wait of the call, when the wait is
	// over, with why it waited and how long it actually did: before a
	// retry (the service's Retry-After or the backoff), or for its turn at
	// the client's rate limiter. A wait cut short by the context is
	// reported with the time it lasted.
	Wait func(ctx context.Context, call CallInfo, reason WaitReason, d time.Duration)
}

// WaitReason says why a call waits.
type WaitReason string

// The reasons a call waits.
const (
	// WaitRetry is the wait before an attempt is sent again: the answer's
	// Retry-After, or the backoff.
	WaitRetry WaitReason = "retry"
	// WaitRateLimit is the wait for the client's rate limiter (see
	// WithRateLimiter), or for the anomaly report's own limit.
	WaitRateLimit WaitReason = "rate_limit"
)

// CallInfo describes a call without any value of it: no id, no query, no
// body, so that it may name spans and metrics.
type CallInfo struct {
	// Method is the HTTP method.
	Method string
	// Route is the path template relative to the base URL, as the API
	// names it: "/conversations/{conversation_id}/messages". For Client.Do
	// it is the template given with WithRoute, else the path as given.
	Route string
	// Attempt is the number of the attempt under way (1 for the first);
	// 0 before the first and in CallStart.
	Attempt int
}

// AttachmentFileRoute is the Route of a download's requests to the
// temporary address of a file (see Attachments.Download): the address
// itself is a bearer secret and never names a span or a metric.
const AttachmentFileRoute = "{attachment_url}"

// WithTrace sets the Trace of the client's calls (given to NewClient) or of
// one call (replacing the client's). Applies to NewClient and to a call.
func WithTrace(t *Trace) Option {
	return func(c *config) {
		if c.in("WithTrace", scopeClient|scopeCall) {
			c.trace = t
		}
	}
}

// CallFromContext returns the call that a request's context belongs to: in
// middleware, CallFromContext(req.Context()) names the call and the attempt.
func CallFromContext(ctx context.Context) (CallInfo, bool) {
	c := callFrom(ctx)
	if c == nil {
		return CallInfo{}, false
	}
	return c.info(), true
}

// WithRoute names the route of one call of Client.Do, for tracing and
// metrics (see CallInfo): "/chatapp/templates/{template_id}" rather than the
// path with its id, which would make a span name or a metric label per id.
// The typed methods know their routes. Applies to a call.
func WithRoute(template string) Option {
	return func(c *config) {
		if c.in("WithRoute", scopeCall) {
			c.route = template
		}
	}
}
