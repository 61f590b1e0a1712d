package convo_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	convo "github.com/convoapi/convo-go"
)

// sharedCells are the calls of a run at each rate: 20 seconds' worth at
// 10/s, 10 at 100/s, 5 at 1,000/s, as in the bulk test.
var sharedCells = []struct{ rate, n int }{{10, 200}, {100, 1000}, {1000, 5000}}

// TestOneLimiterSharedByKClients: K clients of one process on one key, N
// calls split evenly, all given the same limiter, at every kind of limit
// and rate. One FixedRate at the key's rate makes them one client at that
// rate: no call fails, nothing is sent before its Retry-After, the run
// takes at most 1.1 × N ÷ rate + 1 s, 429s stay within 2 % of N + 2·K, and
// Jain's index of the clients' throughputs is at least 0.95. One
// AdaptiveRate shared by 4 or 16 clients learns for them all, as for one
// client (the bulk test's): no call fails, the run takes at most 1.25 × N ÷
// rate + 1 s, and 429s stay within 10 % of N + 32.
func TestOneLimiterSharedByKClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few hundred thousand calls")
	}
	limiters := []struct {
		name string
		make func(rate int) convo.RateLimiter
		ks   []int // one AdaptiveRate for one client is the bulk test's
	}{
		{"FixedRate", func(rate int) convo.RateLimiter { return convo.FixedRate(float64(rate)) }, []int{1, 2, 4, 8, 16}},
		{"AdaptiveRate", func(int) convo.RateLimiter { return convo.AdaptiveRate() }, []int{4, 16}},
	}
	for _, lim := range limiters {
		for _, kind := range simKinds {
			for _, cell := range sharedCells {
				for _, k := range lim.ks {
					t.Run(fmt.Sprintf("%s/%s/%d/K=%d", lim.name, kind.name, cell.rate, k), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							o := runShared(t, kind, cell.rate, cell.n, k, lim.make(cell.rate))
							ideal := time.Duration(float64(cell.n) / float64(cell.rate) * float64(time.Second))
							t.Logf("%.2f× N ÷ rate, %d 429s, Jain %.3f", o.took.Seconds()/ideal.Seconds(), o.refused(), o.jain())
							assert.Zero(t, o.totalFailed(), "failed calls: %v", o.errs)
							assert.Zero(t, o.early(), "re-sent before its Retry-After")
							assert.Zero(t, o.duplicates(), "created twice")
							if lim.name == "FixedRate" {
								assert.LessOrEqual(t, o.took, ideal*11/10+time.Second, "wall time")
								assert.LessOrEqual(t, o.refused(), cell.n/50+2*k, "429 answers")
								assert.GreaterOrEqual(t, o.jain(), 0.95, "Jain's index")
							} else {
								assert.LessOrEqual(t, o.took, ideal*5/4+time.Second, "wall time")
								assert.LessOrEqual(t, o.refused(), cell.n/10+32, "429 answers")
							}
						})
					})
				}
			}
		}
	}
}

// runShared runs k clients of n calls together against kind at rate, all
// given lim, with 32 calls at once between them (at least 2 each), as the
// one client of the bulk test.
func runShared(t *testing.T, kind simKind, rate, n, k int, lim convo.RateLimiter) simOutcome {
	svc := newSimService(t, kind.opt(rate, 10), 2500*time.Microsecond)
	clients := make([]simClient, k)
	concurrency := max(32/k, 2)
	for i := range clients {
		calls := n / k
		if i < n%k {
			calls++
		}
		clients[i] = simClient{calls: calls, concurrency: concurrency, opts: []convo.Option{convo.WithRateLimiter(lim)}}
	}
	return runClients(t, svc, clients)
}
