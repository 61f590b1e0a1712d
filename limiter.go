package convo

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// RateLimiter says how a Client paces its requests to the service's request
// limit, whose number, window and kind the service does not publish. Choose
// one with AdaptiveRate (the default), FixedRate or NoRateLimiter, and give
// it to NewClient with WithRateLimiter.
//
// Whatever the choice, a request the service refused with 429 and a
// Retry-After is never sent again before that wait has passed.
type RateLimiter struct {
	kind limiterKind
	rate float64
}

type limiterKind uint8

const (
	limiterAdaptive limiterKind = iota
	limiterFixed
	limiterOff
)

// AdaptiveRate is the default RateLimiter: the client sends unpaced until
// the service first refuses a request for its rate (429), then paces every
// request of the Client — every goroutine, Parallel runs included — at the
// rate the service was seen to accept, and probes upwards gently so that
// refusals stay rare. Parked requests leave at that pace, one by one, never
// as a burst.
//
// It learns only from what the service says, so it works with any kind of
// limiter: under a token bucket it settles near the refill rate (the
// bucket's burst is spent first); under a fixed window it spreads the
// window's allowance evenly instead of spending it at the window's start
// and being refused until the next one; under a sliding window it keeps
// under the count of any trailing window. When the first refusal comes
// within the client's first moments (what was accepted is a burst, not a
// rate), it grows its rate by doubling until refused, because a
// whole-second Retry-After parks the first refused requests for a second
// however fast the service refills. A request sent again after a refusal
// takes the next turn before requests sent for the first time, and the
// rate does not probe upwards while such a request waits for its turn (the
// probe's first turn would be its), so that a call refused once is not
// refused again and again.
func AdaptiveRate() RateLimiter { return RateLimiter{kind: limiterAdaptive} }

// FixedRate paces every request of the Client at perSecond, never faster
// and never learning: for a service whose limit you know (from your
// contract), or to keep a job well below it. Under a token bucket or a
// sliding window at that rate, or a fixed window of that many a second,
// requests are not refused. A perSecond <= 0 is refused by NewClient.
func FixedRate(perSecond float64) RateLimiter {
	return RateLimiter{kind: limiterFixed, rate: perSecond}
}

// NoRateLimiter turns client-side pacing off: each call meets the service's
// limit alone, waiting out the Retry-After of each 429 it gets before it
// sends again, within its retry budget. Use it when your code paces
// requests itself, for instance with a limiter in WithMiddleware, which
// sees every attempt (retries included). Under any kind of limiter, more
// concurrent callers than the limit admits then see 429s, and a call can
// run out of retries.
func NoRateLimiter() RateLimiter { return RateLimiter{kind: limiterOff} }

// WithRateLimiter sets how the Client paces its requests (default
// AdaptiveRate). The anomaly report has a limit of its own (about one pass a
// day), which no setting paces: its 429s teach and slow nothing else, and a
// Retry-After there holds only anomaly report calls. Applies to NewClient.
func WithRateLimiter(r RateLimiter) Option {
	return func(c *config) {
		switch {
		case !c.in("WithRateLimiter", scopeClient):
		case r.kind == limiterFixed && !(r.rate > 0):
			c.fail("WithRateLimiter: FixedRate needs a positive rate, got %v", r.rate)
		default:
			c.limiter = r
		}
	}
}

// The adaptive limiter's constants. A cut sets the rate to cutFactor of
// what the service was seen to accept over the trailing second; refusals
// that go on among accepted answers cut by repeatCut each. While rising,
// the rate doubles every stepWindow without a refusal. After that, growth
// comes in steps at least probeWindow long, each judged on at least
// stepAnswers answers to attempts sent at the step's rate: a step covers
// regrowth of the way back to just under the rate of the last refusal
// while that is more, else adds a gain that starts at firstGain after
// each cut and grows by gainGrowth per step up to maxGain. The probe is
// slow on purpose: a window's limit answers late, and every refusal parks
// its caller for a whole Retry-After. No step is taken while a request
// refused before waits for its turn: it goes first, so the probe's first
// turn, the one a service at its limit refuses, would be its again.
const (
	cutFactor   = 0.95
	stepWindow  = 50 * time.Millisecond
	stepAnswers = 8
	firstGain   = 0.01
	gainGrowth  = 1.25
	maxGain     = 0.03
	probeWindow = 250 * time.Millisecond
	regrowth    = 0.3
	repeatCut   = 0.9
	wmaxMemory  = 0.98
	minRate     = 0.5 // attempts per second: the slowest pace, one probe every two seconds
)

// limiter paces the attempts of a Client (see RateLimiter). The adaptive
// one learns from every answer; the fixed one keeps its rate; the anomaly
// report's (hold) keeps no pace and only holds its calls for the wait its
// last 429 asked for.
type limiter struct {
	mu       sync.Mutex
	learn    bool
	hold     bool          // holds for Retry-After instead of pacing
	rate     float64       // turns per second; 0: unpaced
	next     time.Time     // the theoretical time of the next turn
	until    time.Time     // hold: no attempt before this
	changed  chan struct{} // closed when the rate or the hold changes
	retrying int           // retries waiting for a turn: they go first

	rising    bool      // doubling until refused: the first estimate may be far too low
	first     time.Time // the first accepted answer
	wmax      float64   // the rate when the service last refused
	collapsed bool      // refused again right after a cut: the rate halved and resume is where it was
	resume    float64   // the rate to return to when a collapse ends
	cutAt     time.Time // when the rate was last cut; answers to attempts sent before tell nothing new
	refusals  int       // refusals since the last accepted answer, of attempts sent after a cut
	stepAt    time.Time // when the rate last changed
	answers   int       // accepted answers to attempts sent since stepAt
	gain      float64
	seen      acceptedWindow
}

func newLimiter(r RateLimiter) *limiter {
	switch r.kind {
	case limiterOff:
		return nil
	case limiterFixed:
		return &limiter{rate: r.rate, changed: make(chan struct{})}
	}
	return &limiter{learn: true, changed: make(chan struct{})}
}

// anomaliesPath has a rate limit of its own (about one pass a day), so its
// 429s teach and hold only its own calls: a day-long wait there must not
// stop every other call of the client.
const anomaliesPath = "/conversations/anomalies"

func newHoldLimiter() *limiter { return &limiter{hold: true, changed: make(chan struct{})} }

// heldError is an attempt not sent because the limiter would hold it longer
// than the call's maximum retry wait or past its deadline. The pipeline
// turns it into the call's typed 429.
type heldError struct{ wait time.Duration }

func (e *heldError) Error() string {
	return "not sent: the client's rate limiter would hold it past the call's deadline or maximum retry wait"
}

// asError is the typed 429 a held call returns: as if the service had
// answered it, with the wait that is left.
func (e *heldError) asError(method, path string) *Error {
	return &Error{
		Held:       true,
		StatusCode: http.StatusTooManyRequests,
		Code:       CodeRateLimited,
		Message:    "not sent: the service asked this client to slow down, and the wait outlasts the call's deadline or maximum retry wait",
		Method:     method,
		Path:       path,
		RetryAfter: e.wait,
	}
}

// wait blocks until the attempt may be sent and returns how long it waited.
// It gives up at once with a *heldError when the wait would outlast maxWait
// or ctx's deadline, and returns ctx's error if ctx ends while it waits.
// Waiters hold no reservation: each wakes for the next turn or a change of
// rate, so a rate that rises applies at once to every waiting attempt.
// A retry (an attempt after a refusal or a failure) goes before the first
// attempts waiting, so that a call refused once gets the next turn rather
// than meeting the limit again and again while new calls get through.
func (l *limiter) wait(ctx context.Context, maxWait time.Duration, retry bool) (time.Duration, error) {
	if l == nil {
		return 0, nil
	}
	if retry {
		l.mu.Lock()
		l.retrying++
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.retrying--
			l.signal() // first attempts held back for it may go
			l.mu.Unlock()
		}()
	}
	var start time.Time
	for {
		l.mu.Lock()
		now := time.Now()
		d := l.turn(now, retry)
		changed := l.changed
		l.mu.Unlock()
		if d <= 0 {
			if start.IsZero() {
				return 0, nil
			}
			return now.Sub(start), nil
		}
		if start.IsZero() {
			start = now
		}
		// The whole wait, so far and to come, is judged.
		if dl, ok := ctx.Deadline(); now.Sub(start)+d > maxWait || (ok && dl.Sub(now) < d) {
			return now.Sub(start), &heldError{wait: d}
		}
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return time.Since(start), ctx.Err()
		case <-changed:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// turn takes the turn at now and returns 0, or returns how long until the
// next turn. Turns may come up to a few intervals early (at most 25 ms), so
// that a timer that fires late is made up for without a burst.
func (l *limiter) turn(now time.Time, retry bool) time.Duration {
	if l.hold {
		return l.until.Sub(now)
	}
	if l.rate == 0 {
		return 0
	}
	if l.rising && !l.collapsed {
		l.rise(now)
	}
	interval := time.Duration(float64(time.Second) / l.rate)
	slack := min(4*interval, 25*time.Millisecond)
	tat := l.next
	if tat.Before(now.Add(-slack)) {
		tat = now.Add(-slack)
	}
	if d := tat.Sub(now); d > 0 {
		if l.rising {
			// The rate doubles at the next step: look again then.
			d = min(d, max(l.stepAt.Add(stepWindow).Sub(now), time.Millisecond))
		}
		return d
	}
	if !retry && l.retrying > 0 {
		return interval // a retry takes this turn; look again after it
	}
	l.next = tat.Add(interval)
	return 0
}

// observe learns from the answer to an attempt sent at sent: any status but
// 429 is an accepted request. A 429 whose Retry-After asks for no wait at
// all says the service is ready again at once, so it teaches nothing.
func (l *limiter) observe(sent time.Time, resp *http.Response) {
	if l == nil || resp == nil {
		return
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		if l.learn {
			l.accepted(sent, time.Now())
		}
		return
	}
	wait, ok := retryAfter(resp.Header)
	switch {
	case ok && wait == 0 && !l.hold:
		return // the service is ready again at once: nothing to slow down for
	case !ok:
		wait = 0
	}
	l.refused(sent, time.Now(), wait)
}

// accepted learns from an accepted answer to an attempt sent at sent.
//
// A collapse ends: the rate goes back to where it was. While rising, the
// rate is never below what the service accepted over the trailing second,
// and doubles each step. After that, each step heads back near the rate of
// the last refusal, then adds a small gain that grows.
func (l *limiter) accepted(sent, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen.add(now)
	l.refusals = 0
	if l.first.IsZero() {
		l.first = now
	}
	if l.rate == 0 {
		return
	}
	if l.collapsed {
		l.collapsed = false
		l.setRate(now, l.resume)
		return
	}
	if l.rising {
		// Catch up with what the service was seen to accept, without
		// starting a new step: the doubling goes on.
		if m := cutFactor * float64(l.seen.count(now)); m > l.rate {
			stepAt, answers := l.stepAt, l.answers
			l.setRate(now, m)
			l.stepAt, l.answers = stepAt, answers
		}
	}
	if sent.Before(l.stepAt) {
		return // sent at an older rate
	}
	l.answers++
	switch {
	case now.Sub(l.stepAt) < stepWindow:
	case l.rising:
		l.rise(now)
	case l.answers >= stepAnswers && now.Sub(l.stepAt) >= probeWindow && l.retrying == 0:
		// Back near the rate of the last refusal quickly, then onwards
		// gently: a window's limit answers late. Not while a retry waits
		// for its turn (see the constants).
		next := l.rate * (1 + l.gain)
		if back := l.rate + regrowth*(cutFactor*l.wmax-l.rate); back > next {
			next = back
		} else {
			l.gain = min(gainGrowth*l.gain, maxGain)
		}
		l.setRate(now, next)
	}
}

// refused learns from a 429 to an attempt sent at sent that asked to wait
// retryAfter (0: not said). Only the first refusal among the attempts sent
// before a cut counts: the others tell nothing new.
//
// The first refusal sets the rate to what the service accepted over the
// trailing second. When the client's first accepted answer came less than
// a step before, that count is a burst, not a rate, and the limiter rises
// from it. A refusal after that cuts the rate to cutFactor of what the
// service accepted over the trailing second (when rising, not below half
// the rate: the rate before the last doubling held; otherwise not above
// repeatCut of the rate), and ends the rise. A refusal of an attempt sent
// after a cut, with nothing accepted since, means the service takes nothing
// at the moment (a fixed window spent, say): the rate halves with each such
// refusal, down to one attempt per Retry-After (at most one a second), and
// goes back to where it was at the first accepted answer.
func (l *limiter) refused(sent, now time.Time, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold {
		if end := now.Add(retryAfter); end.After(l.until) {
			l.until = end
			l.signal()
		}
		return
	}
	if !l.learn || !sent.After(l.cutAt) {
		return
	}
	l.refusals++
	measured := float64(l.seen.count(now))
	floor := minRate
	if retryAfter > 0 {
		floor = max(minRate, min(1, 1/retryAfter.Seconds()))
	}
	switch {
	case l.rate == 0:
		// What the service accepted within the first step of the
		// client's life is a burst, not a rate: rise from it until
		// refused. Over a longer time, it is the rate.
		l.rising = l.first.IsZero() || now.Sub(l.first) < stepWindow
		l.rate = max(cutFactor*measured, floor)
	case l.refusals >= 2:
		if !l.collapsed {
			l.collapsed, l.resume = true, l.rate
		}
		l.rising = false
		l.rate = max(l.rate/2, floor)
	case l.rising:
		l.rising, l.wmax = false, l.rate
		l.rate = max(cutFactor*measured, l.rate/2, floor)
	default:
		// The rate of a refusal is remembered, and forgotten slowly: a
		// refusal by chance below it (attempts that arrived bunched) does
		// not make the limiter forget where the limit was.
		l.wmax = max(l.rate, wmaxMemory*l.wmax)
		rate := cutFactor * min(l.rate, measured)
		if now.Sub(l.cutAt) < time.Second {
			// Refusals that go on, among accepted answers, cut further
			// each time: refused calls park for their Retry-After and
			// hold their callers meanwhile.
			rate = min(rate, repeatCut*l.rate)
		}
		l.rate = max(rate, floor)
	}
	l.gain = firstGain
	l.cutAt = now
	l.next = now.Add(time.Duration(float64(time.Second) / l.rate)) // the service has no room right now
	l.stepAt, l.answers = now, 0
	l.signal()
}

// rise doubles the rate when a stepWindow has passed since the last
// change with nothing refused and an answer accepted at that rate: once per
// call, so that a pause (every call parked for a Retry-After) does not
// count as steps taken.
func (l *limiter) rise(now time.Time) {
	// An accepted answer at the step's rate is the evidence to double on;
	// below a couple a second there may be none to wait for.
	if now.Sub(l.stepAt) >= stepWindow && (l.answers >= 1 || l.rate < 2) {
		l.setRate(now, 2*l.rate)
	}
}

// setRate changes the rate and wakes the waiting attempts.
func (l *limiter) setRate(now time.Time, rate float64) {
	if interval := time.Duration(float64(time.Second) / rate); rate > l.rate && l.next.After(now.Add(interval)) {
		l.next = now.Add(interval) // a turn far off at the old rate comes sooner
	}
	l.rate = rate
	l.stepAt, l.answers = now, 0
	l.signal()
}

func (l *limiter) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// acceptedWindow counts accepted answers over the trailing second, in
// slots of 10 ms: constant memory at any rate.
type acceptedWindow struct {
	slots [slotsPerWindow]struct {
		at    int64 // the slot's number since the epoch (time / slotLength)
		count int
	}
}

const (
	slotLength     = 10 * time.Millisecond
	slotsPerWindow = int(time.Second / slotLength)
)

func (w *acceptedWindow) add(now time.Time) {
	n := now.UnixNano() / int64(slotLength)
	s := &w.slots[n%int64(slotsPerWindow)]
	if s.at != n {
		s.at, s.count = n, 0
	}
	s.count++
}

// count is the number of accepted answers in the trailing second.
func (w *acceptedWindow) count(now time.Time) int {
	n := now.UnixNano() / int64(slotLength)
	total := 0
	for _, s := range w.slots {
		if s.at > n-int64(slotsPerWindow) && s.at <= n {
			total += s.count
		}
	}
	return total
}
