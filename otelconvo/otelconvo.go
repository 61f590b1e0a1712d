// Package otelconvo reports the calls of a convo client to OpenTelemetry.
//
// Each call becomes a client span named by its method and route template
// ("GET /conversations/{conversation_id}/messages", never an id), with a
// child span per attempt and an event per wait, with the time actually
// waited: before a retry, or for its turn at the client's rate limiter.
// The attributes follow the OpenTelemetry semantic conventions for HTTP
// clients (http.request.method, url.template, http.response.status_code,
// server.address, error.type), plus the service's error code and error id
// and the number of attempts. No API key, query value or body is ever
// recorded.
//
// The metrics are http.client.request.duration (one measurement per
// attempt), convo.client.rate_limited (answers 429), convo.client.retries and
// convo.client.rate_limit.hold (the seconds a call waited for the client's
// rate limiter). Each wait is one event on the call's span (convo.wait)
// with the time actually waited.
//
// Give the options to convo.NewClient once:
//
//	client, err := convo.NewClient(append(otelconvo.Options(), convo.WithAPIKey(key))...)
//
// The core module has no OpenTelemetry dependency; this module adds it
// through the client's extension points, convo.WithTrace and
// convo.WithMiddleware.
package otelconvo

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	convo "github.com/convoapi/convo-go"
)

// instrumentationName names the tracer and the meter.
const instrumentationName = "github.com/convoapi/convo-go/otelconvo"

// Option configures Options.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
}

// WithTracerProvider sets the provider of the tracer that records the spans;
// nil, or without this option: the global provider (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tracerProvider = tp
		}
	}
}

// WithMeterProvider sets the provider of the meter that records the
// metrics; nil, or without this option: the global provider
// (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.meterProvider = mp
		}
	}
}

// WithPropagator sets the propagator that writes the attempt span's context
// into each request's headers (e.g. traceparent); nil, or without this
// option: the global propagator (otel.GetTextMapPropagator), which writes
// nothing unless the program set one.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.propagator = p
		}
	}
}

// Options returns the client options that report every call of the client
// to OpenTelemetry: a convo.WithTrace and a convo.WithMiddleware. Give them
// to convo.NewClient, once; given to a single call as well, the call's
// attempts would be recorded twice. An instrument the meter refuses is
// reported to otel.Handle and left out.
func Options(opts ...Option) []convo.Option {
	cfg := config{
		tracerProvider: otel.GetTracerProvider(),
		meterProvider:  otel.GetMeterProvider(),
		propagator:     otel.GetTextMapPropagator(),
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	r := newReporter(cfg)
	return []convo.Option{
		convo.WithTrace(&convo.Trace{CallStart: r.callStart, CallDone: r.callDone, Wait: r.wait}),
		convo.WithMiddleware(r.attempt),
	}
}
