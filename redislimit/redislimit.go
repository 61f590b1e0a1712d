// Package redislimit is a convo.RateLimiter shared by every process that
// uses one API key, through Redis: the service's request limit is the
// account's, counted across all the replicas, workers and CI shards that
// send with the key, while the SDK's own limiters pace one process. With a
// Limiter from New given to each process's client, K processes behave as
// one client: one pace, and one hold when the service asks for a wait.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"}) // or a cluster, sentinel or TLS client
//	lim, err := redislimit.New(rdb, apiKey)                     // learns the rate; WithRate(50) to set it
//	client, err := convo.NewClient(convo.WithAPIKey(apiKey), convo.WithRateLimiter(lim))
//
// # What is shared
//
// Every decision is made by one Lua script of this package, run atomically
// by Redis on its own clock (TIME), so that the processes' clocks never
// matter:
//
//   - The pace: a generic cell rate algorithm. Take either takes the turn
//     (the next turn's theoretical arrival time moves one interval on) or
//     returns the wait until it. A turn may come up to four intervals
//     early, at most 25 ms, as convo.FixedRate allows.
//   - The hold: when any process sees a 429 with a Retry-After, Observe
//     sets "blocked until" to the later of the hold already there and the
//     Redis server's now plus that wait, and every process's Take returns
//     what is left of it until it has passed. A Retry-After given to one
//     process holds them all. The pace then resumes at the hold's end,
//     evenly, without making up the turns the hold kept back.
//   - The rate. With WithRate it is yours. Without, it is learnt once for
//     all processes, by one controller whose state is a hash in Redis,
//     computed on the server's clock. It sends unpaced until the service
//     first refuses an attempt; it then starts from 85 % of the rate the
//     service accepted over about the last second, or, for a limit used
//     less than a second, by a slow start that doubles the rate every
//     200 ms of demand until the next refusal, which sets it to half the
//     rate then (the limit was passed within the last doubling). A refusal
//     cuts the rate to 85 %, or to 85 % of what the service accepted since
//     the last cut (or hold) when that was far less than the pace; the
//     regrowth then aims at the rate of the refusal, or a little under it
//     when that was well under the one before (the limit is falling).
//     Refusals of attempts sent before that cut (or within two intervals
//     after it) echo the same overshoot and cut nothing, nor do refusals
//     while nothing was accepted since the last cut (a storm, which the
//     hold paces). Between refusals the rate grows back with the time
//     attempts spent waiting for their turn, never while nobody waits:
//     concave up to 95 % of the rate of the last refusal, level there,
//     then faster and faster (the probe), so that room that comes free is
//     taken within seconds. How long it rests before probing is learnt,
//     from half a second to eight: longer while each probe is refused near
//     the last rate, shorter when the rate grew well past it. Each refusal
//     also holds every process for its Retry-After (see above), so the
//     controller spends few: after its first two (the unpaced start's and
//     the slow start's) one per probe, every few seconds. The accepted
//     answers it counts travel with each process's next Take, never in a
//     request of their own. Unused for the TTL, what it learnt is
//     forgotten, and learnt anew.
//
// Every process that shares a limit should be configured alike (the same
// rate, or none).
//
// Rates are paced in microseconds of the server's clock: from a thousandth
// of a turn a second up to a million a second. The script needs Redis 4.0
// or later (HSET of several fields; TIME before writes in a script).
//
// The script is this package's own rather than go-redis/redis_rate: the
// pace, the hold and the learnt rate are decided together, atomically and
// in one round trip, which a GCRA alone cannot do, and the core's Take
// contract (return the wait, take nothing) maps onto it directly.
//
// # Keys
//
// A limit has three keys, named prefix + "{" + id + "}:" + "pace", "hold"
// or "state". The id is the first 32 hex digits of the SHA-256 of
// "convo-go/redislimit:" followed by the API key, or the name given with
// WithName: never the key itself, which is neither written to Redis nor
// logged nor put in an error. The braces make the three keys one Redis
// Cluster hash slot, as a script needs. Every key expires: the pace and
// the state after the TTL (WithTTL, 10 minutes by default), set again at
// each use, and the hold when it ends.
//
// # When Redis fails
//
// A call never fails because of Redis. Each Take and each Observe waits
// for Redis at most the timeout (WithTimeout, 50 ms by default), whatever
// the redis client's own timeouts: a command still running then goes on
// in the background, within the client's own read timeout. When Redis does
// not answer in time, or answers an error, the Limiter paces this process
// with its fallback limiter (WithFallback; a convo.AdaptiveRate by
// default) and logs it once, at Warn level. While Redis is down it asks
// Redis again at most once a second, from one Take, and goes back to it,
// logging once more, as soon as it answers. The fallback paces this
// process alone: K processes then share the key as K independent clients
// do, which AdaptiveRate handles, less exactly. A Redis that restarts
// empty starts the shared state anew.
//
// Take returns an error only when its context ends while it waits for
// Redis: the call was cancelled, or its deadline passed.
package redislimit

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	convo "github.com/convoapi/convo-go"
)

//go:embed limit.lua
var scriptSource string

// script runs by EVALSHA, and by EVAL when Redis does not have it (a
// fresh server, one restarted, or SCRIPT FLUSH).
var script = redis.NewScript(scriptSource)

// A Limiter is a convo.RateLimiter, with the optional Changed.
var (
	_ convo.RateLimiter                      = (*Limiter)(nil)
	_ interface{ Changed() <-chan struct{} } = (*Limiter)(nil)
)

// probeEvery is how often a Limiter whose Redis failed asks it again.
const probeEvery = time.Second

// Limiter is a convo.RateLimiter whose pace, hold and learnt rate live in
// Redis, shared by every process given the same key (or name). It is safe
// for concurrent use; give one to every client of a process, or one to
// each.
type Limiter struct {
	rdb       redis.UniversalClient
	keys      []string
	label     string // the keys' common part, for the log: prefix{id}
	rate      float64
	ttl       time.Duration
	timeout   time.Duration
	fallback  convo.RateLimiter
	fbChanged func() <-chan struct{}
	log       *slog.Logger
	now       func() time.Time // the local clock, for the probes; the tests move it

	accepted atomic.Int64 // accepted answers not yet told to Redis (learnt rate)
	offset   atomic.Int64 // the Redis server's clock minus ours, ns
	fbTurns  atomic.Int64 // turns the fallback gave that were not observed yet
	fbFailed atomic.Bool  // the fallback's Take failed once (logged)

	mu        sync.Mutex
	down      bool      // Redis failed; the fallback paces
	downSince time.Time // when it failed
	nextProbe time.Time // when to ask Redis again
	probing   bool      // a Take asks it now
}

// New returns a Limiter for the API key apiKey on the Redis behind rdb: a
// single node, a cluster, a sentinel failover client or a ring, with or
// without TLS, as configured by the caller. It sends nothing to Redis
// (which may well be down at start: the fallback paces until it answers).
// It returns an error when rdb is nil, when apiKey is empty and no name is
// given (WithName), or when an option is refused; the error never holds
// the key.
func New(rdb redis.UniversalClient, apiKey string, opts ...Option) (*Limiter, error) {
	c := config{prefix: DefaultPrefix, ttl: DefaultTTL, timeout: DefaultTimeout}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if isNil(rdb) {
		c.fail("nil Redis client")
	}
	switch {
	case c.nameSet && apiKey != "" && c.name == apiKey:
		c.fail("WithName: the name must not be the API key, which is never written to Redis")
	case !c.nameSet && apiKey == "":
		c.fail("an API key (or WithName) is needed to name the limit")
	}
	if len(c.errs) > 0 {
		return nil, errors.New("redislimit: " + strings.Join(c.errs, "; "))
	}
	id := c.name
	if !c.nameSet {
		id = keyID(apiKey)
	}
	base := c.prefix + "{" + id + "}:"
	if c.fallback == nil {
		c.fallback = convo.AdaptiveRate()
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	l := &Limiter{
		rdb:      rdb,
		keys:     []string{base + "pace", base + "hold", base + "state"},
		label:    strings.TrimSuffix(base, ":"),
		rate:     c.rate,
		ttl:      c.ttl,
		timeout:  c.timeout,
		fallback: c.fallback,
		log:      c.logger,
		now:      time.Now,
	}
	if ch, ok := c.fallback.(interface{ Changed() <-chan struct{} }); ok {
		l.fbChanged = ch.Changed
	}
	return l, nil
}

// isNil reports whether rdb is nil, or a nil pointer in the interface
// (a *redis.Client left unset), which would fail at the first command.
func isNil(rdb redis.UniversalClient) bool {
	if rdb == nil {
		return true
	}
	v := reflect.ValueOf(rdb)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// keyID is the limit's id for an API key: a hash, domain-separated so that
// it matches no other use of a plain SHA-256 of the key.
func keyID(apiKey string) string {
	sum := sha256.Sum256([]byte("convo-go/redislimit:" + apiKey))
	return hex.EncodeToString(sum[:16])
}

// Take asks Redis for the turn of an attempt: 0 when it may be sent now,
// the turn being taken, or the wait until the pace or the hold lets it.
// When Redis does not answer within the timeout, or fails, the fallback
// answers instead. It returns an error only when ctx ends first.
func (l *Limiter) Take(ctx context.Context, t convo.Turn) (time.Duration, error) {
	use, probe := l.useRedis()
	if !use {
		return l.takeFallback(ctx, t)
	}
	n := l.accepted.Swap(0)
	if probe {
		n = 0 // answers counted while the fallback paced are not Redis's to learn from
	}
	r, err := l.run(ctx, "take", n, 0, 0)
	if err != nil {
		if ctx.Err() != nil {
			l.endProbe(probe)
			return 0, ctx.Err()
		}
		l.failed(err, probe)
		return l.takeFallback(ctx, t)
	}
	l.answered(probe)
	return r.wait, nil
}

// takeFallback asks the fallback, and counts the turns it gives so that
// their outcomes go back to it.
func (l *Limiter) takeFallback(ctx context.Context, t convo.Turn) (time.Duration, error) {
	d, err := l.fallback.Take(ctx, t)
	if err == nil && d == 0 {
		l.fbTurns.Add(1)
	}
	if err != nil {
		// A fallback that fails must not fail the call either: the attempt
		// goes unpaced, as NoRateLimiter's would. Said once.
		if l.fbFailed.CompareAndSwap(false, true) {
			l.log.Warn("convo redislimit: the fallback limiter fails; attempts it should pace are not paced",
				"limit", l.label, "error", err.Error())
		}
		return 0, nil
	}
	return d, nil
}

// Observe tells the fallback how an attempt it let through ended, counts
// an accepted answer for the learnt rate (told to Redis with the next
// Take), and tells Redis of a refusal at once: its Retry-After holds every
// process, and the learnt rate falls. That write waits at most the
// timeout, and is skipped while Redis is down.
func (l *Limiter) Observe(t convo.Turn, o convo.Outcome) {
	for {
		n := l.fbTurns.Load()
		if n <= 0 {
			break
		}
		if l.fbTurns.CompareAndSwap(n, n-1) {
			l.fallback.Observe(t, o)
			break
		}
	}
	switch o.Kind {
	case convo.OutcomeAccepted:
		if l.rate == 0 {
			l.accepted.Add(1)
		}
	case convo.OutcomeRefused:
		ra := o.RetryAfter
		if ra > 0 && !o.Received.IsZero() {
			ra -= time.Since(o.Received) // the wait runs from the answer
		}
		ra = max(ra, 0)
		if (l.rate > 0 && ra == 0) || !l.up() {
			return
		}
		var sent int64
		if !o.Sent.IsZero() {
			sent = o.Sent.Add(time.Duration(l.offset.Load())).UnixMicro()
		}
		n := l.accepted.Swap(0)
		if _, err := l.run(context.Background(), "refused", n, ra.Microseconds(), sent); err != nil {
			l.failed(err, false)
		}
	}
}

// Changed is the fallback's Changed, when it has one (nil, which never
// fires, when it has none): while the fallback paces, the client wakes when
// it says a turn may come sooner. Redis's waits need none: they are exact
// at the rate of the moment, and a hold only grows.
func (l *Limiter) Changed() <-chan struct{} {
	if l.fbChanged != nil {
		return l.fbChanged()
	}
	return nil
}

// reply is the script's answer.
type reply struct {
	wait time.Duration
	why  int64   // 0: the turn was taken; 1: held; 2: paced
	rate float64 // the rate the script paced at; 0: unpaced
}

// run runs the script, waiting at most the timeout (or until ctx ends).
// The command runs in a goroutine of its own: a redis client without
// ContextTimeoutEnabled reads past a context's deadline, up to its own
// read timeout, and the caller must not wait that long. Such a command
// finishes in the background.
func (l *Limiter) run(ctx context.Context, op string, accepted, retryAfter, sent int64) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	type result struct {
		v          []int64
		err        error
		start, end time.Time
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		v, err := script.Run(ctx, l.rdb, l.keys, op, strconv.FormatFloat(l.rate, 'g', -1, 64),
			l.ttl.Milliseconds(), accepted, retryAfter, sent).Int64Slice()
		done <- result{v, err, start, time.Now()}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return reply{}, fmt.Errorf("no answer within %v: %w", l.timeout, ctx.Err())
	}
	if r.err != nil {
		return reply{}, r.err
	}
	if len(r.v) != 4 {
		return reply{}, fmt.Errorf("unexpected answer from the script: %d values", len(r.v))
	}
	// The server's clock against ours, at the middle of the round trip:
	// it turns a local Sent time into the server's, within half of it.
	mid := r.start.Add(r.end.Sub(r.start) / 2)
	l.offset.Store(int64(time.UnixMicro(r.v[1]).Sub(mid)))
	return reply{wait: time.Duration(r.v[0]) * time.Microsecond, why: r.v[2], rate: float64(r.v[3]) / 1000}, nil
}

// useRedis reports whether a Take should ask Redis: always while it is
// up; while it is down, once per probeEvery, one Take at a time (probe).
func (l *Limiter) useRedis() (use, probe bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.down {
		return true, false
	}
	now := l.now()
	if l.probing || now.Before(l.nextProbe) {
		return false, false
	}
	l.probing, l.nextProbe = true, now.Add(probeEvery)
	return true, true
}

// up reports whether Redis is taken to answer.
func (l *Limiter) up() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.down
}

// failed notes that Redis failed: the fallback paces from now on, and the
// first failure of an outage is logged. A command that began before the
// outage was noted changes nothing more.
func (l *Limiter) failed(err error, probe bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if probe {
		l.probing, l.nextProbe = false, now.Add(probeEvery)
	}
	if l.down {
		return
	}
	l.down, l.downSince, l.nextProbe = true, now, now.Add(probeEvery)
	l.log.Warn("convo redislimit: Redis does not answer; this process is paced by its fallback limiter until it does",
		"limit", l.label, "error", err.Error())
}

// answered notes that Redis answered: a probe that did ends the outage,
// and says so once.
func (l *Limiter) answered(probe bool) {
	if !probe {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.probing = false
	if !l.down {
		return
	}
	l.down = false
	l.log.Warn("convo redislimit: Redis answers again; every process is paced through it",
		"limit", l.label, "outage", l.now().Sub(l.downSince).Round(time.Millisecond).String())
}

// endProbe ends a probe that taught nothing (its call was cancelled).
func (l *Limiter) endProbe(probe bool) {
	if !probe {
		return
	}
	l.mu.Lock()
	l.probing = false
	l.mu.Unlock()
}
