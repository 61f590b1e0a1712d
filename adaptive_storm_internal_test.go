package convo

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdaptiveStormProbeKeepsCalls: a storm's probe at 1,000 a second
// goes at its time while the client has calls left, and waits for the next
// whole second when the calls that sit out a refusal leave it a third of
// those it ran at once or fewer.
func TestAdaptiveStormProbeKeepsCalls(t *testing.T) {
	tests := []struct {
		name    string
		sitting int // of six calls
		wantAt  time.Duration
	}{
		{name: "one of six sits out: the probe after 10 ms", sitting: 1, wantAt: 310 * time.Millisecond},
		{name: "four of six sit out: the probe on the whole second", sitting: 4, wantAt: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				second := time.Now()
				time.Sleep(300 * time.Millisecond)
				a := AdaptiveRate().(*adaptive)
				a.first, a.pace.rate = second, 1000
				for range 6 {
					a.calls.gave()
				}
				for range tt.sitting {
					a.calls.answered()
					a.calls.sitOut(time.Now(), time.Second)
				}
				a.startStorm(time.Now(), time.Second)
				assert.Equal(t, tt.wantAt, takeNow(t, a).Sub(second), "when the probe went")
			})
		})
	}
}

// TestAdaptiveStormWaitersAskAgain: while a storm's probe is out, an
// attempt is told to ask again within answerPoll, not the probe's whole
// timeout, so that a call with a short deadline is not given up as if the
// answer would take that long; once the probe is refused, it is told the
// whole wait until the next probe, which the service asked for.
func TestAdaptiveStormWaitersAskAgain(t *testing.T) {
	tests := []struct {
		name    string
		refused bool // the probe was refused before the attempt asks
	}{
		{name: "probe out"},
		{name: "probe refused", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cutAt := time.Now()
				a := pacedAdaptive(cutAt, 100, 100, 70)
				a.Observe(Turn{}, refusalAt(cutAt, cutAt))
				time.Sleep(100 * time.Millisecond)
				a.Observe(Turn{}, refusalAt(time.Now(), time.Now())) // nothing accepted since the cut: a storm
				require.True(t, a.storm, "a storm")

				probe := takeNow(t, a)
				time.Sleep(5 * time.Millisecond)
				if tt.refused {
					a.probeGap = 400 * time.Millisecond // a storm some probes old
					a.Observe(Turn{}, refusalAt(probe, time.Now()))
				}
				d, err := a.Take(t.Context(), Turn{})
				require.NoError(t, err)
				if tt.refused {
					assert.Equal(t, time.Until(a.probeAt), d, "the wait until the next probe")
					assert.Greater(t, d, answerPoll)
				} else {
					assert.Positive(t, d)
					assert.LessOrEqual(t, d, answerPoll, "a call with a short deadline would be given up")
				}
			})
		})
	}
}

// TestAdaptiveProbeSpacing: each refused probe of a storm spaces the next
// twice as far, no sooner than ten of the client's intervals, and no
// further than its Retry-After (or a second, or a tenth of the storm's age);
// a gap the doubling set past those ten intervals, up to a second, ends on
// the clock's grid of that size (here 30 ms past a whole second), unless the
// client sends 200 attempts a second or more.
func TestAdaptiveProbeSpacing(t *testing.T) {
	tests := []struct {
		name       string
		rate       float64
		gap        time.Duration
		retryAfter time.Duration
		stormAge   time.Duration
		want       time.Duration
		wait       time.Duration // until the next probe
	}{
		{name: "twice as far, on the grid of 250 ms", rate: 100, gap: 100 * time.Millisecond, retryAfter: time.Second, want: 200 * time.Millisecond, wait: 220 * time.Millisecond},
		{name: "twice as far, off the grid at 200 a second and more", rate: 1000, gap: 40 * time.Millisecond, retryAfter: time.Second, want: 80 * time.Millisecond, wait: 80 * time.Millisecond},
		{name: "ten intervals at least, off the grid", rate: 10, gap: 100 * time.Millisecond, retryAfter: 2 * time.Second, want: time.Second, wait: time.Second},
		{name: "Retry-After at most, over a second: off the grid", rate: 100, gap: 1500 * time.Millisecond, retryAfter: 2 * time.Second, want: 2 * time.Second, wait: 2 * time.Second},
		{name: "a second at most without Retry-After, on the whole second", rate: 100, gap: 800 * time.Millisecond, want: time.Second, wait: 970 * time.Millisecond},
		{name: "a tenth of a long storm", rate: 100, gap: 8 * time.Second, retryAfter: time.Second, stormAge: time.Minute, want: 6 * time.Second, wait: 6 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 30e6)
			a := AdaptiveRate().(*adaptive)
			a.pace.rate, a.storm, a.stormAt, a.probeGap = tt.rate, true, now.Add(-tt.stormAge), tt.gap
			a.probeRefused(now, tt.retryAfter)
			assert.Equal(t, tt.want, a.probeGap)
			assert.Equal(t, now.Add(tt.wait), a.probeAt)
		})
	}
}

// TestOnGrid: the first instant after now on the grid of the shortest
// power-of-two fraction of a second at least gap long, whole seconds
// counted from the Unix epoch (before it too).
func TestOnGrid(t *testing.T) {
	tests := []struct {
		name string
		now  time.Time
		gap  time.Duration
		want time.Time
	}{
		{name: "a second", now: time.Unix(5, 300e6), gap: time.Second, want: time.Unix(6, 0)},
		{name: "on the grid: the next instant", now: time.Unix(5, 0), gap: time.Second, want: time.Unix(6, 0)},
		{name: "600 ms: a second", now: time.Unix(5, 300e6), gap: 600 * time.Millisecond, want: time.Unix(6, 0)},
		{name: "500 ms", now: time.Unix(5, 300e6), gap: 500 * time.Millisecond, want: time.Unix(5, 500e6)},
		{name: "200 ms: 250", now: time.Unix(5, 300e6), gap: 200 * time.Millisecond, want: time.Unix(5, 500e6)},
		{name: "100 ms: 125", now: time.Unix(5, 300e6), gap: 100 * time.Millisecond, want: time.Unix(5, 375e6)},
		{name: "before the epoch", now: time.Unix(-2, 300e6), gap: 500 * time.Millisecond, want: time.Unix(-2, 500e6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, onGrid(tt.now, tt.gap))
		})
	}
}

// TestAdaptiveProbesFindAWindowsTurnTogether: two clients under a window
// limit whose count is spent, one refused 300 ms into the window and the
// other 470 ms, probe until the window turns on the next whole second:
// both probe at that instant, neither ahead of the other.
func TestAdaptiveProbesFindAWindowsTurnTogether(t *testing.T) {
	const rtt = 5 * time.Millisecond
	turn := time.Unix(1001, 0)
	for _, refused := range []time.Duration{300 * time.Millisecond, 470 * time.Millisecond} {
		t.Run(refused.String(), func(t *testing.T) {
			a := AdaptiveRate().(*adaptive)
			a.pace.rate = 100
			a.startStorm(time.Unix(1000, 0).Add(refused), time.Second)
			probes := 0
			for a.probeAt.Before(turn) {
				probes++
				a.probeRefused(a.probeAt.Add(rtt), time.Second)
			}
			assert.Equal(t, turn, a.probeAt, "the first probe at or after the turn")
			assert.LessOrEqual(t, probes, 6, "a few probes")
		})
	}
}

// TestAdaptiveLongStormUndoesItsCut: a storm of a second or more undoes the
// cut that began it — the refusal with nothing accepted since, which
// measured the storm's first moments — and the client comes back under
// where it stood before that cut (or under what the service took of it
// before the storm, when that was less); a shorter storm, a window limit's
// spent count, keeps the cut.
func TestAdaptiveLongStormUndoesItsCut(t *testing.T) {
	tests := []struct {
		name    string
		storm   time.Duration
		undoCut bool
	}{
		{name: "long storm", storm: 3 * time.Second, undoCut: true},
		{name: "a second", storm: longStorm, undoCut: true},
		{name: "short storm", storm: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, 850, 925, 800) // the service took less than it sends: a cut
			a.forgave = true                       // the second refusal in a row: it lowers where it rests too
			a.Observe(Turn{}, refusalAt(now, now))
			cutRate, cutWmax := a.pace.rate, a.wmax
			require.Less(t, cutRate, 850.0, "the refusal cut the rate")
			require.Less(t, cutWmax, 925.0, "and where it rests")

			sent := now.Add(40 * time.Millisecond) // after the cut's moment: a storm
			a.Observe(Turn{}, refusalAt(sent, sent.Add(10*time.Millisecond)))
			require.True(t, a.storm, "a refusal after the cut, nothing accepted since")
			require.Positive(t, a.share)

			end := a.stormAt.Add(tt.storm)
			a.Observe(Turn{}, Outcome{Kind: OutcomeAccepted, StatusCode: 201, Sent: end, Received: end})
			require.False(t, a.storm, "the storm ends with an accepted answer")
			from, wmax := cutRate, cutWmax
			if tt.undoCut {
				from, wmax = 850, 925
			}
			assert.InDelta(t, cutFactor*min(from, a.share), a.pace.rate, 1e-9, "the rate it comes back at")
			assert.InDelta(t, min(wmax, a.share), a.wmax, 1e-9, "where it rests")
		})
	}
}

// TestAdaptiveStarvedSlowStartGoesOn: a slow start held through a long
// storm before it grew from its floor, or through a storm of
// starvingStorm or more however it had grown, goes on, a refusal from its
// end; one that grew or began above its floor and met a storm shorter
// than that, or met a short storm, ends under what the service took of it.
func TestAdaptiveStarvedSlowStartGoesOn(t *testing.T) {
	tests := []struct {
		name     string
		from, at float64 // where the slow start began, and where it stands
		storm    time.Duration
		goesOn   bool
	}{
		{name: "from its floor, a long storm", from: slowFloor, at: slowFloor, storm: 3 * time.Second, goesOn: true},
		{name: "from its floor, a little grown", from: slowFloor, at: 3.5, storm: 3 * time.Second, goesOn: true},
		{name: "grown twice over", from: slowFloor, at: 2 * slowFloor, storm: 1200 * time.Millisecond},
		{name: "begun above its floor", from: 8.5, at: 8.5, storm: 1200 * time.Millisecond},
		{name: "grown twice over, a starving storm", from: slowFloor, at: 30, storm: starvingStorm, goesOn: true},
		{name: "begun above its floor, a starving storm", from: 8.5, at: 8.5, storm: 3 * time.Second, goesOn: true},
		{name: "a short storm", from: slowFloor, at: slowFloor, storm: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := AdaptiveRate().(*adaptive)
			a.first, a.firstCut = now.Add(-2*time.Second), now.Add(-2*time.Second)
			a.startSlow(a.firstCut, tt.from)
			a.setRate(tt.at)
			for i := range 4 { // the crumbs of its start: 4 a second
				a.accepted.add(now.Add(-time.Duration(i+1) * 200 * time.Millisecond))
			}
			a.startStorm(now, time.Second)
			require.Positive(t, a.share, "the storm measured a share")

			end := now.Add(tt.storm)
			a.Observe(Turn{}, Outcome{Kind: OutcomeAccepted, StatusCode: 201, Sent: end, Received: end})
			require.False(t, a.storm, "the storm ends with an accepted answer")
			assert.Equal(t, tt.goesOn, a.slow, "the slow start goes on")
			if tt.goesOn {
				assert.True(t, a.slowStruck, "and ends at its next refusal")
				assert.InDelta(t, max(cutFactor*min(tt.at, a.share), slowFloor), a.pace.rate, 1e-9, "from where it stood")
				return
			}
			assert.InDelta(t, cutFactor*min(tt.at, a.share), a.pace.rate, 1e-9, "under what the service took of it")
		})
	}
}
