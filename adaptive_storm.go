package convo

import (
	"time"

	"github.com/convoapi/convo-go/internal/epoch"
)

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
