package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/bench/internal/bulk"
)

// TestParseFlags: the defaults are the benchmark's nine cells with the
// adaptive limiter; a setting, kind or rate the command does not know is
// refused before anything runs.
func TestParseFlags(t *testing.T) {
	f, err := parseFlags(nil)
	require.NoError(t, err)
	assert.Equal(t, bulk.Adaptive, f.setting)
	assert.Len(t, f.kinds, 3)
	assert.Equal(t, []int{10, 100, 1000}, f.rates)
	assert.Equal(t, 1, f.runs)
	assert.Equal(t, 32, f.concurrency)
	assert.Equal(t, 5*time.Millisecond, f.latency)
	assert.Equal(t, -1, f.retries)

	f, err = parseFlags([]string{"-setting", "userlimiter", "-kinds", "sliding, fixed", "-rates", "100", "-runs", "5", "-json"})
	require.NoError(t, err)
	assert.Equal(t, bulk.UserLimiter, f.setting)
	require.Len(t, f.kinds, 2)
	assert.Equal(t, "sliding", f.kinds[0].Name)
	assert.Equal(t, []int{100}, f.rates)
	assert.Equal(t, 5, f.runs)
	assert.True(t, f.json)

	errs := []struct {
		args []string
		want string
	}{
		{[]string{"-setting", "gentle"}, `-setting "gentle"`},
		{[]string{"-kinds", "leaky"}, `unknown kind "leaky"`},
		{[]string{"-rates", "ten"}, `"ten" is not a positive whole rate`},
		{[]string{"-rates", "50"}, "50/s has no default N"},
		{[]string{"-runs", "0"}, "must be positive"},
	}
	for _, tt := range errs {
		t.Run(tt.want, func(t *testing.T) {
			_, err := parseFlags(tt.args)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err = parseFlags([]string{"-rates", "50", "-n", "100"})
	assert.NoError(t, err, "a rate outside the table with its own N")
}
