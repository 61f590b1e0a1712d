package fake

import (
	"math"
	"net/http"
	"sync"
	"time"

	convo "github.com/convoapi/convo-go"
)

// The service's request limit is "not shown": its number, its time window
// and the kind of limiter behind it. The fake can be each of the three kinds
// a service commonly runs, so that code can be tested against the shape its
// service has. Each answers a refused request with 429 RATE_LIMITED and the
// whole-second Retry-After that its state implies (the wait rounded up).
//
// Every kind counts on the server's clock and on real elapsed time, and a
// request is let through as soon as either says so: a frozen or manual clock
// must never wedge the server, so a client that waits the Retry-After it was
// given gets through.

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

// instant is a reading of both clocks a limit counts on.
type instant struct {
	server time.Time // the server's clock (manual, frozen or real)
	real   time.Time // the machine's clock, with its monotonic reading
}

// since is how long ago i was, by whichever clock moved further.
func (now instant) since(i instant) time.Duration {
	return max(now.server.Sub(i.server), now.real.Sub(i.real))
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
	l.mu.Lock()
	defer l.mu.Unlock()
	now := instant{server: l.clock.Now(), real: time.Now()}
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
			st = &slidingLog{n: cfg.n, window: cfg.window, log: make([]instant, 0, min(cfg.n, 4096))}
		default:
			st = &tokenBucket{rate: cfg.rate, burst: math.Max(1, float64(cfg.burst)), tokens: math.Max(1, float64(cfg.burst)), last: now}
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
	last                instant
}

func (b *tokenBucket) take(now instant) time.Duration {
	if el := now.since(b.last); el > 0 {
		b.tokens = math.Min(b.burst, b.tokens+el.Seconds()*b.rate)
	}
	b.last = now // a clock set back restarts counting from now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
}

func (b *tokenBucket) giveBack() { b.tokens = math.Min(b.burst, b.tokens+1) }

// fixedWindow counts the requests of the window under way: windows are
// aligned on the server's clock, and a window also ends once its length has
// passed in real time since it began.
type fixedWindow struct {
	n      int
	window time.Duration
	start  instant // when the window under way began: its aligned start on the server's clock
	count  int
}

func (w *fixedWindow) take(now instant) time.Duration {
	if left := w.left(now); left <= 0 {
		aligned := now.server.Truncate(w.window)
		// The real clock is taken back by as much, so both clocks agree on
		// when this window ends.
		w.start = instant{server: aligned, real: now.real.Add(-now.server.Sub(aligned))}
		w.count = 0
	}
	if w.count < w.n {
		w.count++
		return 0
	}
	return w.left(now)
}

// left is the time until the window under way ends, by whichever clock
// gets there first; <= 0 when it has ended.
func (w *fixedWindow) left(now instant) time.Duration {
	if w.start.server.IsZero() {
		return 0
	}
	return w.window - now.since(w.start)
}

func (w *fixedWindow) giveBack() { w.count = max(0, w.count-1) }

// slidingLog keeps the instants of the requests admitted within the
// trailing window (oldest first): at most n.
type slidingLog struct {
	n      int
	window time.Duration
	log    []instant // log[head:] are within the window
	head   int
}

func (s *slidingLog) take(now instant) time.Duration {
	for s.head < len(s.log) && now.since(s.log[s.head]) >= s.window {
		s.head++
	}
	if s.head > len(s.log)/2 { // compact now and then, not on every request
		s.log = append(s.log[:0], s.log[s.head:]...)
		s.head = 0
	}
	if len(s.log)-s.head < s.n {
		s.log = append(s.log, now)
		return 0
	}
	return s.window - now.since(s.log[s.head])
}

func (s *slidingLog) giveBack() {
	if len(s.log) > s.head {
		s.log = s.log[:len(s.log)-1]
	}
}
