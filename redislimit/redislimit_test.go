package redislimit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{}) // go-redis's own log of the outages the tests cause
	os.Exit(m.Run())
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// testKey is an API key the tests look for wherever the limiter writes.
const testKey = "ck_live_0123456789abcdefSECRET"

// t0 is the Redis server's frozen clock in the unit tests: far from the
// machine's, so that a limiter that mixed the two clocks would show it.
var t0 = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)

// miniRedis starts a miniredis whose clock (TIME) is frozen at t0 until
// the test moves it.
func miniRedis(t *testing.T) *miniredis.Miniredis {
	t.Helper()
	mr := miniredis.NewMiniRedis()
	require.NoError(t, mr.Start())
	t.Cleanup(mr.Close)
	mr.SetTime(t0)
	return mr
}

// client is a process's own Redis client.
func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	// No retries: a Redis that is gone fails a command at once, not after
	// go-redis's own retries (five dials, 100 ms apart, by default).
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// logs records what a limiter logs.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{l}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct{ l *logs }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) count(s string) int { return strings.Count(l.String(), s) }

// clock is a local clock the tests move by hand (the probes' clock).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newLimiter is a limiter for testKey on addr, logging to lg (may be nil).
// Its timeout is long (a second) unless opts say otherwise: a test that
// does not test the fallback must not meet it on a loaded machine.
func newLimiter(t *testing.T, addr string, lg *logs, opts ...Option) *Limiter {
	t.Helper()
	if lg == nil {
		lg = &logs{}
	}
	l, err := New(client(t, addr), testKey, append([]Option{WithLogger(lg.logger()), WithTimeout(time.Second)}, opts...)...)
	require.NoError(t, err)
	return l
}

// take asks for a turn, failing the test on an error.
func take(t *testing.T, l *Limiter) time.Duration {
	t.Helper()
	d, err := l.Take(context.Background(), convo.Turn{Method: "GET", Route: "/channels"})
	require.NoError(t, err)
	return d
}

// drain takes turns until l says to wait.
func drain(t *testing.T, l *Limiter) {
	t.Helper()
	for range 100 {
		if take(t, l) > 0 {
			return
		}
	}
	t.Fatal("100 turns at once")
}

// refuse tells l of a 429 with retryAfter, answered now (local clock), for
// an attempt sent at sent.
func refuse(l *Limiter, retryAfter time.Duration, sent time.Time) {
	now := time.Now()
	l.Observe(convo.Turn{Method: "GET", Route: "/channels"}, convo.Outcome{
		Kind: convo.OutcomeRefused, StatusCode: 429, RetryAfter: retryAfter, Sent: sent, Received: now})
}

func accept(l *Limiter) {
	now := time.Now()
	l.Observe(convo.Turn{Method: "GET", Route: "/channels"}, convo.Outcome{
		Kind: convo.OutcomeAccepted, StatusCode: 200, Sent: now, Received: now})
}

func TestNewRefusesBadInput(t *testing.T) {
	mr := miniRedis(t)
	rdb := client(t, mr.Addr())
	var nilClient *redis.Client
	for _, tc := range []struct {
		name string
		rdb  redis.UniversalClient
		key  string
		opts []Option
		want string
	}{
		{"nil client", nil, testKey, nil, "nil Redis client"},
		{"nil pointer client", nilClient, testKey, nil, "nil Redis client"},
		{"no key", rdb, "", nil, "an API key (or WithName)"},
		{"zero rate", rdb, testKey, []Option{WithRate(0)}, "WithRate"},
		{"negative rate", rdb, testKey, []Option{WithRate(-1)}, "WithRate"},
		{"NaN rate", rdb, testKey, []Option{WithRate(math.NaN())}, "WithRate"},
		{"infinite rate", rdb, testKey, []Option{WithRate(math.Inf(1))}, "WithRate"},
		{"huge rate", rdb, testKey, []Option{WithRate(2e6)}, "WithRate"},
		{"empty name", rdb, testKey, []Option{WithName("")}, "WithName"},
		{"name with a space", rdb, testKey, []Option{WithName("a b")}, "WithName"},
		{"name with braces", rdb, testKey, []Option{WithName("{a}")}, "WithName"},
		{"long name", rdb, testKey, []Option{WithName(strings.Repeat("n", 129))}, "WithName"},
		{"name is the key", rdb, testKey, []Option{WithName(testKey)}, "must not be the API key"},
		{"prefix with a brace", rdb, testKey, []Option{WithPrefix("a{")}, "WithPrefix"},
		{"prefix with a newline", rdb, testKey, []Option{WithPrefix("a\n")}, "WithPrefix"},
		{"short ttl", rdb, testKey, []Option{WithTTL(time.Millisecond)}, "WithTTL"},
		{"zero timeout", rdb, testKey, []Option{WithTimeout(0)}, "WithTimeout"},
		{"long timeout", rdb, testKey, []Option{WithTimeout(time.Hour)}, "WithTimeout"},
		{"nil fallback", rdb, testKey, []Option{WithFallback(nil)}, "WithFallback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := New(tc.rdb, tc.key, tc.opts...)
			require.Error(t, err)
			assert.Nil(t, l)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "redislimit: "), err.Error())
			assert.NotContains(t, err.Error(), testKey)
		})
	}
	t.Run("a name without a key", func(t *testing.T) {
		l, err := New(rdb, "", WithName("acme-prod"), nil)
		require.NoError(t, err)
		assert.Equal(t, "convo:limit:{acme-prod}:pace", l.keys[0])
	})
}

func TestKeysAreNamedByAHashOfTheKey(t *testing.T) {
	mr := miniRedis(t)
	l := newLimiter(t, mr.Addr(), nil)
	id := keyID(testKey)
	assert.Len(t, id, 32)
	assert.Equal(t, []string{"convo:limit:{" + id + "}:pace", "convo:limit:{" + id + "}:hold", "convo:limit:{" + id + "}:state"}, l.keys)
	other := newLimiter(t, mr.Addr(), nil, WithPrefix("acme:"), WithName("prod"))
	assert.Equal(t, "acme:{prod}:hold", other.keys[1])
	assert.NotEqual(t, id, keyID(testKey+"x"))
}

// TestPaceOnTheServersClock checks the GCRA on the Redis server's frozen
// clock: the turns allowed at once (the slack of up to four intervals, at
// most 25 ms), the waits, and exactly one turn per interval as the server's
// clock moves.
func TestPaceOnTheServersClock(t *testing.T) {
	for _, tc := range []struct {
		rate      float64
		atOnce    int           // turns given before the first wait
		firstWait time.Duration // then
	}{
		{rate: 2, atOnce: 1, firstWait: 500*time.Millisecond - 25*time.Millisecond},
		{rate: 10, atOnce: 1, firstWait: 75 * time.Millisecond},
		{rate: 100, atOnce: 3, firstWait: 5 * time.Millisecond},
		{rate: 1000, atOnce: 5, firstWait: time.Millisecond},
	} {
		t.Run(time.Duration(float64(time.Second)/tc.rate).String(), func(t *testing.T) {
			mr := miniRedis(t)
			l := newLimiter(t, mr.Addr(), nil, WithRate(tc.rate))
			for i := range tc.atOnce {
				require.Zero(t, take(t, l), "turn %d", i)
			}
			d := take(t, l)
			assert.Equal(t, tc.firstWait, d)
			assert.Equal(t, d, take(t, l), "a wait takes no turn")

			// The server's clock moves by the wait: one turn, then a whole
			// interval.
			now := t0.Add(d)
			mr.SetTime(now)
			assert.Zero(t, take(t, l))
			interval := time.Duration(float64(time.Second) / tc.rate)
			assert.Equal(t, interval, take(t, l))

			// Up to a second of the server's clock, in steps of an
			// interval: exactly one turn each.
			granted, steps := 0, min(int(tc.rate), 200)
			for range steps {
				now = now.Add(interval)
				mr.SetTime(now)
				for i := 0; take(t, l) == 0; i++ {
					require.Less(t, i, 10)
					granted++
				}
			}
			assert.Equal(t, steps, granted)
		})
	}
}

// TestProcessesShareOnePace: two limiters (two processes) on one key share
// the pace; another key has its own.
func TestProcessesShareOnePace(t *testing.T) {
	mr := miniRedis(t)
	a := newLimiter(t, mr.Addr(), nil, WithRate(10))
	b := newLimiter(t, mr.Addr(), nil, WithRate(10))
	assert.Zero(t, take(t, a))
	assert.Equal(t, 75*time.Millisecond, take(t, b), "b waits for the turn a took")
	other, err := New(client(t, mr.Addr()), "another key", WithRate(10))
	require.NoError(t, err)
	assert.Zero(t, take(t, other))
	mr.SetTime(t0.Add(75 * time.Millisecond))
	assert.Zero(t, take(t, b))
	assert.Equal(t, 100*time.Millisecond, take(t, a))
}

// TestRetryAfterHoldsEveryProcess: a Retry-After observed by one limiter
// holds another on the same Redis until it has passed, whether the rate
// is configured or learnt. A shorter one does not shorten it; a longer one
// lengthens it.
func TestRetryAfterHoldsEveryProcess(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"configured rate", []Option{WithRate(1000)}},
		{"learnt rate", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mr := miniRedis(t)
			a := newLimiter(t, mr.Addr(), nil, tc.opts...)
			b := newLimiter(t, mr.Addr(), nil, tc.opts...)
			assert.Zero(t, take(t, b))
			refuse(a, 2*time.Second, time.Now())
			d := take(t, b)
			assert.InDelta(t, 2*time.Second, d, float64(50*time.Millisecond), "b is held: %v", d)
			ttl := mr.TTL(b.keys[1])
			assert.InDelta(t, 2*time.Second, ttl, float64(50*time.Millisecond), "the hold's key expires with it: %v", ttl)

			refuse(b, time.Second, time.Now()) // shorter: changes nothing
			mr.SetTime(t0.Add(time.Second))
			d = take(t, a)
			assert.InDelta(t, time.Second, d, float64(50*time.Millisecond), "a is held too: %v", d)

			mr.SetTime(t0.Add(2 * time.Second))
			assert.Zero(t, take(t, a), "the hold has passed")
			assert.Less(t, take(t, b), time.Second, "paced, no longer held")

			refuse(b, 3*time.Second, time.Now())
			refuse(a, 5*time.Second, time.Now()) // longer: lengthens it
			d = take(t, b)
			assert.InDelta(t, 5*time.Second, d, float64(50*time.Millisecond), "%v", d)
		})
	}
}

// TestRefusalWithoutRetryAfterSendsNothing: with a configured rate, a 429
// that asks for no wait changes nothing shared, and costs no round trip.
func TestRefusalWithoutRetryAfterSendsNothing(t *testing.T) {
	mr := miniRedis(t)
	l := newLimiter(t, mr.Addr(), nil, WithRate(10))
	before := mr.CommandCount()
	refuse(l, 0, time.Now())
	accept(l)
	assert.Equal(t, before, mr.CommandCount())
	assert.Empty(t, mr.Keys())
}

// TestNoKeyOrValueHoldsTheAPIKey scans every key and value the limiters
// wrote, in both modes, and checks that every key expires.
func TestNoKeyOrValueHoldsTheAPIKey(t *testing.T) {
	mr := miniRedis(t)
	lg := &logs{}
	limiters := []*Limiter{
		newLimiter(t, mr.Addr(), lg, WithRate(50)),
		newLimiter(t, mr.Addr(), lg),
		newLimiter(t, mr.Addr(), lg, WithPrefix("p:")),
	}
	for _, l := range limiters {
		for range 5 {
			take(t, l)
			accept(l)
		}
		refuse(l, time.Second, time.Now())
		take(t, l)
	}
	keys := mr.Keys()
	require.Len(t, keys, 6, "%q", keys) // pace, hold and state of the first two (one key), and of p:
	hash := keyID(testKey)
	for _, k := range keys {
		assert.NotContains(t, k, testKey)
		assert.Contains(t, k, "{"+hash+"}:")
		assert.Positive(t, mr.TTL(k), "%s has no TTL", k)
		var values []string
		switch mr.Type(k) {
		case "string":
			v, err := mr.Get(k)
			require.NoError(t, err)
			values = append(values, v)
		case "hash":
			fields, err := mr.HKeys(k)
			require.NoError(t, err)
			for _, f := range fields {
				values = append(values, f, mr.HGet(k, f))
			}
		default:
			t.Errorf("%s: unexpected type %s", k, mr.Type(k))
		}
		for _, v := range values {
			assert.NotContains(t, v, testKey)
			assert.NotContains(t, v, "SECRET")
		}
	}
	assert.NotContains(t, lg.String(), testKey)
	assert.Equal(t, DefaultTTL, mr.TTL(limiters[1].keys[2]), "the state's TTL")
}

// recorder is a fallback limiter that counts what it is asked and told.
type recorder struct {
	mu             sync.Mutex
	takes, observe int
	wait           time.Duration
	err            error
	changed        chan struct{}
}

func (r *recorder) Take(context.Context, convo.Turn) (time.Duration, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.takes++
	return r.wait, r.err
}

func (r *recorder) Observe(convo.Turn, convo.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.observe++
}

func (r *recorder) Changed() <-chan struct{} { return r.changed }

func (r *recorder) counts() (takes, observes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.takes, r.observe
}

// TestFallbackWhileRedisIsDown: with Redis gone, Take answers from the
// fallback without an error, asks Redis again at most once a second, and
// goes back to it once it answers, logging each change once.
func TestFallbackWhileRedisIsDown(t *testing.T) {
	mr := miniRedis(t)
	lg := &logs{}
	fb := &recorder{}
	l := newLimiter(t, mr.Addr(), lg, WithRate(10), WithFallback(fb), WithTimeout(200*time.Millisecond))
	clk := &clock{now: time.Now()}
	l.now = clk.Now

	assert.Zero(t, take(t, l))
	mr.Close()

	before := time.Now()
	for range 20 {
		assert.Zero(t, take(t, l), "the fallback's answer")
	}
	assert.Less(t, time.Since(before), time.Second, "no wait for a Redis that is gone")
	takes, _ := fb.counts()
	assert.Equal(t, 20, takes)
	assert.Equal(t, 1, lg.count("Redis does not answer"), "%s", lg)
	assert.False(t, l.up())

	// The fallback's turns go back to it.
	for range 20 {
		accept(l)
	}
	_, observes := fb.counts()
	assert.Equal(t, 20, observes)

	// Still gone a second later: one probe fails, silently.
	clk.Add(probeEvery)
	assert.Zero(t, take(t, l))
	assert.Equal(t, 1, lg.count("Redis does not answer"))

	// Back (empty, as a restarted Redis is), but not asked before the
	// next probe.
	require.NoError(t, mr.Restart())
	mr.FlushAll() // a Redis restarted without persistence is empty
	mr.SetTime(t0)
	assert.Zero(t, take(t, l))
	takes, _ = fb.counts()
	assert.Equal(t, 22, takes)

	clk.Add(probeEvery)
	assert.Zero(t, take(t, l), "the probe takes a turn from Redis")
	assert.Equal(t, 75*time.Millisecond, take(t, l), "Redis paces again")
	takes, _ = fb.counts()
	assert.Equal(t, 22, takes)
	assert.True(t, l.up())
	assert.Equal(t, 1, lg.count("Redis answers again"), "%s", lg)
	assert.Equal(t, 1, lg.count("Redis does not answer"))
	assert.Equal(t, 2, strings.Count(lg.String(), "level=WARN"))
	assert.NotContains(t, lg.String(), testKey)

	// An outage later is logged again, once.
	mr.Close()
	for range 5 {
		take(t, l)
		clk.Add(probeEvery)
	}
	assert.Equal(t, 2, lg.count("Redis does not answer"))
}

// TestFallbackWhenRedisAnswersAnError: an error from Redis (here a key of
// another type where the state should be) is a failure like any other.
func TestFallbackWhenRedisAnswersAnError(t *testing.T) {
	mr := miniRedis(t)
	lg := &logs{}
	fb := &recorder{wait: 7 * time.Millisecond}
	l := newLimiter(t, mr.Addr(), lg, WithFallback(fb))
	require.NoError(t, mr.Set(l.keys[2], "not a hash"))
	assert.Equal(t, 7*time.Millisecond, take(t, l))
	assert.Equal(t, 1, lg.count("Redis does not answer"))
	assert.Contains(t, lg.String(), "WRONGTYPE")
}

// hung is a Redis that accepts connections and never answers, as a
// stopped (SIGSTOP) or overloaded server does.
func hung(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

// TestTimeoutBoundsEveryWait: a Redis that does not answer costs a Take
// and an Observe the timeout at most, though the redis client would wait
// its own read timeout (3 s by default), and the call is then paced by the
// fallback.
func TestTimeoutBoundsEveryWait(t *testing.T) {
	addr := hung(t)
	lg := &logs{}
	fb := &recorder{wait: 3 * time.Millisecond}
	l := newLimiter(t, addr, lg, WithFallback(fb), WithTimeout(20*time.Millisecond))

	start := time.Now()
	refuse(l, time.Second, time.Now())
	assert.Less(t, time.Since(start), 500*time.Millisecond, "Observe waited %v", time.Since(start))
	assert.False(t, l.up())

	l.mu.Lock()
	l.down = false // as if it had come back, for Take to time out too
	l.mu.Unlock()
	start = time.Now()
	assert.Equal(t, 3*time.Millisecond, take(t, l))
	assert.Less(t, time.Since(start), 500*time.Millisecond, "Take waited %v", time.Since(start))
	assert.Contains(t, lg.String(), "no answer within 20ms")
}

// TestCancelledCallIsNoOutage: a Take whose call was cancelled returns the
// context's error, and says nothing of Redis.
func TestCancelledCallIsNoOutage(t *testing.T) {
	mr := miniRedis(t)
	lg := &logs{}
	l := newLimiter(t, mr.Addr(), lg, WithRate(10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.Take(ctx, convo.Turn{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, l.up())
	assert.Empty(t, lg.String())
}

// TestFailingFallbackFailsNoCall: a fallback whose Take fails lets the
// attempt go unpaced, and says so once.
func TestFailingFallbackFailsNoCall(t *testing.T) {
	mr := miniRedis(t)
	lg := &logs{}
	l := newLimiter(t, mr.Addr(), lg, WithFallback(&recorder{err: errors.New("broken")}))
	mr.Close()
	for range 3 {
		assert.Zero(t, take(t, l))
	}
	assert.Equal(t, 1, lg.count("the fallback limiter fails"))
}

// TestChangedIsTheFallbacks: the client wakes when the fallback says a
// turn may come sooner; a fallback without Changed gives none.
func TestChangedIsTheFallbacks(t *testing.T) {
	mr := miniRedis(t)
	ch := make(chan struct{})
	l := newLimiter(t, mr.Addr(), nil, WithFallback(&recorder{changed: ch}))
	assert.Equal(t, (<-chan struct{})(ch), l.Changed())
	plain := newLimiter(t, mr.Addr(), nil, WithFallback(convo.FixedRate(1)))
	assert.Nil(t, plain.Changed())
	def := newLimiter(t, mr.Addr(), nil)
	assert.NotNil(t, def.Changed(), "AdaptiveRate has one")
}

// state reads the learnt rate's state.
func state(t *testing.T, mr *miniredis.Miniredis, l *Limiter) map[string]string {
	t.Helper()
	fields, err := mr.HKeys(l.keys[2])
	require.NoError(t, err)
	m := map[string]string{}
	for _, f := range fields {
		m[f] = mr.HGet(l.keys[2], f)
	}
	return m
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return f
}

// rateNow asks for a turn and returns the rate the script paced at.
func rateNow(t *testing.T, l *Limiter) float64 {
	t.Helper()
	r, err := l.run(context.Background(), "take", l.accepted.Swap(0), 0, 0)
	require.NoError(t, err)
	return r.rate
}

// TestLearntRate follows the learnt rate on the server's clock: unpaced
// until a refusal, then from what was accepted; one cut per overshoot
// (echoes and storms cut nothing); regrowth with demand only; and one
// rate for every process.
func TestLearntRate(t *testing.T) {
	mr := miniRedis(t)
	a := newLimiter(t, mr.Addr(), nil)
	b := newLimiter(t, mr.Addr(), nil)

	// Unpaced: 2 s of the server's clock at 100 accepted a second, from
	// two processes.
	now := t0
	for i := range 200 {
		now = now.Add(10 * time.Millisecond)
		mr.SetTime(now)
		l := a
		if i%2 == 1 {
			l = b
		}
		require.Zero(t, take(t, l))
		accept(l)
	}
	take(t, a) // every accepted answer told
	take(t, b)
	assert.Zero(t, rateNow(t, a), "unpaced before the first refusal")

	// The first refusal: from what was accepted over about the last second
	// (a moving average: 100 a second for 2 s reads about 87), cut to 85 %.
	sent := time.Now()
	refuse(a, 0, sent)
	st := state(t, mr, a)
	acc := parse(t, st["acc"])
	assert.InDelta(t, 100*(1-math.Exp(-2)), acc, 5)
	r := rateNow(t, b)
	assert.InDelta(t, 0.85*acc, r, 0.01, "b paces at the learnt rate")
	assert.InDelta(t, r, rateNow(t, a), 0.01)

	// Echoes of the same overshoot (sent before the cut) cut nothing.
	refuse(b, 0, sent)
	refuse(a, 0, sent.Add(-time.Second))
	assert.Equal(t, st["cut"], state(t, mr, a)["cut"])
	assert.InDelta(t, r, rateNow(t, a), 0.01)

	// Nor does a refusal sent later with nothing accepted since the cut:
	// a storm, which the hold paces.
	now = now.Add(time.Second)
	mr.SetTime(now)
	refuse(b, 0, time.Now())
	st2 := state(t, mr, a)
	assert.Equal(t, st["cut"], st2["cut"])
	assert.Equal(t, "0", st2["seen"])
	assert.GreaterOrEqual(t, rateNow(t, a), r)

	// Accepted answers, then a refusal sent well after the cut: a new cut,
	// from the rate then (r, grown by the 50 ms that a wait keeps the
	// limit busy), still falling (under the rate of the refusal before):
	// the regrowth aims lower.
	accept(a)
	accept(b)
	refuse(b, 0, time.Now())
	st = state(t, mr, a)
	assert.NotEqual(t, st2["cut"], st["cut"])
	wmax := parse(t, st["wmax"])
	assert.InDelta(t, 0.925*1.02*r, wmax, 0.02*r)
	cut := rateNow(t, a)
	assert.InDelta(t, 0.85/0.925*wmax, cut, 0.01)

	// Time alone (nobody waiting) grows it no more than that tail.
	now = now.Add(10 * time.Second)
	mr.SetTime(now)
	assert.Less(t, rateNow(t, a), 1.05*cut)

	// Demand (turns waited for) grows it back: concave to 95 % of the rate
	// of the last refusal, level, then up past it.
	peak := cut
	var seen []float64
	for range 200 {
		now = now.Add(10 * time.Millisecond)
		mr.SetTime(now)
		drain(t, a)
		rate := rateNow(t, b)
		peak = max(peak, rate)
		seen = append(seen, rate)
	}
	assert.Greater(t, peak, wmax, "it probes past the rate of the last refusal: %v", seen[len(seen)-1])
	for i := 1; i < len(seen); i++ {
		require.GreaterOrEqual(t, seen[i], seen[i-1]-1e-9, "the regrowth never falls, at %d", i)
	}
	for _, x := range seen[:60] { // the rest (500 ms) and part of the level (250 ms)
		assert.LessOrEqual(t, x, 0.95*wmax+0.001, "the first regrowth rests under the last refusal")
	}
}

// TestCutToWhatTheServiceTook: a refusal after a spell in which the
// service took far less than the pace cuts from what it took.
func TestCutToWhatTheServiceTook(t *testing.T) {
	mr := miniRedis(t)
	l := newLimiter(t, mr.Addr(), nil)
	now := t0
	for range 200 { // 2 s at 100 a second, unpaced
		now = now.Add(10 * time.Millisecond)
		mr.SetTime(now)
		take(t, l)
		accept(l)
	}
	refuse(l, 0, time.Now())
	r := rateNow(t, l)
	require.Greater(t, r, 70.0)
	for range 20 { // then 20 accepted in a second
		now = now.Add(50 * time.Millisecond)
		mr.SetTime(now)
		drain(t, l)
		accept(l)
	}
	refuse(l, 0, time.Now())
	assert.InDelta(t, 0.85*20, rateNow(t, l), 1)
	assert.InDelta(t, 0.925*20, parse(t, state(t, mr, l)["wmax"]), 1)
}

// TestYoungLimitSlowStarts: a refusal within a limit's first second finds
// the rate by slow start, doubling with demand until the next refusal.
func TestYoungLimitSlowStarts(t *testing.T) {
	mr := miniRedis(t)
	l := newLimiter(t, mr.Addr(), nil)
	for range 10 {
		take(t, l)
		accept(l)
	}
	refuse(l, 0, time.Now())
	r0 := rateNow(t, l)
	assert.InDelta(t, 0.85*10, r0, 0.01)
	now := t0
	for range 20 { // 200 ms of demand
		now = now.Add(10 * time.Millisecond)
		mr.SetTime(now)
		drain(t, l)
	}
	assert.InDelta(t, 2*r0, rateNow(t, l), 0.2*r0, "doubled in 200 ms of demand")
	for range 10 {
		accept(l)
	}
	rate := rateNow(t, l)
	refuse(l, 0, time.Now())
	st := state(t, mr, l)
	assert.Equal(t, "0", st["slow"], "the next refusal ends it")
	assert.InDelta(t, rate/2, parse(t, st["wmax"]), 0.01*rate, "the limit was passed within the last doubling")
}

// TestObserveCountsAcceptedWithoutARoundTrip: accepted answers travel with
// the next Take.
func TestObserveCountsAcceptedWithoutARoundTrip(t *testing.T) {
	mr := miniRedis(t)
	l := newLimiter(t, mr.Addr(), nil)
	take(t, l)
	before := mr.CommandCount()
	for range 7 {
		accept(l)
	}
	assert.Equal(t, before, mr.CommandCount())
	take(t, l)
	assert.Equal(t, "7", state(t, mr, l)["seen"])
}

// TestTheClientPacesThroughIt: a convo client given the limiter calls
// through it.
func TestTheClientPacesThroughIt(t *testing.T) {
	mr := miniredis.RunT(t) // the machine's clock
	l := newLimiter(t, mr.Addr(), nil, WithRate(1000))
	c, err := convo.NewClient(convo.WithAPIKey(testKey), convo.WithBaseURL("http://127.0.0.1:1/v1"), convo.WithRateLimiter(l),
		convo.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Channels.List(context.Background())
	require.Error(t, err) // nobody listens: the attempt was paced, then failed
	assert.NotContains(t, err.Error(), "rate limiter")
	assert.Len(t, mr.Keys(), 1, "the pace was taken")
}
