package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/bench/internal/bulk"
)

// TestMain lets this test binary be a client of a run of several, as the
// command's main does: the run starts its clients from the running binary.
func TestMain(m *testing.M) {
	if bulk.IsChild() {
		os.Exit(bulk.ChildMain())
	}
	os.Exit(m.Run())
}

// TestParseFlags: the defaults are the benchmark's nine cells with the
// adaptive limiter and one client; a setting, kind or rate the command does
// not know is refused before anything runs.
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
	assert.Equal(t, 1, f.clients)

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
		{[]string{"-clients", "0"}, "must be positive"},
		{[]string{"-concurrency", "-1"}, "must be positive"},
		{[]string{"-clients", "201"}, "-clients 201: 200 contacts at 10/s cannot be shared"},
		{[]string{"-clients", "4", "-rates", "100", "-n", "3"}, "-clients 4: 3 contacts at 100/s cannot be shared"},
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

// TestParseFlagsConcurrency: Parallel's limit is per client, 32 for one
// client (as the benchmark has always run) and 8 each for several, unless
// given.
func TestParseFlagsConcurrency(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{nil, 32},
		{[]string{"-clients", "1"}, 32},
		{[]string{"-clients", "4"}, 8},
		{[]string{"-clients", "4", "-concurrency", "16"}, 16},
		{[]string{"-concurrency", "4"}, 4},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, err := parseFlags(tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.want, f.concurrency)
		})
	}
}

// TestRunSeveralClients runs the command on a small cell (150 contacts at
// 100/s under a sliding window) with two clients in processes of their own,
// in real time, and reads its JSON: the run's counts and each client's
// figures. Its time, 429s and fairness are the figures', not this test's:
// the command may report a broken bound of those on a busy machine.
func TestRunSeveralClients(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and takes a second or two of real time")
	}
	var out bytes.Buffer
	code, err := run([]string{"-clients", "2", "-kinds", "sliding", "-rates", "100", "-n", "150", "-json"}, &out)
	if code != 0 {
		assert.ErrorContains(t, err, "broke a bound", "the run was judged")
	}
	var rw row
	require.NoError(t, json.Unmarshal(out.Bytes(), &rw), out.String())
	t.Logf("%+v", rw)
	assert.Equal(t, 2, rw.Clients)
	assert.Equal(t, 150, rw.N)
	assert.Zero(t, rw.Failed)
	assert.Zero(t, rw.Dups)
	assert.Zero(t, rw.Early)
	assert.Equal(t, 150, rw.Requests-rw.Refused, "each contact asked for once, but for the 429s")
	require.Len(t, rw.PerClient, 2)
	for i, c := range rw.PerClient {
		assert.Equal(t, 75, c.Calls, "client %d", i)
		assert.InDelta(t, float64(c.Calls)/c.Seconds, c.Throughput, 1e-9, "client %d", i)
	}
	assert.InDelta(t, 0.5, rw.Jain, 0.5, "Jain's index is within [1/K, 1]")
}

// TestPerClient writes each client's figures on one line.
func TestPerClient(t *testing.T) {
	got := perClient([]clientRow{{Calls: 500, Seconds: 10.5, Throughput: 47.619, Refused: 12}, {Calls: 500, Failed: 1, Seconds: 9, Throughput: 55.56, Refused: 3}})
	assert.Equal(t, "500/0 10.50s 47.6/s 12 | 500/1 9.00s 55.6/s 3", got)
}
