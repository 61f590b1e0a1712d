package convo_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// The adaptive limiter's scenarios, in virtual time against the fake as
// each kind of limit (ratesim_test.go): a service that refuses everything
// for a while, a limit that drops and rises again. The many-clients
// matrix is in adaptive_acceptance_test.go.

// stormFor makes svc refuse every request for d from now, with a
// Retry-After of retryAfter, then lets the fake answer again.
func stormFor(svc *simService, d, retryAfter time.Duration) {
	svc.setGate(refuseAll(retryAfter))
	go func() {
		time.Sleep(d)
		svc.setGate(nil)
	}()
}

// TestAdaptiveStartDoublesEachRoundTrip: before the first refusal the
// limiter paces nothing but lets four attempts out at once, and one more
// for each accepted; an answer wakes the attempt waiting for a free one.
// The first round's answers free turns as they come; a later round that
// fills its window waits for all its answers (or answerPoll after the
// first); a failed attempt frees its place only.
func TestAdaptiveStartDoublesEachRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := convo.AdaptiveRate()
		changed := lim.(interface{ Changed() <-chan struct{} })
		turn := convo.Turn{Method: "POST", Route: "/chatapp/contacts"}
		take := func() time.Duration {
			d, err := lim.Take(t.Context(), turn)
			require.NoError(t, err)
			return d
		}
		takeRound := func(n int, round string) {
			for i := range n {
				require.Zero(t, take(), "attempt %d of the %s", i+1, round)
			}
			require.Positive(t, take(), "one more than the %s's %d", round, n)
		}
		answer := func(kind convo.OutcomeKind, n int) {
			for range n {
				now := time.Now()
				lim.Observe(turn, convo.Outcome{Kind: kind, StatusCode: 201, Sent: now, Received: now})
			}
		}

		takeRound(4, "first round")
		woken := changed.Changed()
		answer(convo.OutcomeAccepted, 1)
		assert.True(t, isClosed(woken), "an answer wakes the waiter")
		takeRound(2, "first answer's own place and one more")
		answer(convo.OutcomeAccepted, 3)
		takeRound(6, "second round, its window of 8 full")

		answer(convo.OutcomeAccepted, 7)
		assert.Positive(t, take(), "one answer of the round is not in")
		time.Sleep(50 * time.Millisecond)
		takeRound(3+4+7, "third round (the slow answer's place still taken)")

		answer(convo.OutcomeFailed, 14)
		answer(convo.OutcomeAccepted, 1)
		takeRound(14+1+1, "fourth round (the failed attempts free their places only)")
	})
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestAdaptiveFreshClientInsideAStorm: a client that starts inside a 5 s
// storm, then a 1,000/s token bucket, learns nothing from the storm.
func TestAdaptiveFreshClientInsideAStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs fifteen thousand calls")
	}
	synctest.Test(t, func(t *testing.T) {
		const rate, storm = 1000, 5 * time.Second
		svc := newSimService(t, simKinds[0].opt(rate, 10), 2500*time.Microsecond)
		stormFor(svc, storm, 2*time.Second)
		o := runClients(t, svc, []simClient{{calls: 15 * rate, concurrency: 32}})
		got := o.accepted(storm+3*time.Second, storm+8*time.Second)
		t.Logf("accepted %.0f/s over [+3 s, +8 s], took %v, %d refused", float64(got)/5, o.took, o.refused())
		assert.Zero(t, o.totalFailed(), "failed calls: %v", o.errs)
		assert.GreaterOrEqual(t, float64(got), 0.8*rate*5)
		assert.LessOrEqual(t, o.took, storm+time.Duration(1.25*15*float64(time.Second))+2*time.Second)
	})
}

// TestAdaptiveRecoversFromAStorm: three seconds of refusals from 2 s into
// the run, then a token bucket at 10, 100 and 1,000 a second: within 3 s
// the client is back near the rate, and no call fails (the recovery
// acceptance's token bucket cells from one of its starts; see
// checkRecovery).
func TestAdaptiveRecoversFromAStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of 15,000 calls at 1,000 a second takes a second of CPU")
	}
	for _, rate := range rates {
		t.Run(strconv.Itoa(rate), func(t *testing.T) {
			checkRecovery(t, simKinds[0], rate, 2*time.Second, 0)
		})
	}
}

// TestAdaptiveHoldsABusyClientInAStorm: 200 calls at once meet a service
// that refuses everything for 2 s (Retry-After: 2). Once the client has
// seen the storm, at most a tenth of them reach the service before it
// ends; every call succeeds once it accepts again.
func TestAdaptiveHoldsABusyClientInAStorm(t *testing.T) {
	for _, rate := range []int{100, 1000} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := newSimService(t, simKinds[0].opt(rate, 10), 2500*time.Microsecond)
				const before, storm, calls = 3 * time.Second, 2 * time.Second, 200
				go func() {
					time.Sleep(before)
					stormFor(svc, storm, 2*time.Second)
				}()
				o := runClients(t, svc, []simClient{{calls: 3*rate + 2*calls, concurrency: calls}})
				var noticed time.Duration // when the first refusal reached the client
				reached := 0
				for _, x := range o.log {
					at := x.at.Sub(o.start)
					switch {
					case at < before || at >= before+storm:
					case noticed == 0:
						noticed = at + 2500*time.Microsecond
					case at > noticed:
						reached++
					}
				}
				t.Logf("%d requests reached the service in the storm after the client saw it; %d refused in all", reached, o.refused())
				assert.LessOrEqual(t, reached, calls/10)
				assert.Zero(t, o.totalFailed(), "failed calls: %v", o.errs)
			})
		})
	}
}

// TestAdaptiveLongStormSparesTheMostRefused: 16 calls at once, of three
// retries each, meet a service that refuses everything for 12 s
// (Retry-After: 1), then a token bucket. Each probe of the storm goes to
// the call refused least, so that no call spends its retry budget on them:
// none fails, and none is refused more than three times. Given to the call
// refused most, as the queue's order of retries would, the probes fell to
// one call (refused four times: all its attempts), which failed.
func TestAdaptiveLongStormSparesTheMostRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := newSimService(t, simKinds[0].opt(100, 10), 2500*time.Microsecond)
		stormFor(svc, 12*time.Second, time.Second)
		o := runClients(t, svc, []simClient{{calls: 100, concurrency: 16, opts: []convo.Option{convo.WithMaxRetries(3)}}})
		refusals := map[string]int{}
		most := 0
		for _, x := range o.log {
			if x.status == http.StatusTooManyRequests {
				refusals[x.body]++
				most = max(most, refusals[x.body])
			}
		}
		t.Logf("%d refused in all, %d calls refused, at most %d times one call", o.refused(), len(refusals), most)
		assert.Zero(t, o.totalFailed(), "failed calls: %v", o.errs)
		assert.LessOrEqual(t, most, 3, "refusals of one call")
	})
}

// TestAdaptiveFollowsAChangingLimit: one client under a token bucket that
// drops from 1,000/s to 10/s, then rises back. Over seconds 30–60 after
// the drop at most 10 % of the attempts are refused, and they leave at the
// pace (never more than two within a tenth of the interval); over seconds
// 10–15 after the rise it gets at least 90 % of the limit.
func TestAdaptiveFollowsAChangingLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs tens of thousands of calls")
	}
	synctest.Test(t, func(t *testing.T) {
		svc := newSimService(t, nil, 2500*time.Microsecond)
		bucket := newBucketGate(1000, 10)
		svc.setGate(bucket.gate)
		const drop, rise = 10 * time.Second, 80 * time.Second
		go func() {
			time.Sleep(drop)
			bucket.setRate(10)
			time.Sleep(rise - drop)
			bucket.setRate(1000)
		}()
		o := runClients(t, svc, []simClient{{calls: 1000*10 + 10*70 + 1000*20, concurrency: 32}})
		all, refused := o.attempts(drop+30*time.Second, drop+60*time.Second)
		t.Logf("after the drop: %d of %d attempts refused", refused, all)
		assert.LessOrEqual(t, float64(refused), 0.1*float64(all))
		var at []time.Duration
		for _, x := range o.log {
			if t := x.at.Sub(o.start); t >= drop+30*time.Second && t < drop+60*time.Second {
				at = append(at, t)
			}
		}
		for i := 2; i < len(at); i++ {
			if at[i]-at[i-2] < 10*time.Millisecond {
				t.Errorf("three attempts within a tenth of the interval at %v", at[i-2])
				break
			}
		}
		got := o.accepted(rise+10*time.Second, rise+15*time.Second)
		t.Logf("after the rise: %.0f/s", float64(got)/5)
		assert.GreaterOrEqual(t, float64(got), 0.9*1000*5)
	})
}
