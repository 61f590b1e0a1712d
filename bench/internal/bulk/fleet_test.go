package bulk_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/bench/internal/bulk"
	"github.com/convoapi/convo-go/redislimit"
)

// TestMain lets this test binary be a client of a run of several: RunFleet
// starts its clients from the running binary, which here is this one.
func TestMain(m *testing.M) {
	if bulk.IsChild() {
		os.Exit(bulk.ChildMain())
	}
	os.Exit(m.Run())
}

// TestRunFleet runs a small cell (100 contacts at 100/s under a token
// bucket) with two clients, each in a process of its own, over loopback
// TCP, in real time. It holds the run to its counts only (no failed call,
// every contact created once, each client's share reported and seen in the
// journal), not to its time: real time on a busy machine is not a test's
// to judge; cmd/bulkload's figures are.
func TestRunFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and takes a second or two of real time")
	}
	bucket, _ := bulk.KindNamed("bucket")
	cfg := bulk.Config{Setting: bulk.Adaptive, Kind: bucket, Rate: 100, N: 100, Clients: 2, Concurrency: 8,
		Latency: 5 * time.Millisecond, Retries: -1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := bulk.Run(ctx, cfg)
	require.NoError(t, err)
	t.Logf("%v (budget %v), %d failed, %d dups, %d early, %d 429s, %d requests, Jain %.2f, clients %+v",
		r.Took, cfg.Budget(), r.Failed, r.Duplicates, r.Early, r.Refused, r.Requests, r.Jain(), r.Clients)

	assert.Zero(t, r.Failed)
	assert.Zero(t, r.Duplicates)
	assert.Zero(t, r.Early)
	assert.Equal(t, cfg.N, r.Requests-r.Refused, "each contact asked for once, but for the 429s")
	require.Len(t, r.Clients, 2)
	requests := 0
	for i, c := range r.Clients {
		assert.Equal(t, 50, c.Calls, "client %d's share", i)
		assert.Positive(t, c.Finish, "client %d", i)
		assert.LessOrEqual(t, c.Finish, r.Took, "client %d", i)
		assert.GreaterOrEqual(t, c.Requests, c.Calls, "client %d's requests are in the journal under its header", i)
		requests += c.Requests
	}
	assert.Equal(t, r.Requests, requests, "every request is some client's")
}

// startRedis starts a redis-server of the test's own, stopped at its end.
// Without redis-server the test is skipped, saying why, unless CI is set:
// there it fails.
func startRedis(t *testing.T) *bulk.RedisServer {
	t.Helper()
	srv, err := bulk.StartRedis()
	if errors.Is(err, bulk.ErrNoRedisServer) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v, and CI is set: the runs through a real Redis must be tested there (apt-get install -y redis-server)", err)
		}
		t.Skipf("%v: skipping the runs through a real Redis (install it, e.g. apt-get install -y redis-server; where CI is set, its absence fails them)", err)
	}
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

// smallCell is a small cell of two clients (40 contacts at 20/s under a
// token bucket), about two seconds of real time.
func smallCell(setting bulk.Setting) bulk.Config {
	bucket, _ := bulk.KindNamed("bucket")
	return bulk.Config{Setting: setting, Kind: bucket, Rate: 20, N: 40, Clients: 2, Concurrency: 8,
		Latency: 5 * time.Millisecond, Retries: -1}
}

// TestRunThroughRedis runs a small cell with two clients in processes of
// their own, sharing a limit through a real Redis given by its URL (a
// database other than 0): with the fixed setting (redislimit.WithRate) the
// run is held to its bounds; with the adaptive one (the rate learnt) to
// its counts. Each run names its limit afresh, in that database: two runs
// left two limits' keys. The limiters wait for Redis up to a second, not
// the default 50 ms: a test that does not test the fallback must not meet
// it on a loaded machine (under -race, with other tests' processes).
func TestRunThroughRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and a redis-server, and takes a few seconds of real time")
	}
	srv := startRedis(t)
	url := srv.URL() + "/1"
	for _, setting := range []bulk.Setting{bulk.Fixed, bulk.Adaptive} {
		t.Run(string(setting), func(t *testing.T) {
			cfg := smallCell(setting)
			cfg.Shared, cfg.RedisURL, cfg.RedisTimeout = bulk.SharedRedis, url, time.Second
			r := runCell(t, cfg)
			for i, c := range r.Clients {
				assert.Zero(t, c.RedisDown, "client %d's limiter found Redis down", i)
			}
			if setting == bulk.Fixed {
				assert.Empty(t, cfg.Broken(r), "within 1.15 × N ÷ rate + 1 s (%v), at most %d 429s", cfg.Budget(), cfg.MaxRefused(r.Took))
			}
		})
	}
	opt, err := redis.ParseURL(url)
	require.NoError(t, err)
	rdb := redis.NewClient(opt)
	defer func() { _ = rdb.Close() }()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, k := range keys {
		assert.True(t, strings.HasPrefix(k, redislimit.DefaultPrefix+"{bulkload-"), k)
		names[k[:strings.Index(k, "}")+1]] = true
	}
	assert.Len(t, names, 2, "one limit per run: %q", keys)
}

// TestRunThroughRedisOutage: the run's own Redis is killed (and started
// again) or stopped (and resumed) for 0.7 s in the middle of a small cell
// with two clients through it: no call fails, each client's limiter falls
// back to its own while Redis is gone (a stopped Redis after 200 ms
// without an answer, the limiters' timeout here), and the run keeps within
// its budget, 1.5 × N ÷ rate + 2 s.
func TestRunThroughRedisOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and a redis-server, and takes a few seconds of real time")
	}
	srv := startRedis(t)
	for _, kind := range []bulk.OutageKind{bulk.OutageKill, bulk.OutageStop} {
		t.Run(string(kind), func(t *testing.T) {
			cfg := smallCell(bulk.Fixed)
			cfg.N = 60 // 3 s: the outage from 1.5 s to 2.2 s
			cfg.Shared, cfg.RedisURL, cfg.RedisTimeout = bulk.SharedRedis, srv.URL(), 200*time.Millisecond
			cfg.Outage = bulk.Outage{Kind: kind, For: 700 * time.Millisecond, Server: srv}
			r := runCell(t, cfg)
			require.NotNil(t, r.Outage, "the outage was done")
			t.Logf("outage from %v to %v", r.Outage.Began, r.Outage.Ended)
			assert.GreaterOrEqual(t, r.Outage.Began, cfg.Ideal()/2, "in the middle of the run")
			assert.GreaterOrEqual(t, r.Outage.Ended-r.Outage.Began, cfg.Outage.For)
			for i, c := range r.Clients {
				assert.Positive(t, c.RedisDown, "client %d's limiter fell back", i)
			}
			assert.Empty(t, cfg.Broken(r), "within 1.5 × N ÷ rate + 2 s (%v)", cfg.Budget())
		})
	}
}

// runCell runs cfg, which must be judged, and holds it to its counts: no
// failed call, every contact created once, each client's share reported.
func runCell(t *testing.T, cfg bulk.Config) bulk.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := bulk.Run(ctx, cfg)
	require.NoError(t, err)
	t.Logf("%v (budget %v), %d failed, %d dups, %d early, %d 429s (at most %d), %d requests, Jain %.2f, clients %+v",
		r.Took, cfg.Budget(), r.Failed, r.Duplicates, r.Early, r.Refused, cfg.MaxRefused(r.Took), r.Requests, r.Jain(), r.Clients)
	assert.Zero(t, r.Failed, "failed calls")
	assert.Zero(t, r.Duplicates)
	assert.Zero(t, r.Early)
	assert.Equal(t, cfg.N, r.Requests-r.Refused, "each contact asked for once, but for the 429s")
	require.Len(t, r.Clients, cfg.Clients)
	for i, c := range r.Clients {
		assert.Equal(t, cfg.N/cfg.Clients, c.Calls, "client %d's share", i)
		assert.Zero(t, c.Failed, "client %d: %q", i, c.Errors)
	}
	return r
}
