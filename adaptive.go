package convo

import (
	"context"
	"sync"
	"time"
)

// AdaptiveRate is the default RateLimiter: a client of its own that learns
// the rate the service accepts from the service's answers alone, so that it
// works with any kind of limit (token bucket, fixed or sliding window) and
// beside any number of other clients on the same key, which it knows
// nothing of.
//
// Until the service first refuses an attempt for its rate (429) it does not
// pace, but starts with four attempts out at once and one more for each
// one accepted, doubling with each round trip: a few round trips reach any
// rate, and a small limit meets a few attempts rather than every call under
// way at once. After a first round wholly accepted, each round that fills
// its window waits for all its answers before the next, so that the
// refusals at its end are heard before a round twice as large goes. From
// the first refusal on it paces every attempt of the client:
//
//   - A refusal cuts the rate by 15 % (once the start is over, by half an
//     attempt a second at least for a client that sends a few, by half at
//     most) — from what the service took of the client over the trailing
//     second, when that is less than it sent (the time it held its
//     attempts in a storm, below, left out: a client that comes back
//     from one later than its neighbours has not a smaller share), unless
//     it sent under half its rate over that second: what the service took
//     of calls that sat out an earlier refusal measures their absence, not
//     the client's room — and
//     each further refusal of an attempt already under way by 3 % more:
//     a client that sends more is refused more, and cut more, so clients
//     that share a key converge to even shares without speaking to each
//     other. A probe's refusal under a window limit, at hundreds of
//     attempts a second, cuts from what the service took of the client
//     whenever that is less than the probe's rate: a window lets every
//     attempt through until its count is spent, so it refuses only when
//     the probe has grown far past it. A refusal while the service still
//     takes as much of the client as it sends, and as at its last
//     refusal, cuts nothing: it is a window limit still full of a burst
//     the client has already cut for. A slow start that grew into a
//     window limit, which lets every attempt through until its count is
//     spent, measured only the rate it sent at: when a second attempt
//     already under way is refused with nothing accepted since, the rate
//     rests at what the service took of the client over the trailing
//     second instead, the time its calls sat out counted in — the
//     window's count, or the client's share of it.
//   - After a cut the next attempt goes alone, and the others wait for its
//     answer: a limit with no room left (a window whose count is spent)
//     refuses one attempt a round trip, not every attempt the pace sends
//     before the client hears of the first refusal, each of which would
//     wait out a Retry-After of a second or more. A check refused at once
//     is followed by another, twice as far from the cut, so that a window
//     whose count is spent is read as a storm (below) before its refusals
//     have taken every call the client runs at once. A client that sends
//     200 attempts a second or more has about as many in flight as it runs
//     calls, and an overrun refuses most of them at once, each to sit out
//     a Retry-After of a second or more: when those that sit out leave it
//     a third of the most it had out or fewer, its check (or a storm's
//     probe) waits for the next whole second of the clock, where a window
//     turns, or for the first of them to be back, if sooner, rather than
//     spend the calls it has left on a window that has no room yet (not
//     in a slow start, which clients started together end together).
//   - Between refusals the rate grows by time: back to a little under the rate
//     of the last refusal (a whole attempt a second under it, at once, for a
//     client refused at 5 a second or less), level there, then faster and
//     faster, so that room that comes free (a neighbour that finished, a limit
//     that rose) is taken within seconds. How long it rests before it probes
//     upwards is learnt: a client refused each time it passes its last rate is
//     at its share, and probes more rarely (it regrows over up to 1 s, and
//     stays level half as long again), so that many clients on a small limit
//     are refused rarely while room a neighbour leaves is still taken within
//     about three seconds; none keeps a floor that many clients would multiply.
//     Under a window limit (one that refuses the check after a cut too) the
//     regrowth's clock runs slower for a client last refused at over 25 a
//     second, the more so the higher its rate up to about 90 (half speed
//     there), then steeply back to full speed at 111, so that of two
//     clients a window refuses at the same moments the smaller probes
//     first and the two draw closer; a token bucket refuses each client in
//     proportion to what it sends, and the clock keeps its speed.
//     A first refusal while it rests under its last rate — a neighbour's probe,
//     which cuts the neighbour too — cuts the rate but not how soon it probes,
//     nor where it rests unless that is well above what the service took of it;
//     a second in a row (a limit that fell) lowers both. The rate grows only
//     while attempts wait for their turn.
//   - A storm — refusals with nothing accepted between them, as when the
//     service is down or another process spends the whole budget — holds
//     every attempt but one probe, sent ever more rarely (twice as far
//     apart each time), at most once per Retry-After. Probes up to a
//     second apart, and more than ten of the client's intervals, of a
//     client that sends under 200 attempts a second fall on the clock's
//     grid — multiples of a power-of-two fraction of a second — where a
//     window limit's windows turn: every client on the key finds the turn
//     at the same instant, none ahead of the others. The probe, the
//     attempt most likely refused, goes to the call with the most of its
//     retries left (a first attempt, else the retry refused least), not
//     the retry refused most, so that no call spends its retries on
//     probes. A storm teaches no rate, nor that the key is crowded: once
//     the service accepts again the client goes on at the rate it had
//     before — after a storm of a second or more, before the refusal that
//     began it, which measured only the storm's first moments — within a
//     moment, and regrows from there at its quickest. A client whose slow
//     start such a storm held before it had grown from its floor (a
//     neighbour took the key from its first moment) had no rate before:
//     it goes on with its slow start, the fastest growth it has. So does
//     one a storm of a second and a half or more held, however it had
//     grown: what it took before a neighbour filled the key is no
//     measure of the room the neighbour leaves.
//
// Parked attempts leave at the pace, one by one, never as a burst. Each
// call to AdaptiveRate returns a new limiter; one limiter given to several
// clients learns for them all, as one client.
func AdaptiveRate() RateLimiter {
	return &adaptive{changed: make(chan struct{})}
}

// The adaptive limiter's constants (see AdaptiveRate).
const (
	cutFactor      = 0.85                    // a refusal cuts the rate to this share
	plateau        = 0.95                    // the regrowth rests at this share of the rate of the last refusal
	inFlightCut    = 0.97                    // each refusal of an attempt sent before the cut, on top
	minRest        = 500 * time.Millisecond  // the shortest regrowth to the rest, and half as long at rest
	maxRest        = 1000 * time.Millisecond // the longest (see learnRest)
	firstRest      = 3 * time.Second         // the longest first regrowth, before any is learnt
	convexGain     = 0.1                     // the probe's first growth, in e-folds a second
	convexDouble   = 250 * time.Millisecond  // which doubles every this long
	slowFloor      = 2.0                     // slow start begins at no less than this many attempts a second
	probeSpread    = 2                       // each refused probe spreads the next this much further (see probeRefused)
	probeIntervals = 10                      // and at least this many of the client's intervals
	measureSpan    = 250 * time.Millisecond  // a rate is measured over at least this long
	deepestCut     = 0.7                     // one refusal and those in flight cut at most to this share
	slowTick       = 100 * time.Millisecond  // slow start grows the rate by slowGrowth every this long of demand
	slowGrowth     = 1.3                     // see slowTick; a step that must last longer grows more (see slowStepGrowth)
	firstProbe     = 10 * time.Millisecond   // a storm's first probe comes no sooner than this
	stormProbe     = time.Second             // a storm is probed at most once per this (or its Retry-After)
	probeTimeout   = 5 * time.Second         // a probe not answered by then is taken as lost
	busyFor        = 50 * time.Millisecond   // an attempt that waited keeps the limiter busy this long
	measureMin     = 3                       // accepted answers that measure a rate
	maxGrowth      = 2.0                     // the probe grows at most this many e-folds a second (×7.4)
	longStorm      = time.Second             // a storm this long measures nothing: the measure starts after it
	starvingStorm  = 1500 * time.Millisecond // a slow start held by a storm this long goes on after it, however it had grown (see endStorm)
	startWindow    = 4                       // attempts out at once before any answer
	answerPoll     = 50 * time.Millisecond   // an attempt that waits for an answer (the start's, a check's, a probe's) asks again after this, unless it comes
	restAttempts   = 4                       // a slow client regrows over at least this many of its attempts
	stallRefusals  = 2                       // refusals in flight after a slow start's end, nothing accepted, that say a window's count is spent (see windowSpent)
)

// The adaptive limiter's least steps for a client that sends a few attempts a
// second (see cutFrom and plateauUnder).
const (
	minCutStep    = 0.5 // a refusal cuts at least this many attempts a second
	minRestGap    = 0.5 // the regrowth rests at least this many attempts a second under the last refusal
	fewRestGap    = 1.0 // or this many, when that refusal came at fewRate or less
	fewRate       = 5.0
	lowestPlateau = 0.6 // but at no less than this share of it
)

// adaptive is AdaptiveRate's state. The rate follows a curve of the time
// the limiter was busy since the last cut: from the cut rate up to the
// rest, a little under the rate of the last refusal (concave), level there,
// then up (convex: the probe); or, in slow start, growing by a steady
// factor per tenth of a second.
type adaptive struct {
	mu      sync.Mutex
	changed chan struct{} // closed when a turn may come sooner than said
	pace    pace          // rate 0: unpaced
	shared  sharedQueue   // the clients' one queue

	// The curve since the last cut.
	wmax      float64       // the rate at the last refusal
	x0        float64       // ln(rate/wmax) right after the cut
	rest      time.Duration // the regrowth's length, learnt from how probes fare
	cutAt     time.Time     // attempts sent before it were sent at an older rate
	firstCut  time.Time     // the end of the start: answers to attempts sent before measure nothing
	eventRate float64       // the rate before the cut: the in-flight cuts stop at a share of it
	grown     time.Duration // busy time since the cut: the curve's clock
	tick      time.Time     // when grown was last advanced
	busyUntil time.Time     // attempts wait for turns until then

	// Slow start: the rate grows until refused, a step at a time: a
	// step lasts slowTick, or one interval at its rate when that is
	// longer, and ends once an attempt sent at its rate was accepted
	// (see slowStepGrowth).
	slow       bool
	slowStep   time.Time // when the step under way began
	slowBusy   time.Duration
	slowOK     bool    // an attempt sent during the step was accepted
	slowStruck bool    // it was refused once already
	slowFrom   float64 // the rate it began at

	// After the cut that ended a slow start: refusals of attempts sent
	// before it, with nothing accepted since (see windowSpent).
	slowEnded    bool
	stallRefused int

	// A streak: a cut with nothing accepted since. A refusal then is a
	// storm: attempts are held but for one probe at a time.
	streak   bool
	storm    bool
	stormAt  time.Time
	calmAt   time.Time     // when the last long storm ended
	share    float64       // what the service accepted of this client in the second (or two) before the storm; 0: unknown
	probeGap time.Duration // the wait before the next probe
	probeAt  time.Time
	probeOut time.Time // when the probe under way left; zero: none

	// A check: after a cut the next attempt goes alone, and the others wait
	// for its answer (see cut).
	checking bool      // the next turn is a check
	checkOut time.Time // when the check under way left; zero: none

	// forgave: the last cut was a refusal while resting that kept the
	// regrowth's target and length (see cut).
	forgave bool

	// The calls the client has out, and those that sit out a refusal's
	// Retry-After: a check or a probe waits for a window's turn rather than
	// spend the last of them (see keepWait).
	calls    callsOut
	keepTill time.Time // the wait under way; zero: none

	// Where the rate and the regrowth's target stood before the last cut:
	// a long storm undoes the cut that began it (see endStorm).
	beforeCut struct{ rate, wmax float64 }

	startOut      int       // attempts of the start not yet answered
	startAccepted int       // answers the start had accepted
	startFull     bool      // the start's round filled its window: the next waits for its answers
	startAnswer   time.Time // the first answer to the full round; zero: none yet

	first      time.Time   // the first turn given
	accepted   countWindow // accepted answers of the trailing second
	given      countWindow // turns given over the trailing second
	held       heldSpans   // the storms of the trailing two seconds, which measure nothing
	paced      lowWindow   // the lowest rate turns were given at, over the trailing second
	signalRate float64     // the rate when waiters were last woken for a rise
	windowed   bool        // the last check was refused: a window limit (see clockSpeed and overranWindow)

}

func (a *adaptive) Take(_ context.Context, _ Turn) (time.Duration, error) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.first.IsZero() {
		a.first, a.tick = now, now
	}
	a.advance(now)
	d := a.turn(now)
	if d == 0 {
		a.calls.gave()
		a.given.add(now)
	}
	return d, nil
}

// turn gives the turn at now (0), or says how long until one may come.
func (a *adaptive) turn(now time.Time) time.Duration {
	if a.storm {
		a.busyUntil = now.Add(busyFor)
		if d := a.keepWait(now); d > 0 {
			return d
		}
		return a.probeTurn(now)
	}
	if a.pace.rate == 0 {
		return a.startTurn(now)
	}
	if d := answerWait(&a.checkOut, now); d > 0 {
		a.busyUntil = now.Add(busyFor)
		return d
	}
	if a.checking {
		if d := a.keepWait(now); d > 0 {
			return d
		}
	}
	d := a.pace.take(now)
	if d == 0 {
		a.paced.add(now, a.pace.rate)
		if a.checking {
			a.checking, a.checkOut = false, now
		}
	}
	if d > 0 {
		a.busyUntil = now.Add(max(busyFor, 2*a.pace.interval()))
	}
	return d
}

// startTurn gives a turn before the service first refused, or says how
// long until an answer may free one: at most startWindow attempts out at
// once, one more for each accepted answer, so that the start doubles its
// attempts with each round trip — a few round trips to any rate — without
// sending a whole burst of the calls under way into a small limit.
//
// Once a whole round was accepted, the start goes in rounds: a round that
// fills the window waits for the answers to all of it (or for answerPoll
// after the first, so that one slow answer holds it no longer) before the
// next. Answers to one round come close together, and turned into turns
// one by one, the accepted answers among them sent a round twice as large
// into a window whose count the refusals behind them said was spent: a
// lone client under a fixed window of 10 a second met 2 to 14 refusals in
// its first 50 ms, as the order of its answers fell, and 23–40 in its 200
// calls (over the 38 its test allows in 6 of 300 runs); in rounds, 24–27
// in 300 runs. The first round's answers free turns as they come: its
// refusals are the lottery of a burst shared with the clients started
// together, and the few attempts more they let through a token bucket that
// refills every millisecond measure a share to begin the slow start from;
// held, four clients under a token bucket of 1,000 a second overran their
// time bound in 22 of 200 runs, against none.
func (a *adaptive) startTurn(now time.Time) time.Duration {
	if a.startFull {
		if a.startOut > 0 && (a.startAnswer.IsZero() || now.Before(a.startAnswer.Add(answerPoll))) {
			return answerPoll // the round's last answer wakes the waiter sooner
		}
		a.startFull, a.startAnswer = false, time.Time{}
	}
	window := startWindow + a.startAccepted
	if a.startOut >= window {
		return answerPoll // an answer wakes the waiter sooner
	}
	a.startOut++
	a.startFull = a.startAccepted >= startWindow && a.startOut >= window
	return 0
}

// startAnswered counts the answer to an attempt of the start.
func (a *adaptive) startAnswered(now time.Time, o Outcome) {
	a.startOut = max(a.startOut-1, 0)
	if o.Kind == OutcomeAccepted {
		a.startAccepted++
	}
	if a.startFull && a.startAnswer.IsZero() {
		a.startAnswer = now
	}
	a.signal()
}

// answerWait is how long an attempt waits before it asks again while the
// answer to the attempt that left at *out (a cut's check, a storm's probe)
// is not in: answerPoll at most, though the answer wakes the waiters
// sooner, so that a call with a short deadline is not given up as if the
// answer would take as long as it may before it is taken as lost
// (probeTimeout). 0 when none is out, or when it is lost, which clears
// *out.
func answerWait(out *time.Time, now time.Time) time.Duration {
	if out.IsZero() {
		return 0
	}
	if lost := out.Add(probeTimeout); now.Before(lost) {
		return min(lost.Sub(now), answerPoll)
	}
	*out = time.Time{}
	return 0
}

// checkAnswered ends the hold of a check: the next turns come at the pace,
// from now on, not as a burst of those the hold kept back.
func (a *adaptive) checkAnswered(now time.Time) {
	a.checkOut = time.Time{}
	a.pace.noSooner(now)
	a.signal()
}

// probeTurn gives the probe's turn during a storm, or says how long until
// it; while the probe is out, how long until a waiter asks again (see
// answerWait).
func (a *adaptive) probeTurn(now time.Time) time.Duration {
	if d := answerWait(&a.probeOut, now); d > 0 {
		return d
	}
	if d := a.probeAt.Sub(now); d > 0 {
		return d
	}
	a.probeOut = now
	return 0
}

func (a *adaptive) queue() *pacer { return a.shared.get(a) }

// probing reports whether the limiter holds every attempt but a storm's
// probe: the client's queue then gives the turn to the attempt with the
// most of its retry budget left, not the retry refused most. The queue
// asks with its own lock held; the limiter's lock is taken inside it, and
// never the other way round (nothing the limiter does under its lock
// calls into the queue).
func (a *adaptive) probing() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.storm
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
	a.calls.answered()
	if a.pace.rate == 0 {
		a.startAnswered(now, o)
	}
	check := a.isCheck(o)
	if check {
		a.checkAnswered(now)
		a.learnLimitKind(o)
	}
	switch {
	case o.Kind == OutcomeAccepted:
		a.accepted.add(now)
		a.streak = false
		if a.slow {
			if !o.Sent.Before(a.slowStep) {
				a.slowOK = true
			}
			if m := cutFactor * float64(a.accepted.count(now)); !o.Sent.After(a.firstCut) && m > a.pace.rate {
				// An answer to an attempt of the start that came after the first
				// refusal: the start's share is larger than it seemed.
				a.setRate(m)
			}
		}
		if a.storm {
			a.endStorm(now)
		}
	case o.Kind == OutcomeRefused && !(o.asked && o.RetryAfter == 0):
		a.calls.sitOut(now, o.RetryAfter)
		a.onRefused(now, o, check)
	default:
		// No answer to learn from, or a 429 that asks for no wait at all:
		// the service is ready again at once. A probe's turn is free again.
		if a.isProbe(o) {
			a.probeOut, a.probeAt = time.Time{}, a.nextProbe(now, a.probeGap)
			a.signal()
		}
	}
}

// isCheck reports whether o is the answer to the check under way: no other
// attempt was sent after it.
func (a *adaptive) isCheck(o Outcome) bool {
	return !a.checkOut.IsZero() && !o.Sent.Before(a.checkOut)
}

// isProbe reports whether o is the answer to the storm's probe under way.
func (a *adaptive) isProbe(o Outcome) bool {
	return a.storm && !a.probeOut.IsZero() && !o.Sent.Before(a.probeOut)
}

// learnLimitKind learns from the answer o to a check (see cut) whether
// the limit behaves as a window: a window whose count is spent refuses
// every attempt until it turns, so its checks are refused, while a token
// bucket has room again an interval after a cut, and passes them. A
// window's clients slow their clock by their rate (see clockSpeed), and at
// hundreds a second cut a refused probe from what the service took (see
// overranWindow); a token bucket's need not, since it refuses each client
// in proportion to what it sends.
func (a *adaptive) learnLimitKind(o Outcome) {
	switch o.Kind {
	case OutcomeAccepted:
		a.windowed = false
	case OutcomeRefused:
		a.windowed = true
	}
}

// onRefused learns from a 429; check says it refused the check under way.
func (a *adaptive) onRefused(now time.Time, o Outcome, check bool) {
	switch {
	case a.isProbe(o):
		a.probeRefused(now, o.RetryAfter)
	case a.storm:
		// An attempt sent before the storm: nothing new.
	case a.pace.rate > 0 && !o.Sent.After(a.cutAt.Add(a.afterCut())):
		a.inFlight(now)
		// A check sent so soon after the cut belongs to it, as the attempts
		// in flight do: the next attempt goes alone again, and later.
		a.checking = a.checking || check
		if check {
			a.spaceCheck(now)
		}
	case a.streak:
		a.startStorm(now, o.RetryAfter)
	default:
		a.cut(now)
	}
}
