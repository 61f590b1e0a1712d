package convo

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"strings"
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
	// Wait is called before the call waits: before a retry (the service's
	// Retry-After or the backoff), for the client's rate-limit gate, or for
	// its turn at the pace of the rate finder.
	Wait func(ctx context.Context, call CallInfo, reason WaitReason, d time.Duration)
}

// WaitReason says why a call waits.
type WaitReason string

// The reasons a call waits.
const (
	WaitRetry WaitReason = "retry"     // before sending again: Retry-After or backoff
	WaitGate  WaitReason = "rate_gate" // the client's rate-limit gate is held (WithRateLimitGate)
	WaitPace  WaitReason = "rate_pace" // the rate finder spaces the client's calls (WithAdaptiveRate)
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
	info := callInfoFrom(ctx)
	if info == nil {
		return CallInfo{}, false
	}
	return info.callInfo(), true
}

func (ci *callInfo) callInfo() CallInfo {
	return CallInfo{Method: ci.method, Route: cmp.Or(ci.route, routeOf(ci.path)), Attempt: ci.attempt}
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

// idRoutes are the routes whose path holds an id, by the path's prefix and
// suffix around it.
var idRoutes = []struct{ prefix, suffix, route string }{
	{"/conversations/", "/messages", "/conversations/{conversation_id}/messages"},
	{"/attachments/", "", "/attachments/{media_id}"},
}

// routeOf is the route of a request path: the path, with the id of the
// routes that hold one replaced by its name.
func routeOf(path string) string {
	for _, r := range idRoutes {
		if rest, ok := strings.CutPrefix(path, r.prefix); ok {
			if id, ok := strings.CutSuffix(rest, r.suffix); ok && id != "" && !strings.Contains(id, "/") {
				return r.route
			}
		}
	}
	return path
}

func (ci *callInfo) traceStart(ctx context.Context) context.Context {
	if ci.trace == nil || ci.trace.CallStart == nil {
		return ctx
	}
	if out := ci.trace.CallStart(ctx, ci.callInfo()); out != nil {
		return out
	}
	return ctx
}

func (ci *callInfo) traceDone(ctx context.Context, err error) {
	if ci.trace != nil && ci.trace.CallDone != nil {
		ci.trace.CallDone(ctx, ci.callInfo(), ci.meta, err)
	}
}

func (ci *callInfo) traceWait(ctx context.Context, reason WaitReason, d time.Duration) {
	if ci.trace != nil && ci.trace.Wait != nil {
		ci.trace.Wait(ctx, ci.callInfo(), reason, d)
	}
}

// noteRetirement records the Deprecation and Sunset headers of an answer in
// the call's metadata, and logs them at Warn the first time a route
// carries them.
func (c *Client) noteRetirement(info *callInfo, h http.Header) {
	dep, sunset := h.Get("Deprecation"), h.Get("Sunset")
	if dep == "" && sunset == "" {
		return
	}
	info.meta.Deprecation = dep
	if t, err := http.ParseTime(sunset); err == nil {
		info.meta.Sunset = t
	}
	route := info.method + " " + routeOf(info.path)
	if _, seen := c.retiring.LoadOrStore(route, true); seen || c.logger == nil {
		return
	}
	c.logger.LogAttrs(info, slog.LevelWarn, "convo: the service announces the retirement of a route",
		slog.String("route", route), slog.String("deprecation", dep), slog.String("sunset", sunset))
}
