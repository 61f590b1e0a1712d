package otelconvo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	convo "github.com/convoapi/convo-go"
)

// The attributes this package adds to those of the semantic conventions.
const (
	// AttrErrorCode is the service's error code (message.error, e.g.
	// CONVERSATION_NOT_FOUND), on the call span.
	AttrErrorCode = attribute.Key("convo.error.code")
	// AttrErrorID is the id of the service's error, for its support
	// (ERR-XXXXXXXX-XXXX), on the call span.
	AttrErrorID = attribute.Key("convo.error.id")
	// AttrAttempts is the number of requests a call sent, retries included,
	// on the call span.
	AttrAttempts = attribute.Key("convo.attempts")
	// AttrAttempt is the number of an attempt (1 for the first), on the
	// attempt span.
	AttrAttempt = attribute.Key("convo.attempt")
	// AttrDeprecation is the Deprecation header of the call's answer
	// (RFC 9745), on the call span when the service sent one.
	AttrDeprecation = attribute.Key("convo.deprecation")
	// AttrSunset is when the route stops working, from the Sunset header
	// (RFC 8594), in RFC 3339, on the call span when the service sent one.
	AttrSunset = attribute.Key("convo.sunset")
	// AttrWaitReason is why a call waits (retry, rate_limit), on a wait
	// event and on convo.client.rate_limit.hold.
	AttrWaitReason = attribute.Key("convo.wait.reason")
	// AttrWaitDuration is how long a call waits, in seconds, on a wait
	// event.
	AttrWaitDuration = attribute.Key("convo.wait.duration")
)

// ErrorTypeHoldRefused is the error.type of a call whose last attempt was
// not sent: the client's rate limiter would have held it past the call's
// deadline or longest wait, and the call fails with a 429 of its own
// (convo.Error.Held).
const ErrorTypeHoldRefused = "convo.rate_limit_hold_refused"

// EventWait is the name of the event a wait adds to its call's span.
const EventWait = "convo.wait"

// reporter turns a client's calls into spans and metrics.
type reporter struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator
	instruments
}

func newReporter(cfg config) *reporter {
	return &reporter{
		tracer:      cfg.tracerProvider.Tracer(instrumentationName),
		propagator:  cfg.propagator,
		instruments: newInstruments(cfg.meterProvider.Meter(instrumentationName)),
	}
}

type callKey struct{}

// callState is what the reporter keeps of a call, in the call's context.
type callState struct {
	span    trace.Span
	hostSet bool
}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callKey{}).(*callState)
	return st
}

// spanName is the name of a call's spans: the method and the route
// template, which holds no id.
func spanName(call convo.CallInfo) string { return call.Method + " " + call.Route }

func routeAttrs(call convo.CallInfo) []attribute.KeyValue {
	return []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(call.Method), semconv.URLTemplate(call.Route)}
}

// callStart starts the call's span; the call's context carries it, so that
// it is the parent of the attempts' spans.
func (r *reporter) callStart(ctx context.Context, call convo.CallInfo) context.Context {
	ctx, span := r.tracer.Start(ctx, spanName(call), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(routeAttrs(call)...))
	return context.WithValue(ctx, callKey{}, &callState{span: span})
}

// callDone ends the call's span with its last answer and its error.
func (r *reporter) callDone(ctx context.Context, _ convo.CallInfo, resp convo.Response, err error) {
	st := stateOf(ctx)
	if st == nil {
		return
	}
	span := st.span
	if span.IsRecording() {
		span.SetAttributes(AttrAttempts.Int(resp.Attempts))
		if resp.StatusCode != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
		}
		if resp.Deprecation != "" {
			span.SetAttributes(AttrDeprecation.String(resp.Deprecation))
		}
		if !resp.Sunset.IsZero() {
			span.SetAttributes(AttrSunset.String(resp.Sunset.UTC().Format(time.RFC3339)))
		}
		if err != nil {
			span.SetAttributes(errorAttrs(err)...)
			span.SetStatus(codes.Error, errorStatus(err))
		}
	}
	span.End()
}

// errorAttrs describe a call's error: its type, and for an error answer the
// service's code and error id. Never the message, which may quote the
// request.
func errorAttrs(err error) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.ErrorTypeKey.String(errorType(err))}
	var e *convo.Error
	if errors.As(err, &e) {
		if e.Code != "" {
			attrs = append(attrs, AttrErrorCode.String(string(e.Code)))
		}
		if e.ErrorID != "" {
			attrs = append(attrs, AttrErrorID.String(e.ErrorID))
		}
	}
	return attrs
}

// errorStatus is the description of a failed span's status: the service's
// error code, else the error's type.
func errorStatus(err error) string {
	var e *convo.Error
	if errors.As(err, &e) && e.Code != "" {
		return string(e.Code)
	}
	return errorType(err)
}

// errorType is the semantic conventions' error.type of an error: the status
// of an error answer, "timeout", "canceled", or the error's Go type.
func errorType(err error) string {
	var e *convo.Error
	var ne net.Error
	switch {
	case errors.As(err, &e) && e.Held:
		return ErrorTypeHoldRefused
	case errors.As(err, &e) && e.StatusCode != 0:
		return strconv.Itoa(e.StatusCode)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return fmt.Sprintf("%T", err)
}

// wait adds an event to the call's span, counts a retry, and measures a
// wait for the client's rate limiter. d is the time the call actually
// waited.
func (r *reporter) wait(ctx context.Context, call convo.CallInfo, reason convo.WaitReason, d time.Duration) {
	st := stateOf(ctx)
	if st == nil {
		return
	}
	if st.span.IsRecording() {
		st.span.AddEvent(EventWait, trace.WithAttributes(AttrWaitReason.String(string(reason)),
			AttrWaitDuration.Float64(d.Seconds())))
	}
	if reason == convo.WaitRetry {
		if r.retries.Enabled(ctx) {
			r.retries.Add(ctx, 1, metric.WithAttributes(routeAttrs(call)...))
		}
		return
	}
	if r.hold.Enabled(ctx) {
		r.hold.Record(ctx, d.Seconds(), metric.WithAttributes(append(routeAttrs(call), AttrWaitReason.String(string(reason)))...))
	}
}

// attempt is the middleware: a span per attempt, child of the call's, and
// the request's duration and 429s.
func (r *reporter) attempt(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
	ctx := req.Context()
	call, _ := convo.CallFromContext(ctx)
	st := stateOf(ctx)
	server := serverAttrs(req)
	if st != nil && !st.hostSet {
		st.hostSet = true
		st.span.SetAttributes(server...)
	}
	attrs := slices.Concat(routeAttrs(call), server)
	spanAttrs := slices.Concat(attrs, attemptAttrs(call.Attempt))
	ctx, span := r.tracer.Start(ctx, spanName(call), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(spanAttrs...))
	defer span.End()
	r.propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	start := time.Now()
	resp, err := next(req.WithContext(ctx))
	elapsed := time.Since(start) // the SDK's waits all come before the attempt
	outcome := outcomeAttrs(resp, err)
	if len(outcome) > 0 {
		span.SetAttributes(outcome...)
	}
	if err != nil || resp != nil && resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, "")
	}
	r.measure(ctx, resp, elapsed, slices.Concat(attrs, outcome))
	return resp, err
}

// measure records an attempt that was sent: its duration, and a 429.
func (r *reporter) measure(ctx context.Context, resp *http.Response, elapsed time.Duration, attrs []attribute.KeyValue) {
	if r.duration.Enabled(ctx) {
		r.duration.Record(ctx, max(elapsed, 0).Seconds(), metric.WithAttributes(attrs...))
	}
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests && r.rateLimited.Enabled(ctx) {
		r.rateLimited.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
}

// attemptAttrs number an attempt; a resend counts the ones before it.
func attemptAttrs(n int) []attribute.KeyValue {
	if n > 1 {
		return []attribute.KeyValue{AttrAttempt.Int(n), semconv.HTTPRequestResendCount(n - 1)}
	}
	return []attribute.KeyValue{AttrAttempt.Int(n)}
}

// serverAttrs name the server of a request: its host and port, never its
// path or query.
func serverAttrs(req *http.Request) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.ServerAddress(req.URL.Hostname())}
	port, err := strconv.Atoi(req.URL.Port())
	switch {
	case err == nil:
	case req.URL.Scheme == "https":
		port = 443
	case req.URL.Scheme == "http":
		port = 80
	default:
		return attrs
	}
	return append(attrs, semconv.ServerPort(port))
}

// outcomeAttrs describe an attempt's answer or error: its status and, for an
// error, its type.
func outcomeAttrs(resp *http.Response, err error) []attribute.KeyValue {
	switch {
	case err != nil:
		return []attribute.KeyValue{semconv.ErrorTypeKey.String(errorType(err))}
	case resp == nil:
		return nil
	case resp.StatusCode >= 400:
		return []attribute.KeyValue{semconv.HTTPResponseStatusCode(resp.StatusCode),
			semconv.ErrorTypeKey.String(strconv.Itoa(resp.StatusCode))}
	}
	return []attribute.KeyValue{semconv.HTTPResponseStatusCode(resp.StatusCode)}
}
