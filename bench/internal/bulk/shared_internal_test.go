package bulk

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckSharing refuses, before anything starts, a sharing that cannot
// be run.
func TestCheckSharing(t *testing.T) {
	srv := &RedisServer{addr: "127.0.0.1:6390"} // not started: only its URL counts here
	ok := Config{Setting: Fixed, Rate: 100, N: 100, Clients: 2, Shared: SharedRedis, RedisURL: srv.URL(),
		Outage: Outage{Kind: OutageKill, For: time.Second, Server: srv}}
	tests := []struct {
		name   string
		change func(*Config)
		want   string // "": no error
	}{
		{"redis with an outage", func(*Config) {}, ""},
		{"redis, adaptive, no outage", func(c *Config) { c.Setting, c.Outage = Adaptive, Outage{} }, ""},
		{"redis with a database", func(c *Config) { c.RedisURL, c.Outage = "redis://127.0.0.1:6390/3", Outage{} }, ""},
		{"memory", func(c *Config) { c.Shared, c.Outage = SharedMemory, Outage{} }, ""},
		{"not shared", func(c *Config) { c.Shared, c.Setting, c.Outage = NotShared, Off, Outage{} }, ""},
		{"unknown sharing", func(c *Config) { c.Shared = "disk" }, `unknown sharing "disk"`},
		{"off has no limiter", func(c *Config) { c.Setting = Off }, `the setting "off" has no limiter to share`},
		{"userlimiter has none", func(c *Config) { c.Shared, c.Setting = SharedMemory, UserLimiter }, `the setting "userlimiter" has no limiter to share`},
		{"a bad URL", func(c *Config) { c.RedisURL = "http://127.0.0.1:6390" }, "the Redis URL"},
		{"no URL", func(c *Config) { c.RedisURL = "" }, "the Redis URL"},
		{"an outage in memory", func(c *Config) { c.Shared = SharedMemory }, "not in memory"},
		{"an outage, not shared", func(c *Config) { c.Shared = NotShared }, "needs clients that share a limit through Redis"},
		{"an unknown outage", func(c *Config) { c.Outage.Kind = "flood" }, `unknown outage "flood"`},
		{"an outage of no time", func(c *Config) { c.Outage.For = 0 }, "it must last"},
		{"an outage of no server", func(c *Config) { c.Outage.Server = nil }, "the run's own redis-server"},
		{"an outage of another server", func(c *Config) { c.RedisURL = "redis://127.0.0.1:6391" }, "the run's own redis-server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.change(&c)
			err := c.checkSharing()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestChildSpecsThroughRedis: each client of a run through Redis is told
// the Redis, the run's name of the limit and the timeout; a run that does
// not share tells none of them.
func TestChildSpecsThroughRedis(t *testing.T) {
	cfg := Config{Setting: Adaptive, Rate: 100, N: 4, Clients: 2, Concurrency: 8, Retries: -1, Shared: SharedRedis,
		RedisURL: "redis://127.0.0.1:6390/2", RedisTimeout: 200 * time.Millisecond}
	specs := cfg.childSpecs("http://127.0.0.1:1/v1", time.Time{}, "bulkload-test")
	require.Len(t, specs, 2)
	for i, s := range specs {
		assert.Equal(t, childSpec{Client: i, BaseURL: "http://127.0.0.1:1/v1", Setting: Adaptive, Rate: 100, Retries: -1,
			Shared: SharedRedis, RedisURL: "redis://127.0.0.1:6390/2", RedisName: "bulkload-test", RedisTimeout: 200 * time.Millisecond,
			From: 2 * i, To: 2*i + 2, Concurrency: 8}, s)
	}
	cfg.Shared = NotShared
	for _, s := range cfg.childSpecs("http://127.0.0.1:1/v1", time.Time{}, "bulkload-test") {
		assert.Empty(t, s.Shared)
		assert.Empty(t, s.RedisURL)
		assert.Empty(t, s.RedisName)
	}
}

// TestRunNameIsFresh: each run names its limit afresh, with a name
// redislimit.WithName takes.
func TestRunNameIsFresh(t *testing.T) {
	a, b := runName(), runName()
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^bulkload-[a-z2-7]{26}$`, a)
}

// TestRunChildThroughABadRedis: a child told a Redis URL it cannot read
// fails before it says it is ready; one told a sharing it cannot do, too.
func TestRunChildThroughABadRedis(t *testing.T) {
	var out strings.Builder
	spec := `{"client":0,"base_url":"http://127.0.0.1:1/v1","setting":"fixed","rate":10,"retries":-1,"from":0,"to":2,"concurrency":1,` +
		`"shared":"redis","redis_url":"http://127.0.0.1:1","redis_name":"bulkload-test"}`
	err := runChild(spec, "key-of-the-test", strings.NewReader(""), &out, io.Discard)
	assert.ErrorContains(t, err, "the Redis URL")
	assert.Empty(t, out.String())

	spec = `{"client":0,"base_url":"http://127.0.0.1:1/v1","setting":"fixed","rate":10,"retries":-1,"from":0,"to":2,"concurrency":1,"shared":"memory"}`
	err = runChild(spec, "key-of-the-test", strings.NewReader(""), &out, io.Discard)
	assert.ErrorContains(t, err, `cannot share a limiter by "memory"`)
}

// TestRunChildThroughRedisWithoutAParent: a child through Redis builds its
// limiter (which sends nothing to Redis until its first turn) and says it
// is ready; its parent gone, it exits having made no call.
func TestRunChildThroughRedisWithoutAParent(t *testing.T) {
	var out strings.Builder
	spec := `{"client":0,"base_url":"http://127.0.0.1:1/v1","setting":"adaptive","rate":10,"retries":-1,"from":0,"to":2,"concurrency":1,` +
		`"shared":"redis","redis_url":"redis://127.0.0.1:1","redis_name":"bulkload-test","redis_timeout":100000000}`
	err := runChild(spec, "key-of-the-test", strings.NewReader(""), &out, io.Discard)
	assert.ErrorContains(t, err, "the parent is gone")
	assert.Equal(t, readyLine+"\n", out.String())
}

// TestEventHandler counts what a redislimit.Limiter says of Redis, and
// passes every record on.
func TestEventHandler(t *testing.T) {
	var events redisEvents
	var logged strings.Builder
	log := slog.New(eventHandler{&events, slog.NewTextHandler(&logged, nil)}).With("limit", "convo:limit:{x}")
	log.Warn("convo redislimit: Redis does not answer; this process is paced by its fallback limiter until it does")
	log.WithGroup("g").Warn("convo redislimit: Redis answers again; every process is paced through it")
	log.Warn("convo redislimit: the fallback limiter fails; attempts it should pace are not paced")
	log.Debug("convo redislimit: Redis does not answer") // not enabled: neither logged nor counted
	assert.Equal(t, int64(1), events.down.Load())
	assert.Equal(t, int64(1), events.back.Load())
	assert.Equal(t, 3, strings.Count(logged.String(), "\n"), logged.String())
	assert.Contains(t, logged.String(), "limit=convo:limit:{x}")
}

// TestRunFleetRefusesSharingInMemory: clients that share a limiter in
// memory are not run in processes of their own.
func TestRunFleetRefusesSharingInMemory(t *testing.T) {
	bucket, _ := KindNamed("bucket")
	_, err := RunFleet(context.Background(), Config{Setting: Fixed, Kind: bucket, Rate: 10, N: 20, Clients: 2, Concurrency: 8,
		Retries: -1, Shared: SharedMemory})
	assert.ErrorContains(t, err, "run in this process")
}

// TestRunSharedInMemory runs the smallest cell (200 contacts at 10/s) with
// 4 clients sharing one limiter in this process, in virtual time over
// in-memory connections (which no other process could reach), for both
// settings that have a limiter and every kind of limit, and holds each run
// to its shared bounds.
func TestRunSharedInMemory(t *testing.T) {
	for _, setting := range []Setting{Fixed, Adaptive} {
		for _, kind := range Kinds {
			t.Run(string(setting)+"/"+kind.Name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cfg := Config{Setting: setting, Kind: kind, Rate: 10, N: 200, Clients: 4, Concurrency: 8,
						Latency: 5 * time.Millisecond, Retries: -1, Shared: SharedMemory, InMemory: true}
					r, err := Run(context.Background(), cfg)
					require.NoError(t, err)
					t.Logf("%v (budget %v), %d failed, %d 429s (at most %d), %d requests, Jain %.3f",
						r.Took, cfg.Budget(), r.Failed, r.Refused, cfg.MaxRefused(r.Took), r.Requests, r.Jain())
					assert.Empty(t, cfg.Broken(r))
					assert.GreaterOrEqual(t, r.Took, cfg.Ideal()-time.Second, "one limiter for all: the limit's pace, not 4 ×")
					require.Len(t, r.Clients, 4)
					requests := 0
					for i, c := range r.Clients {
						assert.Equal(t, 50, c.Calls, "client %d's share", i)
						assert.GreaterOrEqual(t, c.Requests, c.Calls, "client %d's requests are in the journal under its header", i)
						requests += c.Requests
					}
					assert.Equal(t, r.Requests, requests, "every request is some client's")
				})
			})
		}
	}
}
