package redislimit_test

// The tests against a real redis-server, which each test starts on a free
// loopback port and stops at its end. Where CI is set, a missing
// redis-server fails them; elsewhere they are skipped, saying why, so that
// `go test ./...` passes on a machine without Redis.

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/redislimit"
)

// redisServer is a redis-server of the test's own.
type redisServer struct {
	t    *testing.T
	bin  string
	addr string
	out  syncBuffer // what it printed, shown when a test fails

	mu  sync.Mutex
	cmd *exec.Cmd
}

// startRedis starts a redis-server on a free loopback port, without
// persistence, and waits until it answers PING.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed, and CI is set: the tests against a real Redis must run there (apt-get install -y redis-server)")
		}
		t.Skip("redis-server is not on PATH: skipping the tests against a real Redis (install it, e.g. apt-get install -y redis-server; where CI is set, its absence fails them)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	s := &redisServer{t: t, bin: bin, addr: addr}
	s.start()
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("redis-server's output:\n%s", s.out.String())
		}
	})
	return s
}

func (s *redisServer) start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.addr)
	cmd := exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	cmd.Stdout, cmd.Stderr = &s.out, &s.out
	require.NoError(s.t, cmd.Start())
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer func() { _ = rdb.Close() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s does not answer PING after 10 s: %v\n%s", s.addr, err, s.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the server at once (SIGKILL), as a crash or an OOM kill would.
func (s *redisServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// pause stops (SIGSTOP) or resumes (SIGCONT) the server: stopped, it
// accepts connections and answers nothing.
func (s *redisServer) pause(stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	require.NoError(s.t, s.cmd.Process.Signal(sig))
}

func (s *redisServer) client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr})
	s.t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is one of several processes that share a key: its own Redis
// client, its own Limiter, its own convo client.
type process struct {
	lim    *redislimit.Limiter
	client *convo.Client
	log    *syncBuffer
}

// processes are k processes on the key of s. Their timeout is a second
// unless opts say otherwise: a test that does not test the fallback must
// not meet it on a loaded machine.
func processes(t *testing.T, r *redisServer, s *fake.Server, k int, opts ...redislimit.Option) []*process {
	t.Helper()
	ps := make([]*process, k)
	for i := range ps {
		log := &syncBuffer{}
		lim, err := redislimit.New(r.client(), s.APIKey(), append([]redislimit.Option{
			redislimit.WithLogger(slog.New(slog.NewTextHandler(log, nil))), redislimit.WithTimeout(time.Second)}, opts...)...)
		require.NoError(t, err)
		ps[i] = &process{lim: lim, client: s.Client(convo.WithRateLimiter(lim)), log: log}
	}
	return ps
}

// result is what a run did, from the callers' side and the fake's.
type result struct {
	took             time.Duration
	calls, failed    int
	requests, denied int // the fake's journal: requests, and 429s among them
	errs             []error
}

// run makes perProcess calls from each process, conc at a time, while
// during (if any) does its mischief, and judges the run from the fake's
// journal.
func run(t *testing.T, s *fake.Server, ps []*process, perProcess, conc int, during func()) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		wg     sync.WaitGroup
		failed atomic.Int64
		mu     sync.Mutex
		errs   []error
	)
	start := time.Now()
	for _, p := range ps {
		var next atomic.Int64
		for range conc {
			wg.Go(func() {
				for next.Add(1) <= int64(perProcess) {
					if _, err := p.client.Channels.List(ctx); err != nil {
						failed.Add(1)
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			})
		}
	}
	if during != nil {
		during()
	}
	wg.Wait()
	r := result{took: time.Since(start), calls: perProcess * len(ps), failed: int(failed.Load()), errs: errs}
	for _, req := range s.RequestsMatching("GET", "/channels") {
		r.requests++
		if req.Status == 429 {
			r.denied++
		}
	}
	t.Logf("%d processes, %d calls in %v: %d requests, %d refused (429), %d failed",
		len(ps), r.calls, r.took.Round(time.Millisecond), r.requests, r.denied, r.failed)
	return r
}

// TestRealRedisKeys: on a real Redis too, no key or value holds the API
// key, and every key expires.
func TestRealRedisKeys(t *testing.T) {
	r := startRedis(t)
	s := fake.New(t)
	ctx := context.Background()
	for _, opts := range [][]redislimit.Option{{redislimit.WithRate(50)}, nil} {
		lim, err := redislimit.New(r.client(), s.APIKey(), append(opts, redislimit.WithTimeout(time.Second))...)
		require.NoError(t, err)
		for range 5 {
			_, err := lim.Take(ctx, convo.Turn{})
			require.NoError(t, err)
			lim.Observe(convo.Turn{}, convo.Outcome{Kind: convo.OutcomeAccepted, Sent: time.Now(), Received: time.Now()})
		}
		lim.Observe(convo.Turn{}, convo.Outcome{Kind: convo.OutcomeRefused, RetryAfter: 2 * time.Second, Sent: time.Now(), Received: time.Now()})
		d, err := lim.Take(ctx, convo.Turn{})
		require.NoError(t, err)
		assert.InDelta(t, 2*time.Second, d, float64(100*time.Millisecond), "held")
	}
	rdb := r.client()
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, 3, "%q", keys)
	for _, k := range keys {
		assert.NotContains(t, k, s.APIKey())
		assert.True(t, strings.HasPrefix(k, redislimit.DefaultPrefix+"{"), k)
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		assert.Positive(t, ttl, "%s has no TTL", k)
		typ, err := rdb.Type(ctx, k).Result()
		require.NoError(t, err)
		var values []string
		switch typ {
		case "string":
			v, err := rdb.Get(ctx, k).Result()
			require.NoError(t, err)
			values = append(values, v)
		case "hash":
			m, err := rdb.HGetAll(ctx, k).Result()
			require.NoError(t, err)
			for f, v := range m {
				values = append(values, f, v)
				_, err := strconv.ParseFloat(v, 64)
				assert.NoError(t, err, "%s: %s=%q", k, f, v)
			}
		default:
			t.Errorf("%s: unexpected type %s", k, typ)
		}
		for _, v := range values {
			assert.NotContains(t, v, s.APIKey())
		}
	}
}

// TestProcessesShareAConfiguredRate: four processes on one key, each with
// its own Limiter at the limit's rate, send as one client at that rate:
// all calls succeed, almost none is refused, and the run takes the time
// the rate allows, not a quarter of it.
func TestProcessesShareAConfiguredRate(t *testing.T) {
	const rate, k, perProcess = 100, 4, 50
	r := startRedis(t)
	s := fake.New(t, fake.WithRateLimit(rate, 5))
	ps := processes(t, r, s, k, redislimit.WithRate(rate))
	res := run(t, s, ps, perProcess, 4, nil)
	assert.Zero(t, res.failed, "%v", res.errs)
	assert.LessOrEqual(t, res.denied, 2, "refused")
	ideal := time.Duration(float64(k*perProcess-3) / rate * float64(time.Second))
	assert.GreaterOrEqual(t, res.took, ideal*9/10, "faster than the rate: not shared")
	assert.Less(t, res.took, ideal*3/2+500*time.Millisecond, "slower than the rate")
	for _, p := range ps {
		assert.Empty(t, p.log.String())
	}
}

// TestProcessesLearnTheRateAsOne: without a configured rate, four
// processes learn one rate in Redis: all calls succeed, refusals stay few,
// and after its start (two holds of the fake's one-second Retry-After: the
// unpaced start's, then the slow start's) the run goes at about the
// limit's rate.
func TestProcessesLearnTheRateAsOne(t *testing.T) {
	const rate, k, perProcess = 100, 4, 50
	r := startRedis(t)
	s := fake.New(t, fake.WithRateLimit(rate, 10))
	ps := processes(t, r, s, k)
	res := run(t, s, ps, perProcess, 4, nil)
	assert.Zero(t, res.failed, "%v", res.errs)
	assert.LessOrEqual(t, res.denied, res.calls/8, "refused")
	ideal := time.Duration(float64(k*perProcess) / rate * float64(time.Second))
	assert.Less(t, res.took, ideal*3/2+3*time.Second, "slower than the limit allows")
	keys, err := r.client().Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	state, err := r.client().Keys(context.Background(), "*}:state").Result()
	require.NoError(t, err)
	assert.Len(t, state, 1, "one learnt rate for all: %q", keys)
	for _, k := range keys { // and one pace (the hold has expired, or not)
		assert.Contains(t, []string{"pace", "hold", "state"}, k[strings.LastIndex(k, ":")+1:])
		assert.Equal(t, k[:strings.Index(k, "}")], state[0][:strings.Index(state[0], "}")])
	}
}

// TestRedisKilledMidRun: Redis is killed (SIGKILL) during a run and
// restarted empty: no call fails; each process falls back to its own
// limiter, says so once, and goes back to Redis once it answers, saying so
// once more.
func TestRedisKilledMidRun(t *testing.T) {
	const rate, k, perProcess = 100, 3, 100
	r := startRedis(t)
	s := fake.New(t, fake.WithRateLimit(rate, 10))
	ps := processes(t, r, s, k, redislimit.WithRate(rate), redislimit.WithTimeout(100*time.Millisecond))
	res := run(t, s, ps, perProcess, 4, func() {
		time.Sleep(700 * time.Millisecond)
		r.kill()
		time.Sleep(700 * time.Millisecond)
		r.start()
	})
	assert.Zero(t, res.failed, "%v", res.errs)
	backToRedis(t, ps)
	for i, p := range ps {
		assert.Equal(t, 1, strings.Count(p.log.String(), "does not answer"), "process %d:\n%s", i, p.log)
		assert.Equal(t, 1, strings.Count(p.log.String(), "answers again"), "process %d:\n%s", i, p.log)
		assert.NotContains(t, p.log.String(), s.APIKey())
	}
	keys, err := r.client().Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	assert.NotEmpty(t, keys, "the processes pace through the new Redis")
}

// TestRedisStoppedMidRun: Redis is stopped (SIGSTOP: it accepts
// connections and answers nothing) for a while during a run, then
// resumed: no call fails, no call waits for Redis more than the timeout,
// and the processes go back to Redis.
func TestRedisStoppedMidRun(t *testing.T) {
	const rate, k, perProcess = 100, 3, 100
	r := startRedis(t)
	s := fake.New(t, fake.WithRateLimit(rate, 10))
	ps := processes(t, r, s, k, redislimit.WithRate(rate), redislimit.WithTimeout(100*time.Millisecond))
	var slowest atomic.Int64
	for _, p := range ps {
		p.client = s.Client(convo.WithRateLimiter(timed{p.lim, &slowest}))
	}
	res := run(t, s, ps, perProcess, 4, func() {
		time.Sleep(600 * time.Millisecond)
		r.pause(true)
		time.Sleep(1200 * time.Millisecond)
		r.pause(false)
	})
	assert.Zero(t, res.failed, "%v", res.errs)
	assert.Less(t, time.Duration(slowest.Load()), 400*time.Millisecond, "a Take waited for Redis")
	backToRedis(t, ps)
	for i, p := range ps {
		assert.Equal(t, 1, strings.Count(p.log.String(), "does not answer"), "process %d:\n%s", i, p.log)
		assert.Equal(t, 1, strings.Count(p.log.String(), "answers again"), "process %d:\n%s", i, p.log)
	}
}

// backToRedis waits until every process has gone back to Redis: one that
// finished its calls during the outage asks it again at its next Take.
func backToRedis(t *testing.T, ps []*process) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range ps {
		for !strings.Contains(p.log.String(), "answers again") && time.Now().Before(deadline) {
			_, err := p.lim.Take(context.Background(), convo.Turn{})
			require.NoError(t, err)
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// timed is a RateLimiter that records the longest Take of the one it
// wraps.
type timed struct {
	*redislimit.Limiter
	slowest *atomic.Int64
}

func (l timed) Take(ctx context.Context, t convo.Turn) (time.Duration, error) {
	start := time.Now()
	d, err := l.Limiter.Take(ctx, t)
	took := int64(time.Since(start))
	for {
		old := l.slowest.Load()
		if took <= old || l.slowest.CompareAndSwap(old, took) {
			break
		}
	}
	if err != nil {
		return d, fmt.Errorf("timed: %w", err)
	}
	return d, nil
}

// TestNoCallFailsWithoutRedis: a Redis that never was (nothing listens)
// fails no call: the fallback paces from the first.
func TestNoCallFailsWithoutRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	s := fake.New(t)
	log := &syncBuffer{}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer func() { _ = rdb.Close() }()
	lim, err := redislimit.New(rdb, s.APIKey(), redislimit.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	require.NoError(t, err)
	c := s.Client(convo.WithRateLimiter(lim))
	for range 10 {
		_, err := c.Channels.List(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, 1, strings.Count(log.String(), "does not answer"), "%s", log)
}
