package convo_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// stormCounts runs 200 goroutines, one call each, started 10 ms apart (so
// 2 s of offered load, 25 ms one way), against a fake whose first answer is 429 with
// Retry-After: 2. It returns how many requests reached the server during the
// wait the service asked for, and how many of those had already left the
// client when the 429 reached it (in flight).
func stormCounts(t *testing.T, gate bool) (during, inFlight int) {
	synctest.Test(t, func(t *testing.T) {
		s, c, tr := inMemoryFake(t, 25*time.Millisecond, unlimited, convo.WithRateLimitGate(gate))
		s.AddFault(fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Times: 1})

		var wg sync.WaitGroup
		for i := range 200 {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 10 * time.Millisecond)
				_, err := c.Channels.List(context.Background())
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		require.False(t, tr.firstOut.IsZero())
		end := tr.firstOut.Add(2 * time.Second)
		for i, at := range tr.arrived {
			if at.After(tr.firstOut) && at.Before(end) {
				during++
				if !tr.sent[i].After(tr.firstOut) {
					inFlight++
				}
			}
		}
	})
	return during, inFlight
}

// TestRateLimitGateCalmsAStorm measures requests reaching the service during
// the wait a 429 asked for, gate on and off (go test -run
// TestRateLimitGateCalmsAStorm -v prints both counts).
func TestRateLimitGateCalmsAStorm(t *testing.T) {
	on, inFlightOn := stormCounts(t, true)
	off, _ := stormCounts(t, false)
	t.Logf("requests reaching the service during the 2 s wait: gate on %d (in flight %d), gate off %d", on, inFlightOn, off)
	assert.LessOrEqual(t, on, inFlightOn, "gate on: only requests already in flight reach the service")
	assert.GreaterOrEqual(t, off, 190, "gate off: every goroutine keeps calling")
}

func TestRateLimitGateHoldsWithinEachCallsBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c, tr := inMemoryFake(t, time.Millisecond, unlimited, convo.WithMaxRetries(0))
		s.AddFault(fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: 10 * time.Second, Times: 1})
		ctx := context.Background()

		_, err := c.Channels.List(ctx)
		require.ErrorIs(t, err, convo.ErrRateLimited, "no retry budget: the 429 itself")

		// A call whose deadline ends before the hold returns the typed 429 at
		// once, without a request.
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		start := time.Now()
		var meta convo.Response
		_, err = c.Channels.List(short, convo.CaptureResponse(&meta))
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
		assert.True(t, apiErr.Temporary())
		assert.Equal(t, 0, apiErr.Attempts, "held before any request")
		assert.Greater(t, apiErr.RetryAfter, 9*time.Second)
		assert.Zero(t, time.Since(start))
		assert.Len(t, tr.sent, 1)

		// So does a call whose maximum retry wait is shorter than the hold.
		_, err = c.Channels.List(ctx, convo.WithMaxRetryWait(time.Second))
		require.ErrorIs(t, err, convo.ErrRateLimited)
		assert.Len(t, tr.sent, 1)

		// A call that may wait goes out when the hold ends, not before.
		start = time.Now()
		_, err = c.Channels.List(ctx)
		require.NoError(t, err)
		assert.Equal(t, 10*time.Second+tr.latency, time.Since(start), "the hold, then the request's own trip")
		assert.Len(t, tr.sent, 2)
	})
}

// The anomaly report has its own limit (about one pass a day): its 429 holds
// anomaly calls only, never the rest of the client.
func TestAnomalyRateLimitHoldsOnlyAnomalyCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c, tr := inMemoryFake(t, time.Millisecond, unlimited)
		s.AddFault(fake.Fault{Path: "/conversations/anomalies", Status: http.StatusTooManyRequests, RetryAfter: 6 * time.Hour, Times: 1})
		ctx := context.Background()

		_, err := c.Anomalies.Get(ctx, nil)
		require.ErrorIs(t, err, convo.ErrRateLimited, "6 h is beyond the default maximum retry wait")
		_, err = c.Anomalies.Get(ctx, nil)
		require.ErrorIs(t, err, convo.ErrRateLimited)
		assert.Len(t, tr.sent, 1, "the second anomaly call was held by the gate")

		_, err = c.Channels.List(ctx)
		require.NoError(t, err, "other calls are not held")
		assert.Len(t, tr.sent, 2)
	})
}

// A call waiting out its own 503 meets a hold set meanwhile by another
// call's 429. A hold within the maximum retry wait (30 s by default) is
// waited out before the retry is sent; a longer one holds nothing — the call
// that was told to wait gets its typed 429 at once, and the other call's
// retry goes through on time.
func TestRateLimitGateHoldsARetry(t *testing.T) {
	for _, tt := range []struct {
		name   string
		asked  time.Duration
		tookAt time.Duration // when the waiting call's retry was answered
	}{
		{"hold within the maximum retry wait", 20 * time.Second, 20*time.Second + 500*time.Millisecond},
		{"hold beyond it is not set", 100 * time.Second, time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, c, tr := inMemoryFake(t, 0, unlimited, convo.WithMaxRetries(0))
				s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Times: 1})
				s.AddFault(fake.Fault{Path: "/conversations", Status: http.StatusTooManyRequests, RetryAfter: tt.asked, Times: 1})
				ctx := context.Background()
				start := time.Now()
				done := make(chan error, 1)
				go func() {
					_, err := c.Channels.List(ctx, convo.WithMaxRetries(1))
					done <- err
				}()
				time.Sleep(500 * time.Millisecond)
				_, err := c.Conversations.List(ctx, nil)
				require.ErrorIs(t, err, convo.ErrRateLimited)

				require.NoError(t, <-done)
				assert.Equal(t, tt.tookAt, time.Since(start))
				assert.Len(t, tr.sent, 3)
			})
		})
	}
}
