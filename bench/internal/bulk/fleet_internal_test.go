package bulk

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShares splits the contacts into consecutive ranges, as even as can
// be, that together cover them once.
func TestShares(t *testing.T) {
	tests := []struct {
		n, k int
		want [][2]int
	}{
		{200, 1, [][2]int{{0, 200}}},
		{1000, 2, [][2]int{{0, 500}, {500, 1000}}},
		{1000, 3, [][2]int{{0, 334}, {334, 667}, {667, 1000}}},
		{5, 4, [][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 5}}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, shares(tt.n, tt.k), "%d between %d", tt.n, tt.k)
	}
}

// TestChildSpecs: each client gets its index, its share, the run's setting
// and the resolved retry budget.
func TestChildSpecs(t *testing.T) {
	cfg := Config{Setting: Off, Rate: 100, N: 5, Clients: 2, Concurrency: 8, Retries: -1}
	deadline := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	specs := cfg.childSpecs("http://127.0.0.1:1/v1", deadline, "")
	require.Len(t, specs, 2)
	assert.Equal(t, childSpec{Client: 1, BaseURL: "http://127.0.0.1:1/v1", Setting: Off, Rate: 100, Retries: offRetries,
		From: 3, To: 5, Concurrency: 8, Deadline: deadline}, specs[1])
	assert.Equal(t, [2]int{0, 3}, [2]int{specs[0].From, specs[0].To})

	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	assert.Equal(t, deadline.Add(-childGrace), childDeadline(ctx))
	assert.True(t, childDeadline(context.Background()).IsZero())
}

// TestResultOf: the run takes as long as its last client; its failures
// are every client's.
func TestResultOf(t *testing.T) {
	r := resultOf([]childReport{{Client: 0, Calls: 3, Failed: 1, Errors: []string{"boom"}, Seconds: 1.5}, {Client: 1, Calls: 2, Seconds: 2.25}})
	assert.Equal(t, Result{Took: 2250 * time.Millisecond, Failed: 1, Clients: []ClientResult{
		{Calls: 3, Failed: 1, Errors: []string{"boom"}, Finish: 1500 * time.Millisecond}, {Calls: 2, Finish: 2250 * time.Millisecond}}}, r)
}

// TestAwaitStart reads the common start from the parent's line, and fails
// when the parent is gone or says something else.
func TestAwaitStart(t *testing.T) {
	got, err := awaitStart(strings.NewReader("start 1795000000123456789\n"))
	require.NoError(t, err)
	assert.Equal(t, time.Unix(0, 1795000000123456789), got)

	_, err = awaitStart(strings.NewReader(""))
	assert.ErrorContains(t, err, "the parent is gone")
	_, err = awaitStart(strings.NewReader("begin 12\n"))
	assert.ErrorContains(t, err, `got "begin 12"`)
	_, err = awaitStart(strings.NewReader("start soon\n"))
	assert.ErrorContains(t, err, `got "start soon"`)
}

// TestRunChildWithoutAParent: a child whose parent is gone before the
// start exits with an error, having made no call; a spec it cannot read
// fails it before it says it is ready.
func TestRunChildWithoutAParent(t *testing.T) {
	var out strings.Builder
	spec := `{"client":0,"base_url":"http://127.0.0.1:1/v1","setting":"adaptive","rate":10,"retries":-1,"from":0,"to":2,"concurrency":1}`
	err := runChild(spec, "key-of-the-test", strings.NewReader(""), &out, io.Discard)
	assert.ErrorContains(t, err, "the parent is gone")
	assert.Equal(t, readyLine+"\n", out.String())

	err = runChild(`{"setting":"gentle"}`, "key-of-the-test", strings.NewReader(""), io.Discard, io.Discard)
	assert.ErrorContains(t, err, `unknown setting "gentle"`)
	err = runChild(`not json`, "key-of-the-test", strings.NewReader(""), io.Discard, io.Discard)
	assert.ErrorContains(t, err, ChildEnv)
}

// TestRunFleetRefusesWhatItCannotRun, before starting any process.
func TestRunFleetRefusesWhatItCannotRun(t *testing.T) {
	bucket, _ := KindNamed("bucket")
	cfg := Config{Setting: Adaptive, Kind: bucket, Rate: 10, N: 20, Clients: 2, Concurrency: 8, Retries: -1}
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"in memory", func(c *Config) { c.InMemory = true }, "served in memory"},
		{"fewer contacts than clients", func(c *Config) { c.N = 1 }, "1 contacts cannot be shared between 2 clients"},
		{"unknown setting", func(c *Config) { c.Setting = "gentle" }, `unknown setting "gentle"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			tt.change(&c)
			_, err := RunFleet(context.Background(), c)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestRunOfOneClientStaysInProcess: Clients 1 is the run the benchmark has
// always made, in this process (which a fake served in memory, in virtual
// time, shows: no other process could reach it).
func TestRunOfOneClientStaysInProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bucket, _ := KindNamed("bucket")
		cfg := Config{Setting: Adaptive, Kind: bucket, Rate: 10, N: 20, Clients: 1, Concurrency: 32,
			Latency: 5 * time.Millisecond, Retries: -1, InMemory: true}
		r, err := Run(context.Background(), cfg)
		require.NoError(t, err)
		assert.Zero(t, r.Failed)
		assert.Equal(t, []ClientResult{{Calls: 20, Finish: r.Took, Requests: r.Requests, Refused: r.Refused}}, r.Clients)
		assert.Equal(t, 1.0, r.Jain())
	})
}

// TestFailuresKeepAFewDifferentErrors: every failed call counts; only the
// first maxErrors different errors are kept.
func TestFailuresKeepAFewDifferentErrors(t *testing.T) {
	var f failures
	for _, msg := range []string{"a", "a", "b", "c", "d", "b"} {
		f.add(errors.New(msg))
	}
	assert.Equal(t, failures{count: 6, errors: []string{"a", "b", "c"}}, f)
}
