package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
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

// TestParseFlagsSharing: -shared takes none, memory, redis or a Redis URL,
// for the settings that have a limiter to share; an outage of Redis only
// of the command's own redis-server.
func TestParseFlagsSharing(t *testing.T) {
	f, err := parseFlags(nil)
	require.NoError(t, err)
	assert.Equal(t, bulk.NotShared, f.shared)
	assert.Equal(t, bulk.NoOutage, f.outage)

	tests := []struct {
		args      []string
		shared    bulk.Sharing
		url       string
		own       bool
		outage    bulk.OutageKind
		outageFor time.Duration
	}{
		{[]string{"-shared", "none"}, bulk.NotShared, "", false, bulk.NoOutage, 5 * time.Second},
		{[]string{"-shared", "memory", "-setting", "fixed", "-clients", "8"}, bulk.SharedMemory, "", false, bulk.NoOutage, 5 * time.Second},
		{[]string{"-shared", "redis"}, bulk.SharedRedis, "", true, bulk.NoOutage, 5 * time.Second},
		{[]string{"-shared", "redis://127.0.0.1:6379"}, bulk.SharedRedis, "redis://127.0.0.1:6379", false, bulk.NoOutage, 5 * time.Second},
		{[]string{"-shared", "redis://127.0.0.1:6379/2", "-redis-timeout", "200ms"}, bulk.SharedRedis, "redis://127.0.0.1:6379/2", false, bulk.NoOutage, 5 * time.Second},
		{[]string{"-shared", "redis", "-setting", "fixed", "-redis-outage", "kill"}, bulk.SharedRedis, "", true, bulk.OutageKill, 5 * time.Second},
		{[]string{"-shared", "redis", "-redis-outage", "stop", "-redis-outage-for", "2s"}, bulk.SharedRedis, "", true, bulk.OutageStop, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, err := parseFlags(tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.shared, f.shared)
			assert.Equal(t, tt.url, f.redisURL)
			assert.Equal(t, tt.own, f.ownRedis)
			assert.Equal(t, tt.outage, f.outage)
			assert.Equal(t, tt.outageFor, f.outageFor)
		})
	}

	errs := []struct {
		args []string
		want string
	}{
		{[]string{"-shared", "disk"}, "-shared: want none, memory, redis or redis://host:port"},
		{[]string{"-shared", "redis://127.0.0.1:6379/x"}, "-shared: redis: invalid database number"},
		{[]string{"-shared", "memory", "-setting", "off"}, "-shared memory: -setting off has no limiter to share"},
		{[]string{"-shared", "redis", "-setting", "userlimiter"}, "-shared redis: -setting userlimiter has no limiter to share"},
		{[]string{"-redis-outage", "kill"}, "-redis-outage: only with -shared redis"},
		{[]string{"-shared", "memory", "-redis-outage", "kill"}, "-redis-outage: only with -shared redis"},
		{[]string{"-shared", "redis://127.0.0.1:6379", "-redis-outage", "stop"}, "-redis-outage: only with -shared redis"},
		{[]string{"-shared", "redis", "-redis-outage", "flood"}, `-redis-outage "flood": want kill or stop`},
		{[]string{"-shared", "redis", "-redis-outage", "kill", "-redis-outage-for", "0s"}, "-redis-outage-for 0s"},
		{[]string{"-shared", "memory", "-redis-timeout", "1s"}, "-redis-timeout: only with -shared redis"},
		{[]string{"-shared", "redis", "-redis-timeout", "-1s"}, "-redis-timeout: only with -shared redis or redis://…, and positive"},
	}
	for _, tt := range errs {
		t.Run(tt.want, func(t *testing.T) {
			_, err := parseFlags(tt.args)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// runJSON runs the command with args and -json, and reads its one row.
// The run must have been judged: the command exits 0, or 1 saying that a
// bound was broken.
func runJSON(t *testing.T, args ...string) row {
	t.Helper()
	var out bytes.Buffer
	code, err := run(append(args, "-json"), &out)
	if code != 0 {
		require.ErrorContains(t, err, "broke a bound", "the run was judged")
	}
	var rw row
	require.NoError(t, json.Unmarshal(out.Bytes(), &rw), out.String())
	t.Logf("%+v", rw)
	return rw
}

// smallCell is a small cell with two clients: 40 contacts at 20/s under a
// token bucket, about two seconds of real time.
var smallCell = []string{"-clients", "2", "-kinds", "bucket", "-rates", "20", "-n", "40"}

// TestRunSharedInMemory runs the command on a small cell with two clients
// in its process, sharing one FixedRate, in real time: no call fails, and
// the run is judged by, and holds, the bounds of one FixedRate shared in
// memory (1.1 × N ÷ rate + 1 s, 2 % of N + 2·K 429s, Jain ≥ 0.95).
func TestRunSharedInMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("takes two seconds of real time")
	}
	rw := runJSON(t, append([]string{"-shared", "memory", "-setting", "fixed"}, smallCell...)...)
	assert.Equal(t, "memory", rw.Shared)
	assert.Equal(t, 2, rw.Clients)
	assert.Zero(t, rw.Failed)
	assert.Equal(t, 40, rw.Requests-rw.Refused, "each contact asked for once, but for the 429s")
	assert.InDelta(t, 3.2, rw.Budget, 1e-9, "1.1 × N ÷ rate + 1 s")
	assert.Equal(t, 4, rw.MaxRef, "2 % of N + 2·K")
	assert.Empty(t, rw.Broken)
	require.Len(t, rw.PerClient, 2)
	for i, c := range rw.PerClient {
		assert.Equal(t, 20, c.Calls, "client %d", i)
		assert.Positive(t, c.Requests, "client %d's requests are in the journal", i)
	}
}

// TestRunSharedThroughItsOwnRedis runs the command on a small cell with
// two clients in processes of their own, sharing a limit through the
// redis-server the command starts, in real time: no call fails, and the
// run is judged by, and holds, the bounds of a limit shared through Redis
// (1.15 × N ÷ rate + 1 s, 2 % of N + 2·K 429s). The limiters wait for
// Redis up to a second (-redis-timeout), not the default 50 ms: a test
// that does not test the fallback must not meet it on a loaded machine.
// Without redis-server the test is skipped, unless CI is set: there it
// fails.
func TestRunSharedThroughItsOwnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and a redis-server, and takes two seconds of real time")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed, and CI is set: -shared redis must be tested there (apt-get install -y redis-server)")
		}
		t.Skip("redis-server is not on PATH: skipping -shared redis (install it, e.g. apt-get install -y redis-server; where CI is set, its absence fails this test)")
	}
	rw := runJSON(t, append([]string{"-shared", "redis", "-setting", "fixed", "-redis-timeout", "1s"}, smallCell...)...)
	assert.Equal(t, "redis", rw.Shared)
	assert.Zero(t, rw.Failed)
	assert.Equal(t, 40, rw.Requests-rw.Refused, "each contact asked for once, but for the 429s")
	assert.InDelta(t, 3.3, rw.Budget, 1e-9, "1.15 × N ÷ rate + 1 s")
	assert.Equal(t, 4, rw.MaxRef, "2 % of N + 2·K")
	assert.Empty(t, rw.Broken)
	require.Len(t, rw.PerClient, 2)
	for i, c := range rw.PerClient {
		assert.Equal(t, 20, c.Calls, "client %d", i)
		assert.Zero(t, c.RedisDown, "client %d's limiter found Redis down", i)
	}
}

// TestRunSharedRedisWithoutRedisServer: -shared redis without redis-server
// on PATH fails at once, saying what to do.
func TestRunSharedRedisWithoutRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out bytes.Buffer
	code, err := run([]string{"-shared", "redis", "-rates", "10"}, &out)
	assert.Equal(t, 1, code)
	assert.ErrorContains(t, err, "redis-server is not installed")
	assert.ErrorContains(t, err, "-shared redis://host:port")
	assert.Empty(t, out.String(), "no run")
}

// TestRedisLine tells of a run through Redis: its outage, and each
// client's limiter going to its fallback and back.
func TestRedisLine(t *testing.T) {
	clients := []clientRow{{RedisDown: 1, RedisBack: 1}, {RedisDown: 2, RedisBack: 1}}
	tests := []struct {
		rw   row
		want string
	}{
		{row{PerClient: clients[:1]}, "redis not answering/answering again, per client: 1/1"},
		{row{Outage: "kill 5s", OutageSpan: &outageSpan{Began: 15.001, Ended: 20.104}, PerClient: clients},
			"redis kill from 15.00s to 20.10s; not answering/answering again, per client: 1/1 | 2/1"},
		{row{Outage: "stop 5s", PerClient: clients},
			"redis outage not done (the run ended before its middle); not answering/answering again, per client: 1/1 | 2/1"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, redisLine(tt.rw))
	}
}
