package convo

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSlowStepGrowth: a slow start's step grows the rate by 30 % per tenth
// of a second it lasted, by time, so a step that one interval at a slow
// rate made longer grows more, up to the growth of a step at the slow
// start's floor of 2 a second (1.3⁵).
func TestSlowStepGrowth(t *testing.T) {
	tests := []struct {
		step   time.Duration
		growth float64
	}{
		{step: 100 * time.Millisecond, growth: 1.3},       // 10 a second and more
		{step: 200 * time.Millisecond, growth: 1.3 * 1.3}, // 5 a second
		{step: 250 * time.Millisecond, growth: 1.9269},    // 4 a second
		{step: 400 * time.Millisecond, growth: 2.8561},    // 2.5 a second
		{step: 500 * time.Millisecond, growth: 3.7129},    // 2 a second, the floor: as fast in seconds
		{step: 600 * time.Millisecond, growth: 3.7129},    // under the floor (a first cut in slow start): no more
		{step: 10 * time.Second, growth: 3.7129},
	}
	for _, tt := range tests {
		t.Run(tt.step.String(), func(t *testing.T) {
			assert.InDelta(t, tt.growth, slowStepGrowth(tt.step), 1e-4)
		})
	}
}

// TestClockSpeed: the curve's clock under a window limit runs at full
// speed for a client last refused at 25 attempts a second or less, or not
// yet refused, slower above, down to about half at 90 a second, and back at
// full speed by 111.
func TestClockSpeed(t *testing.T) {
	tests := []struct {
		wmax, speed float64
	}{
		{wmax: 0, speed: 1},
		{wmax: 10, speed: 1},
		{wmax: 25, speed: 1},
		{wmax: 50, speed: math.Sqrt(0.5)},
		{wmax: 75, speed: math.Sqrt(1.0 / 3)},
		{wmax: 80, speed: math.Sqrt(25.0 / 80)},
		{wmax: 100, speed: math.Pow(100.0/111, 3)},
		{wmax: 111, speed: 1},
		{wmax: 500, speed: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.wmax), func(t *testing.T) {
			assert.InDelta(t, tt.speed, clockSpeed(tt.wmax), 1e-9)
		})
	}
}

// TestAdaptiveWindowSlowsTheCurve: under a window limit, a client last
// refused at 50 a second regrows to its rest in its rest ÷ √½ of busy time,
// so that a neighbour refused at less probes first; under a token bucket,
// or refused at 25 a second or less, in its rest.
func TestAdaptiveWindowSlowsTheCurve(t *testing.T) {
	tests := []struct {
		name     string
		wmax     float64
		windowed bool
		speed    float64
	}{
		{name: "window, refused at 50", wmax: 50, windowed: true, speed: math.Sqrt(0.5)},
		{name: "token bucket, refused at 50", wmax: 50, windowed: false, speed: 1},
		{name: "window, refused at 20", wmax: 20, windowed: true, speed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, cutFrom(tt.wmax), tt.wmax, 0)
			a.windowed = tt.windowed
			a.busyUntil = now.Add(time.Hour) // attempts keep waiting
			level := plateauUnder(tt.wmax) * tt.wmax
			regrown := now.Add(time.Duration(float64(a.rest) / tt.speed))
			a.advance(regrown.Add(-50 * time.Millisecond))
			assert.Less(t, a.pace.rate, level, "regrown before its time")
			a.advance(regrown)
			assert.InDelta(t, level, a.pace.rate, 1e-9, "at the end of the regrowth")
		})
	}
}
