package convo

import (
	"context"
	"math"
	"sync"
	"time"
)

// AdaptiveRate is the default RateLimiter: a client of its own that learns
// the rate the service accepts from the service's answers alone, so that it
// works with any kind of limit (token bucket, fixed or sliding window) and
// beside any number of other clients on the same key, which it knows
// nothing of.
//
// It sends unpaced until the service first refuses an attempt for its rate
// (429). From then on it paces every attempt of the client:
//
//   - A refusal cuts the rate by 15 %, and each further refusal of an
//     attempt already under way by 3 % more: a client that sends more is
//     refused more, and cut more, so clients that share a key converge to
//     even shares without speaking to each other.
//   - Between refusals the rate grows by time: back to a little under the
//     rate of the last refusal, level there, then faster and faster, so
//     that room that comes free (a neighbour that finished, a limit that
//     rose) is taken within seconds. How long it rests before it probes
//     upwards is learnt: a client refused each time it passes its last rate
//     is at its share, and probes more rarely (up to every few seconds), so
//     that many clients on a small limit are refused rarely; none keeps a
//     floor that many clients would multiply. The rate grows only while
//     attempts wait for their turn.
//   - A storm — refusals with nothing accepted between them, as when the
//     service is down or another process spends the whole budget — holds
//     every attempt but one probe, sent ever more rarely, at most once per
//     Retry-After. A storm teaches no rate: once the service accepts again
//     the client goes on at the rate it had before, within a moment.
//
// Parked attempts leave at the pace, one by one, never as a burst. Each
// call to AdaptiveRate returns a new limiter; one limiter given to several
// clients learns for them all, as one client.
func AdaptiveRate() RateLimiter {
	return &adaptive{tune: defaultTuning, changed: make(chan struct{}), pace: pace{jitter: true}}
}

// The adaptive limiter's constants (see AdaptiveRate). Those of tuning
// are the defaults of the knobs the tests vary to explore the design.
const (
	deepestCut   = 0.5                    // one refusal and those in flight cut at most to this share
	slowDouble   = 100 * time.Millisecond // slow start doubles the rate every this long of demand
	firstProbe   = 10 * time.Millisecond  // a storm's first probe comes no sooner than this
	stormProbe   = time.Second            // a storm is probed at most once per this (or its Retry-After)
	probeTimeout = 5 * time.Second        // a probe not answered by then is taken as lost
	busyFor      = 50 * time.Millisecond  // an attempt that waited keeps the limiter busy this long
	measureMin   = 3                      // accepted answers that measure a rate
	maxGrowth    = 2.0                    // the probe grows at most this many e-folds a second (×7.4)
	longStorm    = time.Second            // a storm this long measures nothing: the measure starts after it
	slowLearn    = 8                      // accepted answers a slow start needs before a refusal ends it
	restAttempts = 20                     // a slow client regrows over at least this many attempts
)

// tuning holds the adaptive limiter's knobs.
type tuning struct {
	cutFactor    float64       // a refusal cuts the rate to this share
	plateau      float64       // the regrowth rests at this share of the rate of the last refusal
	inFlightCut  float64       // each refusal of an attempt sent before the cut, on top
	minRest      time.Duration // the shortest regrowth to the rest, and half as long at rest
	maxRest      time.Duration // the longest
	firstRest    time.Duration // the longest first regrowth, before any is learnt
	convexGain   float64       // the probe's first growth, in e-folds a second
	convexDouble time.Duration // which doubles every this long
	slowFloor    float64       // slow start begins at no less than this many attempts a second
	probeSpread  int           // each refused probe spreads the next this much further
	overshoot    float64       // a client accepted under this share of its rate overshoots
	measureSpan  time.Duration // over at least this long
}

// defaultTuning is the tuning of AdaptiveRate.
var defaultTuning = tuning{
	cutFactor:    0.85,
	plateau:      0.95,
	inFlightCut:  0.97,
	minRest:      500 * time.Millisecond,
	maxRest:      4 * time.Second,
	firstRest:    3 * time.Second,
	convexGain:   0.1,
	convexDouble: 250 * time.Millisecond,
	slowFloor:    2.0,
	probeSpread:  4,
	overshoot:    0.7,
	measureSpan:  250 * time.Millisecond,
}

// adaptive is AdaptiveRate's state. The rate follows a curve of the time
// the limiter was busy since the last cut: from the cut rate up to the
// rest, a little under the rate of the last refusal (concave), level there,
// then up (convex: the probe); or, in slow start, doubling.
type adaptive struct {
	tune    tuning
	mu      sync.Mutex
	changed chan struct{} // closed when a turn may come sooner than said
	pace    pace          // rate 0: unpaced

	// The curve since the last cut.
	wmax      float64       // the rate at the last refusal
	x0        float64       // ln(rate/wmax) right after the cut
	rest      time.Duration // the regrowth's length, learnt from how probes fare
	cutAt     time.Time     // attempts sent before it were sent at an older rate
	firstCut  time.Time     // the end of the unpaced start: answers to attempts sent before measure nothing
	eventRate float64       // the rate before the cut: the in-flight cuts stop at a share of it
	grown     time.Duration // busy time since the cut: the curve's clock
	tick      time.Time     // when grown was last advanced
	busyUntil time.Time     // attempts wait for turns until then
	busySince time.Time     // and have waited without a break since then

	// Slow start: the rate doubles until refused, a step at
	// a time: a step lasts slowDouble, or one interval at its rate when
	// that is longer, and ends once an attempt sent at its rate was
	// accepted.
	slow       bool
	slowStep   time.Time // when the step under way began
	slowBusy   time.Duration
	slowOK     bool      // an attempt sent during the step was accepted
	slowSeen   int       // accepted answers since slow start began
	slowStruck bool      // it was refused once already
	slowEnd    time.Time // when the last slow start ended

	// A streak: a cut with nothing accepted since. A refusal then is a
	// storm: attempts are held but for one probe at a time.
	streak   bool
	storm    bool
	stormAt  time.Time
	calmAt   time.Time     // when the last long storm ended
	share    float64       // what the service accepted of this client in the second before the storm; 0: unknown
	probeGap time.Duration // the wait before the next probe
	probeAt  time.Time
	probeOut time.Time // when the probe under way left; zero: none

	first      time.Time      // the first turn given
	accepted   acceptedWindow // accepted answers of the trailing second
	signalRate float64        // the rate when waiters were last woken for a rise

	debug func(format string, args ...any) // the tests' window on its decisions
}

func (a *adaptive) Take(_ context.Context, _ Turn) (time.Duration, error) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.first.IsZero() {
		a.first, a.tick = now, now
	}
	a.advance(now)
	if a.storm {
		a.busyUntil = now.Add(busyFor)
		return a.probeTurn(now), nil
	}
	if a.pace.rate == 0 {
		return 0, nil
	}
	d := a.pace.take(now)
	if d > 0 {
		if now.After(a.busyUntil) {
			a.busySince = now
		}
		a.busyUntil = now.Add(max(busyFor, 2*a.pace.interval()))
	}
	return d, nil
}

// probeTurn gives the probe's turn during a storm, or says how long until
// it.
func (a *adaptive) probeTurn(now time.Time) time.Duration {
	if !a.probeOut.IsZero() {
		if lost := a.probeOut.Add(probeTimeout); now.Before(lost) {
			return lost.Sub(now) // its answer wakes the waiters sooner
		}
		a.probeOut = time.Time{}
	}
	if d := a.probeAt.Sub(now); d > 0 {
		return d
	}
	a.probeOut = now
	return 0
}

func (a *adaptive) Changed() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.changed
}

func (a *adaptive) Observe(_ Turn, o Outcome) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := o.Received
	if now.IsZero() {
		now = time.Now()
	}
	a.advance(now)
	switch {
	case o.Kind == OutcomeAccepted:
		a.accepted.add(now)
		a.streak = false
		if a.slow {
			a.slowSeen++
			if !o.Sent.Before(a.slowStep) {
				a.slowOK = true
			}
			if m := a.tune.cutFactor * float64(a.accepted.count(now)); !o.Sent.After(a.firstCut) && m > a.pace.rate {
				// An answer to the unpaced start that came after the first
				// refusal: the start's share is larger than it seemed.
				a.setRate(m)
			}
		}
		if a.storm {
			a.endStorm(now)
		}
	case o.Kind == OutcomeRefused && !(o.asked && o.RetryAfter == 0):
		a.onRefused(now, o)
	default:
		// No answer to learn from, or a 429 that asks for no wait at all:
		// the service is ready again at once. A probe's turn is free again.
		if a.isProbe(o) {
			a.probeOut, a.probeAt = time.Time{}, now.Add(a.probeGap)
			a.signal()
		}
	}
}

// isProbe reports whether o is the answer to the storm's probe under way.
func (a *adaptive) isProbe(o Outcome) bool {
	return a.storm && !a.probeOut.IsZero() && !o.Sent.Before(a.probeOut)
}

// onRefused learns from a 429.
func (a *adaptive) onRefused(now time.Time, o Outcome) {
	switch {
	case a.isProbe(o):
		a.probeRefused(now, o.RetryAfter)
	case a.storm:
		// An attempt sent before the storm: nothing new.
	case a.pace.rate > 0 && o.Sent.Before(a.cutAt.Add(2*a.pace.interval())):
		// Sent before the cut, or within two intervals after it: the
		// service still answers the overshoot the cut was for (a sliding
		// window remembers it for a whole window).
		a.inFlight(now)
	case a.streak:
		a.startStorm(now, o.RetryAfter)
	default:
		a.cut(now)
	}
}

// inFlight learns from the refusal of an attempt sent before the last cut,
// at the older rate: the more a client sends, the more such refusals it
// meets, and the more it is cut.
func (a *adaptive) inFlight(now time.Time) {
	r := max(a.pace.rate*a.tune.inFlightCut, deepestCut*a.eventRate)
	if a.debug != nil {
		a.debug("in-flight cut %.2f -> %.2f", a.pace.rate, r)
	}
	switch {
	case r >= a.pace.rate:
	case a.slow:
		a.setRate(max(r, a.tune.slowFloor))
	default:
		a.anchor(now, r)
	}
}

// cut is a new refusal: the rate falls, and a streak starts.
//
// How long the regrowth after a cut lasts is learnt from the probes. A
// refusal at about the rate of the previous one says the client is at its
// share: it probes less often (the regrowth lasts half as long again, up to
// a.tune.maxRest), so that many clients on a small limit are refused rarely. A
// refusal well above it says the client grew into room that was free: it
// probes sooner (half as long, down to a.tune.minRest).
func (a *adaptive) cut(now time.Time) {
	rate := a.pace.rate
	switch {
	case rate == 0:
		a.firstCut = now
		// The first refusal. A client that ran for a second or more
		// before it starts from what the service accepted of it over the
		// trailing second. A young one learnt nothing but its share of the
		// service's burst, which is chance: it finds its rate by slow
		// start, from the same point as every client that starts with it,
		// so that clients started together stay even.
		if m := float64(a.accepted.count(now)); m >= measureMin && now.Sub(a.first) >= time.Second {
			a.wmax = m
			a.anchor(now, a.tune.cutFactor*m)
		} else {
			a.startSlow(now, max(a.tune.cutFactor*m, a.tune.slowFloor))
		}
	case a.slow && a.slowSeen < slowLearn && !a.slowStruck:
		// A slow start that has seen almost nothing accepted has learnt
		// no rate from its first refusal (a neighbour's doing, maybe): it
		// goes on, a step lower. The next refusal ends it.
		a.slowStruck = true
		a.slowStep, a.slowBusy, a.slowOK = now, 0, false
		a.setRate(a.tune.cutFactor * rate)
	case a.slow:
		a.slow, a.slowEnd = false, now
		if m, ok := a.measured(now); ok && m < a.tune.overshoot*rate {
			rate = m // it doubled far past its room: the service took that much
		}
		a.wmax = rate
		a.anchor(now, a.tune.cutFactor*rate)
	default:
		if m, ok := a.measured(now); ok && m < a.tune.overshoot*rate {
			// The service took far less of this client lately, while it
			// had attempts waiting: that is its room now.
			rate = m
		}
		switch probing := a.grown > a.rest+a.rest/2; {
		case !probing:
			// Refused while it rested under its last rate: a neighbour's
			// probe, or a limit that fell. The key is crowded: rest longer.
			a.rest = min(a.rest*3/2, a.tune.maxRest)
		case rate >= 1.5*a.wmax:
			a.rest = max(a.rest/2, a.tune.minRest) // it grew into room that was free
		default:
			a.rest = min(a.rest*6/5, a.tune.maxRest) // it is at its share
		}
		if rate < a.wmax {
			a.wmax = rate * (1 + a.tune.cutFactor) / 2 // still falling: leave room for others
		} else {
			a.wmax = rate
		}
		a.anchor(now, a.tune.cutFactor*rate)
	}
	a.eventRate = max(rate, a.pace.rate)
	a.cutAt, a.streak = now, true
	if next := now.Add(a.pace.interval()); a.pace.tat.Before(next) {
		a.pace.tat = next // the service has no room right now
	}
	if a.debug != nil {
		a.debug("cut from %.2f to %.2f wmax %.2f slow %v rest %v", rate, a.pace.rate, a.wmax, a.slow, a.rest)
	}
}

// measured is the rate at which the service accepted this client's
// attempts lately: over the last ten intervals at its rate (at least
// measureSpan, at most a second), or the part of them since its first
// refusal or its last long storm. A window that short lags little behind
// a rate that climbs. ok is false when that part is too short, or holds
// too few answers, to tell.
func (a *adaptive) measured(now time.Time) (rate float64, ok bool) {
	from := now.Add(-min(max(a.tune.measureSpan, 10*a.pace.interval()), time.Second))
	for _, t := range []time.Time{a.firstCut, a.calmAt} {
		if t.After(from) {
			from = t
		}
	}
	span := now.Sub(from)
	n := a.accepted.since(from, now)
	if span < a.tune.measureSpan || n < measureMin {
		return 0, false
	}
	return float64(n) / span.Seconds(), true
}

// startStorm holds every attempt but a probe: a refusal came after a cut
// with nothing accepted since. The rate stays where the cut left it.
func (a *adaptive) startStorm(now time.Time, retryAfter time.Duration) {
	a.share, _ = a.measured(now)
	a.storm, a.stormAt, a.cutAt = true, now, now
	gap := max(a.pace.interval(), firstProbe)
	if retryAfter > 0 {
		gap = min(gap, retryAfter)
	}
	a.probeGap, a.probeAt, a.probeOut = gap, now.Add(gap), time.Time{}
	if a.debug != nil {
		a.debug("storm at rate %.2f, probe in %v", a.pace.rate, gap)
	}
}

// probeRefused spaces the next probe further, up to once per Retry-After
// (or per second when none is given); a long storm, once per tenth of its
// length.
func (a *adaptive) probeRefused(now time.Time, retryAfter time.Duration) {
	ceiling := max(retryAfter, stormProbe, now.Sub(a.stormAt)/10)
	a.probeGap = min(a.probeGap*time.Duration(a.tune.probeSpread), ceiling)
	a.probeOut, a.probeAt = time.Time{}, now.Add(a.probeGap)
	a.signal()
	if a.debug != nil {
		a.debug("probe refused after %v of storm, next in %v", now.Sub(a.stormAt), a.probeGap)
	}
}

// endStorm resumes pacing once the service accepts again, at the rate the
// cut left (or in the slow start under way), or under what the service
// took of this client in the second before the storm when that was less:
// a storm, however long, teaches no rate. The probe that ended it took a
// turn.
func (a *adaptive) endStorm(now time.Time) {
	if a.debug != nil {
		a.debug("storm ends after %v, rate %.2f slow %v", now.Sub(a.stormAt), a.pace.rate, a.slow)
	}
	if now.Sub(a.stormAt) >= longStorm {
		a.calmAt = now // a long storm measures nothing
	}
	a.storm, a.probeOut = false, time.Time{}
	if a.share > 0 && a.tune.cutFactor*a.share < a.pace.rate && !a.slow {
		// The service took no more than that of this client before the
		// storm: where the client stood, the storm did not say.
		a.anchor(now, a.tune.cutFactor*a.share)
	}
	a.pace.tat = now.Add(a.pace.interval())
	a.tick = now
	a.signal()
}

// startSlow begins a slow start at rate.
func (a *adaptive) startSlow(now time.Time, rate float64) {
	a.slow, a.slowStep, a.slowBusy, a.slowOK, a.slowSeen, a.slowStruck, a.tick = true, now, 0, false, 0, false, now
	a.setRate(rate)
}

// anchor starts the curve at rate, now, towards the rest under wmax.
func (a *adaptive) anchor(now time.Time, rate float64) {
	if a.wmax < rate {
		a.wmax = rate
	}
	a.x0 = math.Log(rate / a.wmax)
	if a.rest == 0 {
		a.rest = min(max(a.tune.minRest, time.Duration(restAttempts/rate*float64(time.Second))), a.tune.firstRest)
	}
	a.grown, a.tick = 0, now
	a.setRate(rate)
}

// advance moves the curve's clock by the time the limiter was busy since
// the last tick, and sets the rate the curve gives there.
func (a *adaptive) advance(now time.Time) {
	from := a.tick
	a.tick = now
	if a.storm || a.pace.rate == 0 || !now.After(from) {
		return
	}
	end := now
	if a.busyUntil.Before(now) {
		end = a.busyUntil
	}
	busy := end.Sub(from)
	if busy <= 0 {
		return
	}
	a.grown += busy
	if a.slow {
		a.slowBusy += busy
		if a.slowOK && a.slowBusy >= max(slowDouble, a.pace.interval()) {
			a.slowStep, a.slowBusy, a.slowOK = now, 0, false
			a.setRate(2 * a.pace.rate)
		}
		return
	}
	a.setRate(a.wmax * math.Exp(a.curve(a.grown)))
}

// curve is ln(rate/wmax) after busy time t since the cut: a cubic from x0
// up to the rest, a little under the rate of the last refusal, so that
// clients sharing a key rest under its limit together; level there for
// half as long; then growth whose speed doubles every a.tune.convexDouble: the
// probe.
func (a *adaptive) curve(t time.Duration) float64 {
	k, level := a.rest, math.Log(a.tune.plateau)
	switch {
	case t <= k:
		if a.x0 >= level {
			return level
		}
		f := 1 - float64(t)/float64(k)
		return level + (a.x0-level)*f*f*f
	case t <= k+k/2:
		return level
	}
	s := float64(t-k-k/2) / float64(a.tune.convexDouble)
	if speed := a.tune.convexGain * math.Exp2(s); speed <= maxGrowth {
		return level + a.tune.convexGain*a.tune.convexDouble.Seconds()/math.Ln2*(math.Exp2(s)-1)
	}
	// Past maxGrowth the speed stays there: a limit that answers late (a
	// fixed window) is not overshot many times over before it refuses.
	sMax := math.Log2(maxGrowth / a.tune.convexGain)
	reached := a.tune.convexGain * a.tune.convexDouble.Seconds() / math.Ln2 * (math.Exp2(sMax) - 1)
	return level + reached + maxGrowth*(s-sMax)*a.tune.convexDouble.Seconds()
}

// setRate sets the pace's rate, within the pace's bounds. A turn that was
// far off at a lower rate comes sooner, and a rise of a quarter or more
// wakes the attempt waiting for it.
func (a *adaptive) setRate(rate float64) {
	rate = min(max(rate, minAdaptiveRate), maxRate)
	if rate > a.pace.rate && a.pace.rate > 0 {
		if sooner := a.tick.Add(time.Duration(float64(time.Second) / rate)); a.pace.tat.After(sooner) {
			a.pace.tat = sooner
		}
	}
	a.pace.rate = rate
	switch {
	case rate < a.signalRate:
		a.signalRate = rate
	case rate >= 1.25*a.signalRate:
		a.signalRate = rate
		a.signal()
	}
}

// minAdaptiveRate keeps the pace's interval finite (about 17 minutes): it
// is no floor that several clients would multiply.
const minAdaptiveRate = 1e-3

func (a *adaptive) signal() {
	close(a.changed)
	a.changed = make(chan struct{})
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

// since is the number of accepted answers from from to now, within the
// trailing second, to the slot.
func (w *acceptedWindow) since(from, now time.Time) int {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	total := 0
	for _, s := range w.slots {
		if s.at > n-int64(slotsPerWindow) && s.at <= n && s.at >= lo {
			total += s.count
		}
	}
	return total
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
