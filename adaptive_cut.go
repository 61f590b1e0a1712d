package convo

import (
	"time"
)

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
