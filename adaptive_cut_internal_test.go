package convo

import (
	"fmt"
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
			refuseWhileProbing(t, a, now)
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
			giveOver(a, now, tt.given)
			refuseWhileProbing(t, a, now) // its own refusal, cut in full
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
			a.windowed = tt.windowed
			a.paced.add(now.Add(-900*time.Millisecond), tt.lowest)
			refuseWhileProbing(t, a, now)
			assert.InDelta(t, tt.want, a.pace.rate, 1e-9)
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
