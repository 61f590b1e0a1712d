package fake

import (
	"math"
	"net/http"
	"sync"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/epoch"
)

// The service's request limit is "not shown": its number, its time window
// and the kind of limiter behind it. The fake can be each of the three kinds
// a service commonly runs, so that code can be tested against the shape its
// service has. Each answers a refused request with 429 RATE_LIMITED and the
// whole-second Retry-After that its state implies (the wait rounded up).
//
// Every kind counts on the server's clock and on real elapsed time: time
// goes by for a limit as soon as either clock says so (see instant). A
// frozen or manual clock must never wedge the server: a client that waits
// the Retry-After it was given gets through, and so does one whose test
// moves the server's clock by as much.

// WithRateLimit sets the request limit per API key to a token bucket: burst
// tokens, refilled at perSecond, one taken per request, the three header
// forms counted together. perSecond <= 0 disables the limit. Default:
// [DefaultRateLimit] per second, burst [DefaultRateBurst]. See also
// [WithFixedWindowLimit] and [WithSlidingWindowLimit].
func WithRateLimit(perSecond float64, burst int) Option {
	return func(cfg *config) {
		cfg.limit = limitConfig{kind: limitBucket, rate: perSecond, burst: burst}
	}
}

// WithFixedWindowLimit sets the request limit per API key to a fixed window:
// at most n requests in each window of the server's clock, windows aligned
// on multiples of window since the Unix epoch (per wall-clock second for
// window = time.Second). A refused request is told to come back when the
// window ends. n <= 0 or window <= 0 disables the limit.
func WithFixedWindowLimit(n int, window time.Duration) Option {
	return func(cfg *config) {
		cfg.limit = limitConfig{kind: limitFixed, n: n, window: window}
	}
}

// WithSlidingWindowLimit sets the request limit per API key to a sliding
// log: at most n requests in any trailing window. A refused request is told
// to come back when the oldest request in the window leaves it. n <= 0 or
// window <= 0 disables the limit.
func WithSlidingWindowLimit(n int, window time.Duration) Option {
	return func(cfg *config) {
		cfg.limit = limitConfig{kind: limitSliding, n: n, window: window}
	}
}

type limitKind uint8

const (
	limitBucket limitKind = iota
	limitFixed
	limitSliding
)

// limitConfig is the request limit the options chose.
type limitConfig struct {
	kind   limitKind
	rate   float64 // bucket: tokens per second
	burst  int     // bucket: size
	n      int     // windows: requests per window
	window time.Duration
}

// off reports whether the configuration sets no limit.
func (c limitConfig) off() bool {
	if c.kind == limitBucket {
		return c.rate <= 0
	}
	return c.n <= 0 || c.window <= 0
}

// instant is the time a limit reads for one request.
type instant struct {
	// server is the server's clock (manual, frozen or real): fixed windows
	// align on it.
	server time.Time
	// elapsed is the limiter's protective time: it grows at each request by
	// as much as whichever clock moved further since the previous one (the
	// server's or the machine's), never less than either. Buckets and
	// windows count on it, so moving the server's clock by d or waiting d of
	// real time both let d go by: a wait announced in Retry-After is over
	// once either clock has covered it, even on a frozen clock or one that
	// moved and then stopped.
	elapsed time.Duration
}

// keyLimit is the limit state of one API key: take admits one request or
// says how long until one would be admitted.
type keyLimit interface {
	take(now instant) (wait time.Duration)
	// giveBack undoes the last take, for a request refused by another limit.
	giveBack()
}

// limiter holds the request limit (per key) and the anomaly report's own
// limit (per key, a token bucket).
type limiter struct {
	mu      sync.Mutex
	clock   *Clock
	last    struct{ server, real time.Time } // the clocks' readings at the previous request
	elapsed time.Duration                    // the protective time (see instant)
	general limitConfig
	anomaly limitConfig
	keys    map[string]keyLimit // the request limit's state, by key
	aKeys   map[string]keyLimit // the anomaly report's, by key
}

func newLimiter(c *Clock, general limitConfig, anomalyCalls int, anomalyPer time.Duration) *limiter {
	l := &limiter{clock: c, general: general}
	if anomalyCalls > 0 && anomalyPer > 0 {
		l.anomaly = limitConfig{kind: limitBucket, rate: float64(anomalyCalls) / anomalyPer.Seconds(), burst: anomalyCalls}
	} else {
		l.anomaly = limitConfig{kind: limitBucket}
	}
	l.reset()
	return l
}

// allow admits a request of key (the anomaly report also takes from its
// own limit) or returns the 429 answer with its Retry-After.
func (l *limiter) allow(key string, anomalies bool) *apiError {
	if l.general.off() && l.anomaly.off() {
		return nil // no limit reads the clocks: nothing to count
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	general := l.stateOf(l.keys, l.general, key, now)
	if general != nil {
		if wait := general.take(now); wait > 0 {
			return rateLimited(wait)
		}
	}
	if !anomalies {
		return nil
	}
	if a := l.stateOf(l.aKeys, l.anomaly, key, now); a != nil {
		if wait := a.take(now); wait > 0 {
			if general != nil {
				general.giveBack() // the request was not served
			}
			return rateLimited(wait)
		}
	}
	return nil
}

// now reads both clocks and advances the protective time by the larger
// step (none for a clock set back). The caller holds l.mu.
func (l *limiter) now() instant {
	server, real := l.clock.Now(), time.Now()
	if !l.last.real.IsZero() {
		l.elapsed += max(0, server.Sub(l.last.server), real.Sub(l.last.real))
	}
	l.last.server, l.last.real = server, real
	return instant{server: server, elapsed: l.elapsed}
}

// stateOf returns the limit state of key under cfg, made on first use; nil
// when cfg sets no limit.
func (l *limiter) stateOf(m map[string]keyLimit, cfg limitConfig, key string, now instant) keyLimit {
	if cfg.off() {
		return nil
	}
	st := m[key]
	if st == nil {
		switch cfg.kind {
		case limitFixed:
			st = &fixedWindow{n: cfg.n, window: cfg.window}
		case limitSliding:
			st = &slidingLog{n: cfg.n, window: cfg.window, log: make([]time.Duration, 0, min(cfg.n, 4096))}
		default:
			st = &tokenBucket{rate: cfg.rate, burst: math.Max(1, float64(cfg.burst)), tokens: math.Max(1, float64(cfg.burst)), last: now.elapsed}
		}
		m[key] = st
	}
	return st
}

func rateLimited(wait time.Duration) *apiError {
	e := errf(http.StatusTooManyRequests, convo.CodeRateLimited, "Too many requests. Retry later.")
	e.retryAfter = wait
	return e
}

// reset forgets every key's state (Server.Reset).
func (l *limiter) reset() {
	l.keys = map[string]keyLimit{}
	l.aKeys = map[string]keyLimit{}
}

// resetLocked is reset under the limiter's lock.
func (l *limiter) resetLocked() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reset()
}

// tokenBucket refills at rate up to burst; a request takes a token.
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Duration // protective time of the last refill
}

// tokenSlack absorbs float rounding: a client that waited exactly the
// announced wait finds a whole token, not 0.9999999999.
const tokenSlack = 1e-9

func (b *tokenBucket) take(now instant) time.Duration {
	b.tokens = math.Min(b.burst, b.tokens+(now.elapsed-b.last).Seconds()*b.rate)
	b.last = now.elapsed
	if b.tokens >= 1-tokenSlack {
		b.tokens = math.Max(0, b.tokens-1)
		return 0
	}
	return time.Duration(math.Round((1 - b.tokens) / b.rate * float64(time.Second)))
}

func (b *tokenBucket) giveBack() { b.tokens = math.Min(b.burst, b.tokens+1) }

// fixedWindow counts the requests of the window under way. Windows are
// aligned on the server's clock: one ends when that clock reaches its
// aligned end, or when the protective time covers what was left of it at
// its start (a clock that moved less than real time). A window ended that
// way while the server's clock is still short of the aligned end is
// followed by a full window of protective time, not by the same remainder
// again: a clock frozen at 10:00:00.950 does not turn 2 per second into 2
// per 50 ms.
type fixedWindow struct {
	n         int
	window    time.Duration
	serverEnd time.Time     // the aligned end of the window under way on the server's clock
	end       time.Duration // its end in protective time
	count     int
}

func (w *fixedWindow) take(now instant) time.Duration {
	switch {
	case w.serverEnd.IsZero() || !now.server.Before(w.serverEnd):
		w.serverEnd = epoch.AlignDown(now.server, w.window).Add(w.window)
		w.end = now.elapsed + w.serverEnd.Sub(now.server)
		w.count = 0
	case now.elapsed >= w.end:
		w.end = now.elapsed + w.window
		w.count = 0
	}
	if w.count < w.n {
		w.count++
		return 0
	}
	return w.end - now.elapsed
}

func (w *fixedWindow) giveBack() { w.count = max(0, w.count-1) }

// slidingLog keeps the protective times of the requests admitted within
// the trailing window (oldest first): at most n.
type slidingLog struct {
	n      int
	window time.Duration
	log    []time.Duration // log[head:] are within the window
	head   int
}

func (s *slidingLog) take(now instant) time.Duration {
	for s.head < len(s.log) && now.elapsed-s.log[s.head] >= s.window {
		s.head++
	}
	if s.head > len(s.log)/2 { // compact now and then, not on every request
		s.log = append(s.log[:0], s.log[s.head:]...)
		s.head = 0
	}
	if len(s.log)-s.head < s.n {
		s.log = append(s.log, now.elapsed)
		return 0
	}
	return s.window - (now.elapsed - s.log[s.head])
}

func (s *slidingLog) giveBack() {
	if len(s.log) > s.head {
		s.log = s.log[:len(s.log)-1]
	}
}
