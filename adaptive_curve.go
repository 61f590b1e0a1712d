package convo

import (
	"math"
	"time"
)

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
