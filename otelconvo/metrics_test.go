package otelconvo

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// refusingMeter refuses every instrument.
type refusingMeter struct{ noop.Meter }

var errRefused = errors.New("refused")

func (refusingMeter) Float64Histogram(string, ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return nil, errRefused
}

func (refusingMeter) Int64Counter(string, ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return nil, errRefused
}

// An instrument the meter refuses is reported and replaced by one that
// records nothing.
func TestInstrumentsRefused(t *testing.T) {
	var handled []error
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { handled = append(handled, err) }))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
	in := newInstruments(refusingMeter{})
	assert.Equal(t, []error{errRefused, errRefused, errRefused, errRefused}, handled)
	ctx := context.Background()
	for _, enabled := range []bool{in.duration.Enabled(ctx), in.rateLimited.Enabled(ctx), in.retries.Enabled(ctx), in.hold.Enabled(ctx)} {
		assert.False(t, enabled)
	}
}
