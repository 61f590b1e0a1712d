package convo

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/convoapi/convo-go/internal/epoch"
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

// spaceCheck puts the next check, after a check refused within the cut's
// moment, as far from this answer as the answer is from the cut (an
// interval at least): twice as far from the cut each time. A window whose
// count is spent refuses every check until it turns. Sent back to back,
// each as the last one's answer came, the checks stayed within the cut's
// moment and spent every call a client runs at once, each then sitting
// out a Retry-After of a second, while teaching nothing: a lone client
// under a fixed window of 100 a second with four calls at once met four
// refusals in 12 ms, took the first for a slow start's chance refusal, and
// overran the window again a second later. Spaced, the last check falls
// after the cut's moment and starts a storm, which ends the slow start
// under what the service took: 13.1 s for its 1,000 calls, against 13.7 s
// (its bound 13.5 s).
func (a *adaptive) spaceCheck(now time.Time) {
	a.pace.noSooner(now.Add(max(now.Sub(a.cutAt), a.pace.interval())))
}

// keepWait is how long a check or a storm's probe waits so that the client
// keeps calls to send when a window's count comes back: 0 unless the calls
// that sit out a refusal's Retry-After leave it a third or less of the most
// it had out at once (keepShare). Each refused call sits out a whole second
// or more, though a fixed window turns on the next whole second, and a
// sliding window frees room as its oldest entries age out. A client that
// sends hundreds a second has about as many attempts in flight as it runs
// calls, and one overrun refuses most of them at once; the check and the
// probes that followed, each refused in turn, spent the rest, and the
// client sent nothing for a second while the window had room again within
// a tenth of it. The wait ends at the next whole second of the clock, or
// when the first refused call may be sent again, if sooner; it is taken
// once for each such spell, and its check or probe goes then, whatever it
// finds. Over the joiner's and the leaver's ranges, a joiner and the
// incumbent each got 60 % of an even share in 76–77 of 90 runs (64–71
// before), and the clients a neighbour left used 80 % of the rate in
// 150–153 of 180 (136–146); the fleet matrix was unchanged within its
// spread.
//
// Not in a slow start: clients started together overrun a window
// together, and held to the same whole second, three of four under a
// sliding window of 1,000 a second sent their checks into it at once while
// the fourth took the room (Jain's index under 0.9 in 1–3 of 80 runs of
// that fleet cell, none without the wait). Nor for a client that sends
// under gridMaxRate attempts a second: it has an attempt or two in flight,
// and its probes fall on the clock's grid already (see nextProbe); held
// down to 50 a second, or at every rate, fleets broke a bound in 27 and 58
// of 2,160 runs against 12–25.
func (a *adaptive) keepWait(now time.Time) time.Duration {
	if a.slow || a.pace.rate < gridMaxRate || a.calls.most < 2 {
		return 0
	}
	sitting, back := a.calls.sitting(now)
	if free := a.calls.most - sitting; free*keepShare > a.calls.most {
		a.keepTill = time.Time{}
		return 0
	}
	if a.keepTill.IsZero() {
		a.keepTill = onGrid(now, time.Second)
		if !back.IsZero() && back.Before(a.keepTill) {
			a.keepTill = back
		}
	}
	return max(a.keepTill.Sub(now), 0)
}

// keepShare: a check or a probe waits (see keepWait) while the client's
// calls free to send are 1/keepShare of the most it had out, or fewer.
const keepShare = 3

// afterCut is how long after a cut a refusal still belongs to it: a limit
// overrun until the cut has no room for the first few attempts after it
// either — those the pace's slack may send early.
func (a *adaptive) afterCut() time.Duration { return a.pace.slack() }

// inFlight learns from the refusal of an attempt sent before the last cut,
// at the older rate: the more a client sends, the more such refusals it
// meets, and the more it is cut.
func (a *adaptive) inFlight(now time.Time) {
	if a.windowSpent(now) {
		return
	}
	if m, ok := a.measured(now); ok && a.echoes(m) {
		return
	}
	r := max(a.pace.rate*inFlightCut, deepestCut*a.eventRate)
	switch {
	case r >= a.pace.rate:
	case a.slow:
		a.setRate(max(r, slowFloor))
	default:
		a.anchor(now, r)
	}
}

// windowSpent learns from the refusals of attempts in flight after the cut
// that ended a slow start, with nothing accepted since: at the second, the
// limit is a window whose count the client spent, not a bucket that
// refuses the excess of a rate here and there. A window lets every attempt
// through until its count is spent, so the rate the slow start measured
// over its last steps is the rate it sent at, not its room: a lone client
// under a sliding window of 1,000 a second ended its slow start at 1,636
// a second, and overran the window twice more before it learnt the count,
// each time with every call it had under way refused and sitting out a
// second. Its room is what the service took of it over the trailing
// second, the time its calls sat out counted in: the window's count, or
// its share of it. The rate rests there, and is cut under it; the
// refusals in flight cut nothing more. Over the ranges of the acceptance
// tests, the lone client's worst run there went from 1.62–1.63 to
// 1.43–1.48 × N ÷ rate.
// Not in the client's first second, whose trailing second is not whole.
func (a *adaptive) windowSpent(now time.Time) bool {
	if !a.slowEnded || !a.streak || now.Sub(a.first) < time.Second {
		return false
	}
	a.stallRefused++
	if a.stallRefused < stallRefusals {
		return false
	}
	a.slowEnded = false
	took := float64(a.accepted.count(now))
	if took < measureMin || took >= a.wmax {
		return false
	}
	a.wmax = took
	if r := cutFactor * took; a.pace.rate > r {
		a.anchor(now, r)
	}
	return true
}

// cut is a new refusal: the rate falls, and a streak starts.
//
// The next attempt is a check: it goes alone, and the others wait for its
// answer. A limit with no room left — a window whose count is spent, until
// the window ends — refuses every attempt the pace sends until the client
// hears of it, a round trip later: at 1,000 a second over 5 ms, as many as
// the calls a client runs at once (16), each then waiting out a Retry-After
// of a second or more, so that the client sent nothing for a second. With
// checks, such a limit refuses one attempt a round trip: a check refused
// within the cut's moment (see afterCut) is followed by another, a later one
// starts a storm (see startStorm). The cost is a round trip without
// sending, once per cut.
//
// How long the regrowth after a cut lasts is learnt from the probes. A
// refusal at about the rate of the previous one says the client is at its
// share: it probes less often (the regrowth lasts half as long again, up to
// maxRest), so that many clients on a small limit are refused rarely. A
// refusal well above it says the client grew into room that was free: it
// probes sooner (half as long, down to minRest).
//
// A refusal while it rests under its last rate, not probing, is a
// neighbour's probe or a limit that fell. The first since its last other
// cut is taken as a neighbour's probe: the rate is cut, but the regrowth
// keeps its target (no higher than a cut above what the service took of
// the client) and its length, since the neighbour is cut too and the room
// it took comes back. Were it lowered to what the service took of the
// client, and the rest made longer, a client whose neighbour probes more
// often than it does (a joiner fresh from its start) would be refused only
// while resting, fall by a tenth at each of the neighbour's probes and never
// probe itself: under a fixed window of 1,000 a second, an incumbent ended
// at 200–290 a second beside a joiner at 600–700. A second in a row says the
// limit fell, or the key is crowded: the target falls, and the rest grows.
func (a *adaptive) cut(now time.Time) {
	rate := a.pace.rate
	a.slowEnded, a.stallRefused = false, 0
	a.beforeCut.rate, a.beforeCut.wmax = rate, a.wmax
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
			a.anchor(now, cutFactor*m)
		} else {
			a.startSlow(now, max(cutFactor*m, slowFloor))
		}
	case a.slow && !a.slowStruck:
		// A slow start's first refusal may be chance (a neighbour's probe,
		// a few turns bunched over a small burst): it goes on, a step
		// lower. The next refusal ends it.
		a.slowStruck = true
		a.slowStep, a.slowBusy, a.slowOK = now, 0, false
		a.setRate(cutFactor * rate)
	case a.slow:
		a.slow, a.slowEnded = false, true
		// Measured over its last two steps, which lag little behind the
		// growth.
		step := a.slowStepLength()
		m, ok := a.measuredOver(now, min(max(2*step, measureSpan), time.Second))
		if !ok {
			// Too few answers over the last steps, as when a window
			// limit spent its count early: the trailing second tells.
			m, ok = a.measured(now)
		}
		if ok && m < rate {
			rate = m // it grew far past its room: the service took that much
		}
		a.wmax = rate
		a.anchor(now, cutFrom(rate))
	default:
		m, measured := a.measured(now)
		probing := a.grown > a.rest+a.rest/2
		if !probing && measured && a.echoes(m) {
			return
		}
		sent := rate
		if probing {
			// A rate that grew in the last second was sent for a moment
			// only, and proves nothing: the lowest it sent at does.
			sent = min(rate, a.paced.lowest(a.measureFrom(now, time.Second), now))
		}
		switch {
		case measured && probing && a.overranWindow(m, rate):
			rate = m
		case measured && m < sent && !a.sentLittle(now, sent):
			// The service took less of this client lately than it sent:
			// that is its room now.
			rate = m
		}
		// A first refusal while it rests is taken as a neighbour's probe,
		// which the neighbour is cut for too (see above).
		a.forgave = !probing && !a.forgave
		switch {
		case a.forgave && measured:
			// The rest stays, but no higher than a cut above what the
			// service took: a lone client whose target a window limit's
			// burst set above the window's count would be refused there
			// again.
			a.wmax = min(a.wmax, m/cutFactor)
		case !a.forgave:
			a.learnRest(probing, rate, m, measured)
			a.lowerRest(rate, m, measured)
		}
		a.anchor(now, cutFrom(rate))
	}
	a.eventRate = max(rate, a.pace.rate)
	a.cutAt, a.streak, a.checking = now, true, true
	a.pace.noSooner(now.Add(a.pace.interval())) // the service has no room right now
}

// overranWindow reports whether a probe's refusal at rate, when the service
// took m of the client over the trailing second, is a window limit's whose
// count the probe's burst spent: the limit behaves as a window (see
// learnLimitKind), the client is at hundreds of attempts a second
// (gridMaxRate) and the service took less of it than the probe's rate.
// The cut then goes from m, the client's share of the window's count,
// rather than from the probe's rate or the lowest it sent at.
//
// A window lets every attempt through until its count is spent, so its
// first refusal comes late, when the probe has grown far past it: two
// clients a neighbour left under a fixed window of 1,000 a second grew to
// 1,220 a second each before it refused them, 535 a second each taken,
// and cut from the probe's rate they went on at 1,036 a second each, twice
// the window together, to overrun it again within two seconds. At that
// rate every overrun refuses every call a client has in flight, and each
// sits out a whole second. Over 240 runs a cell at 1,000 a second under
// the two windows, the joiner or the incumbent fell short in 82 of 480
// runs against 98, and the clients a neighbour left used under 80 % of the
// rate in 58 of 240 runs against 66. Cut only when the service took under
// 70 % of the probe's rate, the joiner missed in 86, the leaver in 73.
//
// Only at hundreds a second: under that, a client has an attempt or two
// in flight, and applied at every rate, the runs at 100 a second fared no
// better (the joiner's 79 of 720 against 71). A token bucket refuses each
// client in proportion to what it sends, and the lowest rate a probe sent
// at tells there (see cut); its checks after a cut are refused now and
// then too, when the attempts in flight spend its refill, and the joiner
// under a token bucket of 1,000 a second missed in 24 of 240 runs against
// 12 and 19 in two passes before: within their spread, perhaps the cost
// of such a check.
func (a *adaptive) overranWindow(m, rate float64) bool {
	return a.windowed && m >= gridMaxRate && m < rate
}

// learnRest sets how long the regrowth after a cut at rate lasts (see
// cut), when the service took m of the client over the trailing second.
//
// It lasts maxRest at most (the first, before any is learnt, may last
// longer: see anchor): with the level half as long again after it, a
// client at its share probes 1.5 s after its last cut at the latest,
// and takes room a neighbour left within the next second or so. Two
// clients that stay on a key a neighbour left rest at the share they had
// beside it until they probe, then overshoot together when the limit is a
// window, which refuses only once its count is spent; the sooner they
// probe, the sooner that is behind them. Over the leaver test's ranges the
// two used under 80 % of the rate 3–6 s after it left in 142 of 540 runs
// with a rest of up to 1.5 s, and 116 of 540 with 1 s (under a sliding
// window of 1,000 a second, 55 and 36 of 90); a rest of up to 2 s
// missed in 10 of 40 runs of one sliding-window cell where 1.5 s missed
// in 3. Shorter (0.75 s) gains nothing more (120 of 540), and each
// shortening makes clients that share a small limit probe, and be
// refused, more often: a pair under a token bucket of 10 a second meets
// 42 429s in its 200 calls on average, against 39 at 1.5 s (none of 400
// runs met more than its bound, 16 and two for each second of the run),
// and a lone client under a token bucket of 1,000 a second with a burst
// of 5 and four calls at once, whose worst run of five sat at its time
// bound (7.25 s for 5,000 calls), took 7.41 s in 3 of 10 passes.
func (a *adaptive) learnRest(probing bool, rate, m float64, measured bool) {
	took := rate
	if measured {
		took = m
	}
	switch {
	case !probing:
		// Refused again while it rested under its last rate: a limit
		// that fell, or a crowded key. It rests longer.
		a.rest = min(a.rest*3/2, maxRest)
	case took >= 1.5*a.wmax:
		// It grew into room that was free. What the service took
		// tells, not the rate it was refused at: a window limit
		// refuses only once its count is spent, well past its rate.
		a.rest = minRest
	default:
		a.rest = min(a.rest*3/2, maxRest) // it is at its share
	}
}

// lowerRest sets the rate the regrowth rests under (wmax) after a cut at
// rate, when the service took m of the client over the trailing second.
func (a *adaptive) lowerRest(rate, m float64, measured bool) {
	if rate < a.wmax {
		a.wmax = rate * (1 + cutFactor) / 2 // still falling: leave room for others
	} else {
		a.wmax = rate
	}
	if measured && m < a.wmax {
		// A limit that answers late (a fixed window refuses once its
		// count is spent) let the rate pass it by more than the rest
		// leaves under it: the rest is taken under what the service
		// took instead.
		a.wmax = m
	}
}

// sentLittle reports whether the client sent under half of rate over the
// trailing second (the span measured measures): the service then took less
// of it because it was sent less — its calls sat out an earlier refusal's
// Retry-After, or waited for a check's answer, or were not there — and
// what it took is no measure of the client's room. A client under a fixed
// window of 1,000 a second that overran the window had its calls sit out
// the window's turn; a joiner's slow start took the new window while they
// came back, and the refusal that met the first of them cut the client
// from the 88 a second it had sent over that second: it stayed near 64 a
// second for ten seconds beside the joiner at 1,000. Cut from its rate,
// such a client comes back as the joiner does: of 240 joiner runs under
// that window, 48 miss (93 when cut to what it had sent, mostly with the
// incumbent short), and of 1,440 over every kind and rate, 233 (285).
func (a *adaptive) sentLittle(now time.Time, rate float64) bool {
	from, span := a.measureSpanOf(now, time.Second)
	if span < measureSpan {
		return false
	}
	return float64(a.given.since(from, now)) < rate/2*span.Seconds()
}

// echoes reports whether a refusal only echoes a burst the client already
// cut for: over the trailing second the service took m of it (see
// measured), at least as much as it now sends, and as at its last refusal.
// A window limit that a probe passed stays full of the probe's burst for up
// to a window's length, and refuses attempts sent at the lower rate until
// the burst ages out; cutting again for each of them took a client under a
// sliding window of 1,000 a second down to about 45 % of it. A client
// squeezed by a neighbour fails the test (the service takes less of it than
// at its last refusal) and is cut as before, so that shares still even out.
func (a *adaptive) echoes(m float64) bool {
	return m >= a.pace.rate && m >= a.wmax
}

// cutFrom is the rate a refusal at rate cuts to: by cutFactor, and by at
// least minCutStep (at most by half). A client that sends a few attempts a
// second cannot make a finer cut that a limit notices: 15 % of 2.5 a second
// is a third of an attempt a second, and four such clients under a limit of
// 10 a second kept meeting refusals, until a call met its fourth and failed.
// Where the regrowth rests does the rest (see plateauUnder).
func cutFrom(rate float64) float64 {
	return max(min(cutFactor*rate, rate-minCutStep), rate/2)
}

// plateauUnder is the share of the last refusal's rate wmax the regrowth
// rests at: plateau, or minRestGap under wmax when that is lower — a whole
// attempt a second (fewRestGap) when wmax is fewRate or less — down to
// lowestPlateau, for the reason cutFrom gives. The rest may then lie under
// the cut, and the rate falls to it at once: a client refused at 2.5 a
// second sends 1.5 until it probes again. Four such clients under a limit
// of 10 a second, which rested half an attempt a second under their
// refusals after a cut of a whole one, were refused about one attempt in
// four, and a call's six attempts now and then all fell among them: in
// 6,000 runs of the fleet's six cells at 10 a second, 46–54 calls failed
// in three passes, against 22–23 now, and runs broke a bound 171–220
// times against 127–149; over the whole matrix, 17 runs of 2,160 broke a
// bound in each of three passes, against 19–28 in six. The cost falls on two
// clients under a token bucket of 10 a second, 5 a second each, at the
// rule's edge: in 1,000 runs, 10 and 3 met more 429s than their bound
// (0–4 before) and 1 and 5 failed a call (none before). Resting a whole
// attempt under a refusal above 5 a second as well made eight clients
// under a fixed window of 100 a second (12.5 a second each) overrun their
// 429 bound in 4 of 80 runs, and cutting by a whole attempt with the whole
// attempt's rest broke the fairness bound twice as often (257–269 runs of
// 6,000).
func plateauUnder(wmax float64) float64 {
	gap := minRestGap
	if wmax <= fewRate {
		gap = fewRestGap
	}
	return min(plateau, max(lowestPlateau, 1-gap/wmax))
}

// measured is the rate at which the service accepted this client's
// attempts over the trailing second — a whole window of a window limit —
// or the part of it since its first refusal or its last long storm, the
// time it held its attempts in a storm left out (see heldSpans). ok is
// false when that part is too short, or holds too few answers, to tell.
func (a *adaptive) measured(now time.Time) (rate float64, ok bool) {
	return a.measuredOver(now, time.Second)
}

// measuredOver is measured over the trailing span (at most two seconds).
func (a *adaptive) measuredOver(now time.Time, over time.Duration) (rate float64, ok bool) {
	from, span := a.measureSpanOf(now, over)
	n := a.accepted.since(from, now)
	if span < measureSpan || n < measureMin {
		return 0, false
	}
	return float64(n) / span.Seconds(), true
}

// measureSpanOf is where a measure over the trailing span over starts (see
// measureFrom), and how long it lasts with the storms held in it left out.
func (a *adaptive) measureSpanOf(now time.Time, over time.Duration) (from time.Time, span time.Duration) {
	from = a.measureFrom(now, over)
	return from, now.Sub(from) - a.held.within(from, now)
}

// measureFrom is where a measure over the trailing span starts: no sooner
// than the first refusal, nor than the end of the last long storm.
func (a *adaptive) measureFrom(now time.Time, over time.Duration) time.Time {
	from := now.Add(-over)
	for _, t := range []time.Time{a.firstCut, a.calmAt} {
		if t.After(from) {
			from = t
		}
	}
	return from
}

// startStorm holds every attempt but a probe: a refusal came after a cut
// with nothing accepted since. The rate stays where the cut left it.
func (a *adaptive) startStorm(now time.Time, retryAfter time.Duration) {
	// Storms that come back within two seconds (a window limit spends its
	// count, and refuses until the next window) are measured over the
	// whole cycle from the last one: the window's count over the time the
	// client sent in it.
	over := time.Second
	if cycle := now.Sub(a.stormAt); !a.stormAt.IsZero() && cycle < 2*time.Second {
		over = max(over, cycle)
	}
	a.share, _ = a.measuredOver(now, over)
	if m, ok := a.measuredOver(now, 2*time.Second); ok && m > a.share {
		// A window limit still full of an earlier burst leaves the second
		// before the storm nearly empty: the two seconds before tell more.
		a.share = m
	}
	a.storm, a.stormAt, a.cutAt = true, now, now
	a.held.begin(now)
	gap := max(a.pace.interval(), firstProbe)
	if retryAfter > 0 {
		gap = min(gap, retryAfter)
	}
	a.probeGap, a.probeAt, a.probeOut = gap, a.nextProbe(now, gap), time.Time{}
}

// probeRefused spaces the next probe further, up to once per Retry-After
// (or per second when none is given); a long storm, once per tenth of its
// length. Twice as far each time, so that the end of a storm that ends on
// its own — a window whose count was spent turns — is found by a probe
// within the storm's age again: four times as far found it up to three
// ages late, most of a window of a second at 1,000 a second, lost. And no
// sooner than probeIntervals of the client's pace after the last: a client
// that sends a few attempts a second would otherwise spend a good part of
// them on probes (under a window of 10 a second, a tail of runs over the
// 429s a lone client may meet).
func (a *adaptive) probeRefused(now time.Time, retryAfter time.Duration) {
	ceiling := max(retryAfter, stormProbe, now.Sub(a.stormAt)/10)
	a.probeGap = min(max(a.probeGap*probeSpread, probeIntervals*a.pace.interval()), ceiling)
	a.probeOut, a.probeAt = time.Time{}, a.nextProbe(now, a.probeGap)
	a.signal()
}

// nextProbe is when the probe a gap after now goes. A gap the doubling set
// past the client's floor (probeIntervals of its pace), up to a second,
// ends on the clock's grid of that size instead: the first instant after
// now that is a multiple, counted from the Unix epoch, of the shortest
// power-of-two fraction of a second at least gap long. A window limit's
// windows turn on whole seconds of the clock, which every such grid holds,
// so the probes of every client on the key find the turn at the same
// instant — the first, not the one whose doubling happened to fall there
// — and a sliding window frees the room of a probe taken on a whole second
// a whole second later, when the next probe comes. Each client's own
// doubling found the turn up to its storm's age late, and the first to
// find it took the window: four clients under a fixed window of 100 a
// second broke the fairness bound in 12–22 of 200 runs, none with the
// grid. The grid is the client's clock: clients on one host, or on hosts
// that NTP keeps within milliseconds, share it; a clock ahead of the
// service's by more than a round trip meets the turn a probe later, as
// its own doubling might.
//
// The others keep their own time. A shorter gap (a slow client's floor,
// a storm's first probes): slow clients' probes on one grid would meet at
// one instant a limit with room for one or two, and the calls that carry
// them run out of retries (eight clients under a token bucket of 100 a
// second broke the fairness bound twice as often). A longer one (a
// service down for seconds) has no window to find. And a client that
// sends gridMaxRate attempts a second or more: alone under a sliding
// window of 1,000 a second, its own storms on the grid put its bursts on
// whole seconds, where the window's echoes of them held it near 700 a
// second (900 on its own time), and the recovery test failed 17 of 40
// storm starts (0 of 40).
func (a *adaptive) nextProbe(now time.Time, gap time.Duration) time.Time {
	if gap <= probeIntervals*a.pace.interval() || gap > time.Second || a.pace.rate >= gridMaxRate {
		return now.Add(gap)
	}
	return onGrid(now, gap)
}

// gridMaxRate is the rate from which a client's probes keep its own time
// (see nextProbe).
const gridMaxRate = 200

// onGrid is the first instant after now on the clock's grid of the
// shortest power-of-two fraction of a second at least gap long (0 < gap
// ≤ 1 s), counted from the Unix epoch.
func onGrid(now time.Time, gap time.Duration) time.Time {
	step := time.Second
	for step/2 >= gap && step > time.Millisecond {
		step /= 2
	}
	return epoch.AlignDown(now, step).Add(step)
}

// endStorm resumes pacing once the service accepts again, at the rate the
// cut left — after a long storm, the rate before the cut that began it —
// (or in the slow start under way), or under what the service took of this
// client in the second or two before the storm when that was less: a
// storm, however long, teaches no rate. The probe that ended it took a
// turn.
func (a *adaptive) endStorm(now time.Time) {
	lasted := now.Sub(a.stormAt)
	long := lasted >= longStorm
	if long {
		a.calmAt = now // a long storm measures nothing
		// Nor did the cut that began it, a refusal with nothing accepted
		// since: it came as the service began to refuse everything, and
		// measured a few moments of refusals (or the moments since an
		// earlier storm) as the client's share. The rate and where it
		// rests go back to where they stood before it. Kept, such a cut
		// brought a client under a sliding window of 1,000 a second back
		// at 230 a second, regrowing towards 450, where it stood at 1,380
		// before; the recovery test failed in 8 of 12 runs whose storm
		// began 2.892 s in (0 of 12 with the cut undone).
		if !a.slow && a.beforeCut.rate > 0 {
			a.pace.rate = max(a.pace.rate, a.beforeCut.rate)
			a.wmax = max(a.wmax, a.beforeCut.wmax)
		}
		// Nor does it say the key is crowded: the regrowth to the rate
		// before it is the shortest, and how crowded the key is is learnt
		// again from the refusals that follow.
		a.rest = minRest
	}
	a.storm, a.probeOut = false, time.Time{}
	a.held.end(now)
	switch {
	case a.slow && a.share > 0 && long && (a.slowNeverGrew() || lasted >= starvingStorm):
		// A slow start held through a long storm before it had grown —
		// a neighbour took the key from the client's first moment, or the
		// service went down — sent too little to measure a share: what
		// the service took of it was the crumbs of its start. It goes on
		// from where it stands, and ends at its next refusal. Ended under
		// those crumbs, such a client came back at 2–5 a second and took
		// four seconds to regrow by its probes: two clients that a
		// neighbour at FixedRate(1000) had kept out used under 800 a second
		// of the room it left in 9–13 of 30 runs (3 of 30 going on).
		//
		// So does one held longer than a window's turn and a probe or two
		// explain, however it had grown: what it took in its first second
		// (a neighbour at a fixed rate filled the key soon after, and
		// held it until it left) is no measure of the room the neighbour
		// leaves. Two clients whose slow starts had grown to 20–40 a
		// second when a token bucket of 1,000 a second, spent by
		// FixedRate(1000), refused them for two seconds, ended them under
		// 9–17 a second and took four seconds to regrow to the room it
		// left: they missed in 5–6 of 15 runs (0 of 15 going on; of 180
		// runs of every leaver cell, 35–36 missed, 20–24 going on).
		a.startSlow(now, max(cutFactor*min(a.pace.rate, a.share), slowFloor))
		a.slowStruck = true
	case a.slow && a.share > 0:
		// A slow start that ran into a storm after answers it could
		// measure grew past its room (a window limit lets every
		// attempt through until its count is spent): it ends under what
		// the service took of it.
		a.slow, a.wmax = false, a.share
		a.anchor(now, cutFactor*min(a.pace.rate, a.share))
	case !a.slow:
		// Back a step under where it stood before the storm, or under what
		// the service took of it in the moments before, when that was less.
		r := cutFactor * a.pace.rate
		if a.share > 0 {
			r = min(r, cutFactor*a.share)
			a.wmax = min(a.wmax, a.share) // and regrows no higher than that
		}
		a.anchor(now, r)
	}
	a.pace.tat = now.Add(a.pace.interval())
	a.tick = now
	a.signal()
}

// startSlow begins a slow start at rate.
func (a *adaptive) startSlow(now time.Time, rate float64) {
	a.slow, a.slowStep, a.slowBusy, a.slowOK, a.slowStruck, a.tick = true, now, 0, false, false, now
	a.setRate(rate)
	a.slowFrom = a.pace.rate
}

// slowNeverGrew reports whether the slow start under way began at its
// floor, having learnt nothing at the client's start, and is still under
// twice that: a client at the floor of a limit with room grows past it in
// half a second. One whose start measured a share (a lone client under a
// small limit begins near it, and cannot double) is not taken for one
// that never sent: going on, it overran a window limit of 10 a second
// after an outage, and lost part of a window (6 of 100 storm starts fell
// short of the recovery bound, against 2). A storm of starvingStorm or
// more lets any slow start go on (see endStorm); since the rules that
// followed, the recovery matrix misses in 1–2 of 90 runs either way.
func (a *adaptive) slowNeverGrew() bool {
	return a.slowFrom <= slowFloor && a.pace.rate < 2*a.slowFrom
}

// anchor starts the curve at rate, now, towards the rest under wmax.
func (a *adaptive) anchor(now time.Time, rate float64) {
	if a.wmax < rate {
		a.wmax = rate
	}
	a.x0 = math.Log(rate / a.wmax)
	if a.rest == 0 {
		// The first rest, before any is learnt: a few of the client's own
		// attempts, so that it sees whether the rest holds before it
		// probes; no more, so that a client the first second left small
		// (the burst's lottery among clients started together) rests no
		// longer than one it left large, or the split would be kept. Over
		// 30 attempts, clients at 2 a second beside others at 30 rested
		// 3 s each time, and sharing fell apart.
		a.rest = min(max(minRest, time.Duration(restAttempts/rate*float64(time.Second))), firstRest)
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
	a.grown += a.curveTime(busy)
	if a.slow {
		a.slowBusy += busy
		if step := a.slowStepLength(); a.slowOK && a.slowBusy >= step {
			a.slowStep, a.slowBusy, a.slowOK = now, 0, false
			a.setRate(slowStepGrowth(step) * a.pace.rate)
		}
		return
	}
	a.setRate(a.wmax * math.Exp(a.curve(a.grown)))
}

// curveTime is how far busy time moves the curve's clock (the regrowth
// after a cut, the level, the probe): as far, but under a window limit
// (see learnLimitKind) by clockSpeed of the rate of the last refusal. A
// slow start's steps keep their time: it is the fastest growth there is.
func (a *adaptive) curveTime(busy time.Duration) time.Duration {
	if !a.windowed {
		return busy
	}
	return time.Duration(float64(busy) * clockSpeed(a.wmax))
}

// clockSpeed is how fast the curve's clock runs under a window limit for a
// client last refused at wmax attempts a second: at full speed at and under
// evenClockUnder (or before any refusal), slower above it, down to about
// half near 90 a second, then steeply back to full speed at fullClockFrom.
//
// Two clients under a window limit are refused at the same turn of the
// window and cut by the same share, and each regrows to a share of its own
// last rate in the same time: their ratio stays. A joiner that came in at a
// quarter of the incumbent's rate under a window of 100 a second stayed
// there. A clock that runs slower the higher the last refusal (as a TCP
// CUBIC sender's regrowth lasts longer the larger its window) lets the
// smaller client regrow and probe first, so that each overrun of the window
// leaves the two closer. Over the joiner's ranges at 100 a second, 240 runs
// a cell, the joiner or the incumbent fell short in 71 of 720 runs against
// 130 at full speed (fixed window 23 against 64, sliding window 31 against
// 51); at 1,000 a second, 110 against 103.
//
// The band is where it was measured to help; outside it the clock keeps
// its speed. Above it a client has attempts in flight when a window
// refuses, and each of them cuts it further (see inFlightCut), so the
// larger is cut more already, and a slower clock only delays taking room
// that comes free: at half speed from 80 a second up, the joiner at 1,000
// a second missed in 93 of 360 runs against 47. The return is steep so
// that a client on its way through the band (a joiner at a key of 1,000 a
// second whose slow start ended near 100) is not held back long beside an
// incumbent at full speed: back to full speed at 225 rather than 111, those
// runs missed in 62 against 47. Under the band, clients that share a small
// limit, or a lone one refused at a few a second, probe no more often than
// before. And only under a window: a token bucket refuses each client in
// proportion to what it sends, and slowed there too, four and eight
// clients under a token bucket of 1,000 a second broke a bound in 20 of
// 400 runs (12 on time) against 5; gated, 4.
func clockSpeed(wmax float64) float64 {
	return min(1, max(math.Sqrt(evenClockUnder/wmax), math.Pow(wmax/fullClockFrom, 3)))
}

// The band of clockSpeed, in attempts a second.
const (
	evenClockUnder = 25.0
	fullClockFrom  = 111.0
)

// slowStepLength is how long a step of the slow start lasts: slowTick, or
// one interval at the rate when that is longer, so that an attempt sent at
// the rate can be answered before the rate grows again.
func (a *adaptive) slowStepLength() time.Duration {
	return max(slowTick, a.pace.interval())
}

// slowStepGrowth is how much a step of the slow start that lasted step
// grows the rate: slowGrowth per slowTick, by time, so that a client that
// sends a few attempts a second climbs as fast in seconds as one that sends
// many, down to the slow start's floor (slowFloor), whose step of one
// interval grows the rate 3.7 times; a longer step grows it no more. It
// grew twice at most before: a client at 2 a second climbed at half the
// speed in seconds of one at 10, so that of clients started together those
// the first burst left at the floor fell behind one it left at twice that,
// and the split held (a token bucket at 100 a second, eight clients: a
// client at 100 a second while the others sat at 2–4 for seconds).
//
// Slower than doubling every tick, on purpose: clients that start
// together all grow until the limit refuses them, and those it refuses a
// step later than the others end their slow start at a rate that many
// times higher. Doubling, one step's luck left clients at two, four or
// eight times their neighbours' rate, which took seconds to even out (a
// token bucket at 100 a second, eight clients: some at 2–4 a second, two
// at 34); at 1.3, a step of luck is worth 30 %.
func slowStepGrowth(step time.Duration) float64 {
	return math.Pow(slowGrowth, float64(min(step, floorStep))/float64(slowTick))
}

// floorStep is a step of the slow start at its floor: one interval at
// slowFloor attempts a second.
const floorStep = time.Duration(float64(time.Second) / slowFloor)

// curve is ln(rate/wmax) after busy time t since the cut: a cubic from x0
// up to the rest, a little under the rate of the last refusal, so that
// clients sharing a key rest under its limit together; level there for
// half as long; then growth whose speed doubles every convexDouble: the
// probe.
func (a *adaptive) curve(t time.Duration) float64 {
	k, level := a.rest, math.Log(plateauUnder(a.wmax))
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
	s := float64(t-k-k/2) / float64(convexDouble)
	if speed := convexGain * math.Exp2(s); speed <= maxGrowth {
		return level + convexGain*convexDouble.Seconds()/math.Ln2*(math.Exp2(s)-1)
	}
	// Past maxGrowth the speed stays there: a limit that answers late (a
	// fixed window) is not overshot many times over before it refuses.
	sMax := math.Log2(maxGrowth / convexGain)
	reached := convexGain * convexDouble.Seconds() / math.Ln2 * (math.Exp2(sMax) - 1)
	return level + reached + maxGrowth*(s-sMax)*convexDouble.Seconds()
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

// pace hands out turns at rate, evenly: a generic cell rate algorithm whose
// next turn is due at tat. A turn may come up to a few intervals early (at
// most 25 ms), so that a timer that fires late is made up for; after an
// idle spell the first turns therefore come that much closer together, and
// never more than that.
type pace struct {
	rate float64
	tat  time.Time
}

// take takes the turn at now and returns 0, or returns how long until the
// next turn.
func (p *pace) take(now time.Time) time.Duration {
	interval := p.interval()
	tat := p.tat
	if slack := p.slack(); tat.Before(now.Add(-slack)) {
		tat = now.Add(-slack)
	}
	if d := tat.Sub(now); d > 0 {
		return d
	}
	p.tat = tat.Add(interval)
	return 0
}

// noSooner puts the next turn at t, unless it is due later already.
func (p *pace) noSooner(t time.Time) {
	if p.tat.Before(t) {
		p.tat = t
	}
}

// slack is how early a turn may come: a few intervals, at most 25 ms.
func (p *pace) slack() time.Duration { return min(4*p.interval(), 25*time.Millisecond) }

// interval is the time between two turns.
func (p *pace) interval() time.Duration {
	return max(time.Duration(float64(time.Second)/p.rate), 1)
}

// The adaptive limiter's memory of the trailing two seconds: what the
// service accepted, and the lowest rate turns were given at. Each keeps
// slots of 10 ms, so its memory is constant at any rate. It stays in this
// file with the pace above, though the file is long, so that a paced call
// passes through one file of the limiter.

// countWindow counts accepted answers over the trailing two seconds.
type countWindow struct {
	slots [slotsPerWindow]struct {
		at    int64 // the slot's number since the epoch (time / slotLength)
		count int
	}
}

const (
	slotLength     = 10 * time.Millisecond
	slotsPerWindow = int(2 * time.Second / slotLength)
)

func (w *countWindow) add(now time.Time) {
	n := now.UnixNano() / int64(slotLength)
	s := &w.slots[n%int64(slotsPerWindow)]
	if s.at != n {
		s.at, s.count = n, 0
	}
	s.count++
}

// since is the number of accepted answers from from to now, within the
// trailing two seconds, to the slot.
func (w *countWindow) since(from, now time.Time) int {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	total := 0
	for _, s := range w.slots {
		if slotIn(s.at, lo, n) {
			total += s.count
		}
	}
	return total
}

// count is the number of events in the trailing second.
func (w *countWindow) count(now time.Time) int {
	return w.since(now.Add(-time.Second), now)
}

// slotIn reports whether the slot numbered at lies from slot lo to slot n,
// within the trailing two seconds of n (an older slot is stale).
func slotIn(at, lo, n int64) bool {
	return at > n-int64(slotsPerWindow) && at <= n && at >= lo
}

// callsOut counts the attempts a limiter gave turns to and has not heard
// of yet, the most it saw out at once (the calls the client runs at once,
// as far as the limiter can tell), and when each call the service refused
// may be sent again.
type callsOut struct {
	out, most int
	back      []time.Time // the ends of the refusals' Retry-After; those past are dropped as others come
}

// maxSitting bounds callsOut's memory: a server that asks for hours' waits
// of every request would otherwise have it grow with every refusal. Those
// left out are the ones back soonest, so that keepWait waits less, never
// more.
const maxSitting = 1024

func (c *callsOut) gave() {
	c.out++
	c.most = max(c.most, c.out)
}

func (c *callsOut) answered() { c.out = max(c.out-1, 0) }

// sitOut notes a call refused at now that may be sent again after wait.
func (c *callsOut) sitOut(now time.Time, wait time.Duration) {
	if wait <= 0 {
		return
	}
	kept := c.back[:0]
	for _, t := range c.back {
		if t.After(now) {
			kept = append(kept, t)
		}
	}
	if len(kept) >= maxSitting {
		slices.SortFunc(kept, time.Time.Compare)
		kept = append(kept[:0], kept[len(kept)-maxSitting+1:]...)
	}
	c.back = append(kept, now.Add(wait))
}

// sitting is how many refused calls still sit out their Retry-After at now,
// and when the first of them may be sent again (zero when none).
func (c *callsOut) sitting(now time.Time) (n int, first time.Time) {
	for _, t := range c.back {
		if t.After(now) {
			n++
			if first.IsZero() || t.Before(first) {
				first = t
			}
		}
	}
	return n, first
}

// heldSpans keeps the client's last storms: the spans in which it held
// every attempt but a probe. What the service took of it then says
// nothing of its share. Clients on one key come back from a window
// limit's storm at different moments (their calls sit out a Retry-After
// rounded up to whole seconds), and counted in, a storm made the one that
// came back last measure a smaller share, be cut to it and keep it: of a
// client and one that joined it under a fixed window of 100 a second, one
// ended at 20 a second beside the other at 60–90 (the joiner test failed
// 18 of 120 runs, 5–12 with storms left out).
type heldSpans struct {
	spans [heldKept]stormSpan
	next  int // the span under way or the next
}

// stormSpan is a storm from its first to its last moment; to is zero while
// it lasts.
type stormSpan struct{ from, to time.Time }

// heldKept is how many storms heldSpans keeps: those of the trailing two
// seconds (a window limit's count is spent once a window at most). Were
// there more, the oldest would count as time the client sent.
const heldKept = 8

// begin notes that a storm began at now.
func (h *heldSpans) begin(now time.Time) {
	h.spans[h.next%heldKept] = stormSpan{from: now}
}

// end notes that the storm under way ended at now.
func (h *heldSpans) end(now time.Time) {
	h.spans[h.next%heldKept].to = now
	h.next++
}

// within is how much of the span from from to now the storms cover.
func (h *heldSpans) within(from, now time.Time) time.Duration {
	var held time.Duration
	for _, s := range h.spans {
		if s.from.IsZero() {
			continue
		}
		lo, hi := s.from, s.to
		if hi.IsZero() {
			hi = now // under way
		}
		if lo.Before(from) {
			lo = from
		}
		if hi.After(now) {
			hi = now
		}
		if hi.After(lo) {
			held += hi.Sub(lo)
		}
	}
	return held
}

// lowWindow keeps the lowest rate of each slot over the trailing two seconds.
type lowWindow struct {
	slots [slotsPerWindow]struct {
		at  int64
		low float64
	}
}

func (w *lowWindow) add(now time.Time, rate float64) {
	n := now.UnixNano() / int64(slotLength)
	s := &w.slots[n%int64(slotsPerWindow)]
	if s.at != n || rate < s.low {
		s.at, s.low = n, rate
	}
}

// lowest is the lowest rate from from to now, within the trailing two
// seconds; +Inf when none was noted.
func (w *lowWindow) lowest(from, now time.Time) float64 {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	low := math.Inf(1)
	for _, s := range w.slots {
		if slotIn(s.at, lo, n) {
			low = min(low, s.low)
		}
	}
	return low
}
