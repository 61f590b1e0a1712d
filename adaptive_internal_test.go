package convo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// refusalAt is a 429 of an attempt sent at sent, answered at received, that
// asks for a second's wait.
func refusalAt(sent, received time.Time) Outcome {
	return Outcome{Kind: OutcomeRefused, StatusCode: 429, Sent: sent, Received: received, RetryAfter: time.Second, asked: true}
}

// refuseWhileProbing has a, past its rest and level, refused at now, and
// requires the refusal to have cut it.
func refuseWhileProbing(t *testing.T, a *adaptive, now time.Time) {
	t.Helper()
	a.grown = 3 * a.rest // probing
	a.Observe(Turn{}, refusalAt(now, now))
	require.True(t, a.streak, "the refusal cut")
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
