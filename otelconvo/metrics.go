package otelconvo

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// Names of the metrics.
const (
	// MetricRequestDuration is the semantic conventions' duration of an
	// HTTP request: one measurement per attempt sent, in seconds, until
	// the answer's headers. The client's waits (its rate limiter, the
	// Retry-After, the backoff) all come before an attempt and are not
	// part of it.
	MetricRequestDuration = "http.client.request.duration"
	// MetricRateLimited counts the answers 429 (Too Many Requests).
	MetricRateLimited = "convo.client.rate_limited"
	// MetricRetries counts the retries: the waits before sending again.
	MetricRetries = "convo.client.retries"
	// MetricRateLimitHold is the time, in seconds, that the client's rate
	// limiter held a call before an attempt, by reason (convo.wait.reason:
	// rate_limit).
	MetricRateLimitHold = "convo.client.rate_limit.hold"
)

// durationBuckets are the bucket boundaries the semantic conventions advise
// for http.client.request.duration.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// instruments are the reporter's metrics.
type instruments struct {
	duration    metric.Float64Histogram
	rateLimited metric.Int64Counter
	retries     metric.Int64Counter
	hold        metric.Float64Histogram
}

func newInstruments(m metric.Meter) instruments {
	var in instruments
	var err error
	if in.duration, err = m.Float64Histogram(MetricRequestDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		otel.Handle(err)
		in.duration = noop.Float64Histogram{}
	}
	if in.rateLimited, err = m.Int64Counter(MetricRateLimited, metric.WithUnit("{response}"),
		metric.WithDescription("Answers 429 Too Many Requests received by the convo client.")); err != nil {
		otel.Handle(err)
		in.rateLimited = noop.Int64Counter{}
	}
	if in.retries, err = m.Int64Counter(MetricRetries, metric.WithUnit("{retry}"),
		metric.WithDescription("Retries of the convo client's calls.")); err != nil {
		otel.Handle(err)
		in.retries = noop.Int64Counter{}
	}
	if in.hold, err = m.Float64Histogram(MetricRateLimitHold, metric.WithUnit("s"),
		metric.WithDescription("Time a call waited for the convo client's rate limiter.")); err != nil {
		otel.Handle(err)
		in.hold = noop.Float64Histogram{}
	}
	return in
}
