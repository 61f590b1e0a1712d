package convo

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCutFromAndPlateauUnder: a refusal cuts by 15 %, or by half an
// attempt a second when that is more (at most by half); the regrowth rests
// 5 % under the last refusal's rate, or half an attempt a second under it
// when that is more — a whole attempt a second when the refusal came at 5
// a second or less — at no less than 60 % of it. At 10 a second and more
// both are the plain shares.
func TestCutFromAndPlateauUnder(t *testing.T) {
	tests := []struct {
		rate, cut, plateau float64
	}{
		{rate: 1000, cut: 850, plateau: 0.95},
		{rate: 10, cut: 8.5, plateau: 0.95},
		{rate: 6, cut: 5.1, plateau: 1 - 0.5/6},
		{rate: 5, cut: 4.25, plateau: 0.8},
		{rate: 2.5, cut: 2, plateau: 0.6},
		{rate: 1.5, cut: 1, plateau: 0.6},
		{rate: 0.01, cut: 0.005, plateau: 0.6},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.rate), func(t *testing.T) {
			assert.InDelta(t, tt.cut, cutFrom(tt.rate), 1e-9)
			assert.InDelta(t, tt.plateau, plateauUnder(tt.rate), 1e-9)
		})
	}
}

// TestAdaptiveRestsUnderASmallRefusal: after a refusal at a probe of its
// own, the regrowth rests 5 % under the refusal's rate, or half an attempt
// a second under it when that is more — a whole attempt a second when the
// refusal came at 5 a second or less, which lies under the cut, so that the
// rate falls there at once and stays until the client probes again.
func TestAdaptiveRestsUnderASmallRefusal(t *testing.T) {
	tests := []struct {
		refusedAt float64
		soon      float64 // the rate 10 ms after the cut
		rest      float64 // where it rests
	}{
		{refusedAt: 1000, soon: 850, rest: 950},
		{refusedAt: 6, soon: 5.1, rest: 5.5},
		{refusedAt: 5, soon: 4, rest: 4},
		{refusedAt: 2.5, soon: 1.5, rest: 1.5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.refusedAt), func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, tt.refusedAt, tt.refusedAt, 0)
			a.grown = 3 * a.rest // probing
			a.Observe(Turn{}, refusalAt(now, now))
			require.True(t, a.streak, "the refusal cut")
			a.busyUntil = now.Add(time.Hour) // attempts keep waiting
			a.advance(now.Add(10 * time.Millisecond))
			assert.InDelta(t, tt.soon, a.pace.rate, 0.01*tt.soon, "10 ms after the cut")
			a.advance(now.Add(a.rest))
			assert.InDelta(t, tt.rest, a.pace.rate, 1e-9, "at the end of the regrowth")
			a.advance(now.Add(a.rest + a.rest/2))
			assert.InDelta(t, tt.rest, a.pace.rate, 1e-9, "level until it probes")
		})
	}
}

// TestSlowStepGrowth: a slow start's step grows the rate by 30 % per tenth
// of a second it lasted, by time, so a step that one interval at a slow
// rate made longer grows more, up to the growth of a step at the slow
// start's floor of 2 a second (1.3⁵).
func TestSlowStepGrowth(t *testing.T) {
	tests := []struct {
		step   time.Duration
		growth float64
	}{
		{step: 100 * time.Millisecond, growth: 1.3},       // 10 a second and more
		{step: 200 * time.Millisecond, growth: 1.3 * 1.3}, // 5 a second
		{step: 250 * time.Millisecond, growth: 1.9269},    // 4 a second
		{step: 400 * time.Millisecond, growth: 2.8561},    // 2.5 a second
		{step: 500 * time.Millisecond, growth: 3.7129},    // 2 a second, the floor: as fast in seconds
		{step: 600 * time.Millisecond, growth: 3.7129},    // under the floor (a first cut in slow start): no more
		{step: 10 * time.Second, growth: 3.7129},
	}
	for _, tt := range tests {
		t.Run(tt.step.String(), func(t *testing.T) {
			assert.InDelta(t, tt.growth, slowStepGrowth(tt.step), 1e-4)
		})
	}
}

// TestAdaptiveEchoCutsNothing: a refusal after a cut, while the service
// took at least as much of the client over the trailing second as it sends
// and as at its last refusal (a window limit still full of a burst the
// client has cut for), leaves the rate alone; the same refusal when the
// service took less than the client sends, or less than at its last
// refusal (a neighbour took the room), cuts it.
func TestAdaptiveEchoCutsNothing(t *testing.T) {
	tests := []struct {
		name     string
		accepted int     // answers accepted over the trailing second
		wmax     float64 // the rate of the last refusal
		cut      bool
	}{
		{name: "window still full of the burst", accepted: 1000, wmax: 925, cut: false},
		{name: "service took less than the client sends", accepted: 700, wmax: 925, cut: true},
		{name: "service took less than at the last refusal", accepted: 1000, wmax: 1100, cut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := pacedAdaptive(time.Unix(1000, 0), 850, tt.wmax, tt.accepted)
			now := time.Unix(1000, 0)
			a.Observe(Turn{}, Outcome{Kind: OutcomeRefused, StatusCode: 429, Sent: now, Received: now, RetryAfter: time.Second, asked: true})
			if tt.cut {
				assert.Less(t, a.pace.rate, 850.0)
			} else {
				assert.Equal(t, 850.0, a.pace.rate)
			}
		})
	}
}

// TestAdaptiveForgivesOneRefusalWhileResting: the first refusal while the
// client rests under its last rate (a neighbour's probe) cuts the rate but
// keeps how long the regrowth lasts, and where it rests unless that is more
// than a cut above what the service took; a second in a row (a limit that
// fell) lowers the one and lengthens the other; a refusal at a probe of its
// own is cut as before and ends the run, so that the next refusal while
// resting is forgiven again.
func TestAdaptiveForgivesOneRefusalWhileResting(t *testing.T) {
	tests := []struct {
		name     string
		accepted int  // answers accepted over the trailing second
		forgave  bool // the last cut was a forgiven refusal while resting
		probing  bool
		wantWmax float64       // 0: lower than before
		rest     time.Duration // how long it rested before the refusal
		wantRest time.Duration
	}{
		{name: "first while resting", accepted: 800, wantWmax: 925, rest: 600 * time.Millisecond, wantRest: 600 * time.Millisecond},
		{name: "first while resting, far over what the service took", accepted: 700, wantWmax: 700 / cutFactor, rest: 600 * time.Millisecond, wantRest: 600 * time.Millisecond},
		{name: "second in a row", accepted: 800, forgave: true, rest: 600 * time.Millisecond, wantRest: 900 * time.Millisecond},
		{name: "second in a row, near the longest rest", accepted: 800, forgave: true, rest: 800 * time.Millisecond, wantRest: maxRest},
		{name: "at a probe of its own", accepted: 800, forgave: true, probing: true, rest: 600 * time.Millisecond, wantRest: 900 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, 850, 925, tt.accepted) // the service took less than it sends: a cut
			a.rest = tt.rest
			a.forgave = tt.forgave
			if tt.probing {
				a.grown = 2 * a.rest
			}
			a.Observe(Turn{}, refusalAt(now, now))
			assert.Less(t, a.pace.rate, 850.0, "the rate is cut")
			forgiven := tt.wantWmax > 0
			assert.Equal(t, forgiven, a.forgave)
			if forgiven {
				assert.InDelta(t, tt.wantWmax, a.wmax, 1e-9, "where it rests")
				assert.Equal(t, tt.wantRest, a.rest, "how long it rests")
				return
			}
			assert.Less(t, a.wmax, 800.0, "where it rests")
			assert.Equal(t, tt.wantRest, a.rest, "how long it rests")
		})
	}
}

// TestAdaptiveSlowStartEndsInASpentWindow: a slow start that grew into a
// window limit ends at the rate it sent at, which the window let through
// until its count was spent; when the second of the attempts under way is
// refused with nothing accepted since, the rate rests at what the service
// took of the client over the trailing second instead, and is cut under
// it. One refusal, an answer accepted between them, or a client in its
// first second changes nothing.
func TestAdaptiveSlowStartEndsInASpentWindow(t *testing.T) {
	tests := []struct {
		name     string
		age      time.Duration // since the client's first turn
		refusals int           // of attempts in flight after the cut
		accepted bool          // an answer accepted after the first
		learnt   bool
	}{
		{name: "two refused, nothing accepted", age: 10 * time.Second, refusals: 2, learnt: true},
		{name: "three refused", age: 10 * time.Second, refusals: 3, learnt: true},
		{name: "one refused", age: 10 * time.Second, refusals: 1},
		{name: "an answer accepted between", age: 10 * time.Second, refusals: 2, accepted: true},
		{name: "in the client's first second", age: 900 * time.Millisecond, refusals: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := slowStartInAWindow(now, tt.age)
			a.Observe(Turn{}, refusalAt(now.Add(-time.Millisecond), now)) // the cut that ends it
			require.False(t, a.slow)
			require.InDelta(t, 1600, a.wmax, 20, "measured over its last steps: the rate it sent at")
			sent := now.Add(-time.Millisecond)
			for i := range tt.refusals {
				a.Observe(Turn{}, refusalAt(sent, now))
				if i == 0 && tt.accepted {
					a.Observe(Turn{}, Outcome{Kind: OutcomeAccepted, StatusCode: 201, Sent: sent, Received: now})
				}
			}
			if tt.learnt {
				assert.InDelta(t, 1000, a.wmax, 1e-9, "where it rests: the window's count")
				assert.InDelta(t, cutFactor*1000, a.pace.rate, 1e-9, "the rate: a cut under it")
				return
			}
			assert.Greater(t, a.wmax, 1500.0, "where it rests")
			assert.Greater(t, a.pace.rate, 1000.0, "the rate: cut for the attempts in flight only")
		})
	}
}

// slowStartInAWindow is an adaptive limiter at now, age after its first
// turn, in a slow start at 1,600 a second that met its first refusal
// already, whose last 1,000 attempts (the whole trailing second's) a window
// limit accepted at that rate.
func slowStartInAWindow(now time.Time, age time.Duration) *adaptive {
	a := AdaptiveRate().(*adaptive)
	a.first, a.firstCut = now.Add(-age), now.Add(-age)
	a.startSlow(now.Add(-700*time.Millisecond), 1600)
	a.slowStruck = true
	a.busyUntil = now
	for i := range 1000 {
		a.accepted.add(now.Add(-625*time.Millisecond + time.Duration(i)*625*time.Millisecond/1000))
	}
	return a
}

// pacedAdaptive is an adaptive limiter at now that paces at rate, was cut
// half a second ago after a refusal at wmax and regrows towards it, and saw
// accepted answers spread evenly over the trailing second.
func pacedAdaptive(now time.Time, rate, wmax float64, accepted int) *adaptive {
	a := AdaptiveRate().(*adaptive)
	a.first = now.Add(-10 * time.Second)
	a.firstCut = a.first
	a.cutAt = now.Add(-500 * time.Millisecond)
	a.rest, a.wmax = time.Second, wmax
	a.anchor(now, rate)
	a.busyUntil = now // idle since: the curve does not move before the refusal
	for i := range accepted {
		a.accepted.add(now.Add(-time.Second + time.Duration(i+1)*time.Second/time.Duration(accepted+1)))
	}
	giveOver(a, now, int(rate)) // it sent at its pace
	return a
}

// giveOver records n turns given to a, spread over the second before now.
func giveOver(a *adaptive, now time.Time, n int) {
	a.given = countWindow{}
	for i := range n {
		a.given.add(now.Add(-time.Second + time.Duration(i+1)*time.Second/time.Duration(n+1)))
	}
}

// TestAdaptiveCutsFromWhatItSent: a refusal cuts from what the service
// took of the client over the trailing second when that is less than it
// sent at its pace; when the client itself sent under half its pace over
// that second (its calls sat out an earlier refusal), what the service
// took measures its lull, not its room, and the cut goes from its rate.
func TestAdaptiveCutsFromWhatItSent(t *testing.T) {
	tests := []struct {
		name  string
		given int // turns given over the trailing second, at a pace of 1,000
		want  float64
	}{
		{name: "sent at its pace", given: 1000, want: cutFrom(88)},
		{name: "sent a little more than half its pace", given: 520, want: cutFrom(88)},
		{name: "sent under half its pace", given: 90, want: cutFrom(1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, 1000, 1000, 88)
			a.grown = 3 * a.rest // probing: its own refusal, cut in full
			giveOver(a, now, tt.given)
			a.Observe(Turn{}, refusalAt(now, now))
			require.True(t, a.streak, "the refusal cut")
			assert.InDelta(t, tt.want, a.pace.rate, 1e-9)
		})
	}
}

// TestAdaptiveCutsAnOverrunWindowFromWhatItTook: a probe's refusal cuts
// from the lowest rate it sent at over the trailing second, or from what
// the service took when that is less; under a window limit, at hundreds a
// second, from what the service took whenever that is less than the
// probe's rate, since a window refuses only once the probe's burst has
// spent its count.
func TestAdaptiveCutsAnOverrunWindowFromWhatItTook(t *testing.T) {
	tests := []struct {
		name     string
		rate     float64 // the probe's rate at the refusal
		lowest   float64 // the lowest it sent at over the trailing second
		took     int     // what the service took of it over that second
		windowed bool
		want     float64
	}{
		{name: "window at hundreds a second", rate: 1200, lowest: 230, took: 535, windowed: true, want: cutFrom(535)},
		{name: "token bucket at hundreds a second", rate: 1200, lowest: 230, took: 535, want: cutFrom(1200)},
		{name: "window at a few dozen a second", rate: 400, lowest: 100, took: 150, windowed: true, want: cutFrom(400)},
		{name: "window, took less than the lowest it sent", rate: 400, lowest: 200, took: 150, windowed: true, want: cutFrom(150)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, tt.rate, tt.rate, tt.took)
			a.grown = 3 * a.rest // probing
			a.windowed = tt.windowed
			a.paced.add(now.Add(-900*time.Millisecond), tt.lowest)
			a.Observe(Turn{}, refusalAt(now, now))
			require.True(t, a.streak, "the refusal cut")
			assert.InDelta(t, tt.want, a.pace.rate, 1e-9)
		})
	}
}

// TestClockSpeed: the curve's clock under a window limit runs at full
// speed for a client last refused at 25 attempts a second or less, or not
// yet refused, slower above, down to about half at 90 a second, and back at
// full speed by 111.
func TestClockSpeed(t *testing.T) {
	tests := []struct {
		wmax, speed float64
	}{
		{wmax: 0, speed: 1},
		{wmax: 10, speed: 1},
		{wmax: 25, speed: 1},
		{wmax: 50, speed: math.Sqrt(0.5)},
		{wmax: 75, speed: math.Sqrt(1.0 / 3)},
		{wmax: 80, speed: math.Sqrt(25.0 / 80)},
		{wmax: 100, speed: math.Pow(100.0/111, 3)},
		{wmax: 111, speed: 1},
		{wmax: 500, speed: 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.wmax), func(t *testing.T) {
			assert.InDelta(t, tt.speed, clockSpeed(tt.wmax), 1e-9)
		})
	}
}

// TestAdaptiveLearnsAWindowFromItsChecks: a refused check (a window whose
// count is spent refuses until it turns) marks the limit a window, and an
// accepted one (a token bucket has room again an interval after a cut)
// unmarks it; an answer to an attempt that was not the check, or one with
// no answer, changes nothing.
func TestAdaptiveLearnsAWindowFromItsChecks(t *testing.T) {
	tests := []struct {
		name     string
		before   bool
		check    bool
		outcome  OutcomeKind
		windowed bool
	}{
		{name: "check refused", check: true, outcome: OutcomeRefused, windowed: true},
		{name: "check accepted", before: true, check: true, outcome: OutcomeAccepted, windowed: false},
		{name: "check not answered", before: true, check: true, outcome: OutcomeFailed, windowed: true},
		{name: "an attempt sent before the check, refused", check: false, outcome: OutcomeRefused, windowed: false},
		{name: "an attempt sent before the check, accepted", before: true, check: false, outcome: OutcomeAccepted, windowed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, 100, 100, 100)
			a.windowed = tt.before
			a.checkOut = now.Add(-5 * time.Millisecond)
			sent := a.checkOut
			if !tt.check {
				sent = sent.Add(-time.Millisecond)
			}
			o := Outcome{Kind: tt.outcome, Sent: sent, Received: now}
			if tt.outcome == OutcomeRefused {
				o = refusalAt(sent, now)
			}
			a.Observe(Turn{}, o)
			assert.Equal(t, tt.windowed, a.windowed)
		})
	}
}

// TestAdaptiveWindowSlowsTheCurve: under a window limit, a client last
// refused at 50 a second regrows to its rest in its rest ÷ √½ of busy time,
// so that a neighbour refused at less probes first; under a token bucket,
// or refused at 25 a second or less, in its rest.
func TestAdaptiveWindowSlowsTheCurve(t *testing.T) {
	tests := []struct {
		name     string
		wmax     float64
		windowed bool
		speed    float64
	}{
		{name: "window, refused at 50", wmax: 50, windowed: true, speed: math.Sqrt(0.5)},
		{name: "token bucket, refused at 50", wmax: 50, windowed: false, speed: 1},
		{name: "window, refused at 20", wmax: 20, windowed: true, speed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := pacedAdaptive(now, cutFrom(tt.wmax), tt.wmax, 0)
			a.windowed = tt.windowed
			a.busyUntil = now.Add(time.Hour) // attempts keep waiting
			level := plateauUnder(tt.wmax) * tt.wmax
			regrown := now.Add(time.Duration(float64(a.rest) / tt.speed))
			a.advance(regrown.Add(-50 * time.Millisecond))
			assert.Less(t, a.pace.rate, level, "regrown before its time")
			a.advance(regrown)
			assert.InDelta(t, level, a.pace.rate, 1e-9, "at the end of the regrowth")
		})
	}
}

// TestAdaptiveChecksAfterACut: after a cut the next attempt goes alone and
// the others wait for its answer, however long the pace says; an accepted
// check lets the pace go on from then, one turn at a time; a check refused
// within the cut's moment is followed by another, as far from its answer
// as the answer was from the cut; a later refused check starts a storm.
func TestAdaptiveChecksAfterACut(t *testing.T) {
	tests := []struct {
		name      string
		checkAt   time.Duration // when the check leaves, after the cut
		outcome   OutcomeKind
		wantHeld  bool // the next attempt after the answer waits for another check
		wantStorm bool
	}{
		{name: "accepted: the pace goes on", checkAt: 10 * time.Millisecond, outcome: OutcomeAccepted},
		{name: "refused within the cut's moment: another check, as far from the answer as the cut", checkAt: 10 * time.Millisecond, outcome: OutcomeRefused, wantHeld: true},
		{name: "refused later: a storm", checkAt: 100 * time.Millisecond, outcome: OutcomeRefused, wantStorm: true},
		{name: "no answer: the pace goes on", checkAt: 10 * time.Millisecond, outcome: OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cutAt := time.Now()
				a := pacedAdaptive(cutAt, 100, 100, 70) // the service took less than it sends: a cut
				a.Observe(Turn{}, refusalAt(cutAt, cutAt))
				require.True(t, a.checking, "the refusal cut")

				time.Sleep(tt.checkAt)
				check := takeNow(t, a)
				for range 3 { // however long it waits, no turn while the check is out
					d, err := a.Take(t.Context(), Turn{})
					require.NoError(t, err)
					require.Positive(t, d, "a turn while the check was out")
					require.LessOrEqual(t, d, answerPoll, "a call with a short deadline would be given up")
					time.Sleep(4 * a.pace.interval())
				}

				answered := time.Now()
				o := Outcome{Kind: tt.outcome, Sent: check, Received: answered}
				if tt.outcome == OutcomeRefused {
					o = refusalAt(check, answered)
				}
				a.Observe(Turn{}, o)
				assert.Equal(t, tt.wantStorm, a.storm, "storm")
				if tt.wantStorm {
					return
				}
				next := takeNow(t, a)
				assert.Equal(t, tt.wantHeld, !a.checkOut.IsZero(), "the next attempt is a check")
				if !tt.wantHeld {
					d, err := a.Take(t.Context(), Turn{})
					require.NoError(t, err)
					assert.Positive(t, d, "the turns the check held back left as a burst")
				}
				assert.False(t, next.Before(answered), "a turn before the check's answer")
				if tt.wantHeld {
					assert.GreaterOrEqual(t, next.Sub(answered), answered.Sub(cutAt), "the next check as soon as the answer came")
				}
			})
		})
	}
}

// refusalAt is a 429 of an attempt sent at sent, answered at received, that
// asks for a second's wait.
func refusalAt(sent, received time.Time) Outcome {
	return Outcome{Kind: OutcomeRefused, StatusCode: 429, Sent: sent, Received: received, RetryAfter: time.Second, asked: true}
}

// takeNow waits for a's next turn, as the client does, and returns when it
// came.
func takeNow(t *testing.T, a *adaptive) time.Time {
	t.Helper()
	for range 100 {
		d, err := a.Take(t.Context(), Turn{})
		require.NoError(t, err)
		if d == 0 {
			return time.Now()
		}
		time.Sleep(d)
	}
	require.FailNow(t, "no turn after 100 waits")
	return time.Time{}
}

// TestAdaptiveKeepsCallsForAWindowsTurn: a client with six calls out, cut
// 930 ms into a second by refusals that each ask for a wait, sends its
// check at once when it has calls left, but waits for the next whole
// second (where a window turns) when the refusals left it a third of its
// calls or fewer, or less when the first refused call is back sooner; a
// client that sends a few attempts a second, or is in a slow start, is not
// held.
func TestAdaptiveKeepsCallsForAWindowsTurn(t *testing.T) {
	tests := []struct {
		name       string
		rate       float64
		refused    int // of the six calls out
		retryAfter time.Duration
		slow       bool
		wantAt     time.Duration // when the check goes, into the second; 0: at the pace
	}{
		{name: "two of six refused: the check at the pace", rate: 1000, refused: 2, retryAfter: time.Second},
		{name: "four of six refused: the check on the whole second", rate: 1000, refused: 4, retryAfter: time.Second, wantAt: time.Second},
		{name: "four of six refused for 50 ms: the check when the first is back", rate: 1000, refused: 4, retryAfter: 50 * time.Millisecond, wantAt: 990 * time.Millisecond},
		{name: "a client under 200 a second: the check at the pace", rate: 150, refused: 4, retryAfter: time.Second},
		{name: "in a slow start: the check at the pace", rate: 1000, slow: true, refused: 4, retryAfter: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				second := time.Now() // the bubble's clock starts on a whole second
				time.Sleep(900 * time.Millisecond)
				a := pacedAdaptive(time.Now(), tt.rate, tt.rate, int(0.7*tt.rate))
				if tt.slow {
					a.startSlow(time.Now(), tt.rate)
				}
				var sent []time.Time
				for range 6 {
					sent = append(sent, takeNow(t, a))
				}
				cutAt := second.Add(940 * time.Millisecond)
				time.Sleep(time.Until(cutAt))
				for _, at := range sent[:tt.refused] {
					o := refusalAt(at, cutAt)
					o.RetryAfter = tt.retryAfter
					a.Observe(Turn{}, o)
				}
				require.True(t, a.checking, "the refusals cut")

				check := takeNow(t, a).Sub(second)
				if tt.wantAt == 0 {
					assert.Less(t, check, 960*time.Millisecond, "the check waited")
					return
				}
				assert.Equal(t, tt.wantAt, check, "when the check went")
			})
		})
	}
}

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

// TestAdaptiveMeasureLeavesOutStorms: what the service took of a client is
// measured over the time it sent, its own storms (in which it held every
// attempt but a probe) left out, so that a client that came back from a
// storm later than its neighbours does not take its absence for a smaller
// share. Too little time outside storms tells nothing.
func TestAdaptiveMeasureLeavesOutStorms(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var nine []stormAgo // 20 ms each, 100 ms apart: the ninth pushes the first out
	for i := range 9 {
		nine = append(nine, stormAgo{ms(950 - 100*i), ms(930 - 100*i)})
	}
	tests := []struct {
		name   string
		storms []stormAgo
		want   float64 // 0: too little to tell
	}{
		{name: "no storm", want: 100},
		{name: "a storm that ended", storms: []stormAgo{{ms(700), ms(300)}}, want: 100},
		{name: "a storm under way", storms: []stormAgo{{ms(300), 0}}, want: 100},
		{name: "two storms", storms: []stormAgo{{ms(900), ms(800)}, {ms(400), ms(200)}}, want: 100},
		{name: "a storm begun before the second", storms: []stormAgo{{ms(1500), ms(500)}}, want: 100},
		{name: "nine storms: the oldest counts as time it sent", storms: nine, want: 82 / 0.84},
		{name: "too little time outside storms", storms: []stormAgo{{time.Second, ms(200)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Unix(1000, 0)
			a := AdaptiveRate().(*adaptive)
			a.first = now.Add(-10 * time.Second)
			for _, s := range tt.storms {
				a.held.begin(now.Add(-s.from))
				if s.to > 0 {
					a.held.end(now.Add(-s.to))
				}
			}
			// 100 a second accepted while it sent.
			for at := now.Add(-time.Second); at.Before(now); at = at.Add(ms(10)) {
				if !heldAt(tt.storms, now.Sub(at)) {
					a.accepted.add(at)
				}
			}
			got, ok := a.measured(now)
			require.Equal(t, tt.want > 0, ok, "tells a rate")
			if ok {
				assert.InDelta(t, tt.want, got, 1e-6)
			}
		})
	}
}

// stormAgo is a storm from and to a time before now; to 0: under way.
type stormAgo struct{ from, to time.Duration }

// heldAt reports whether a storm held the client ago before now.
func heldAt(storms []stormAgo, ago time.Duration) bool {
	for _, s := range storms {
		if ago <= s.from && ago > s.to {
			return true
		}
	}
	return false
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
