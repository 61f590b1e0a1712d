package convo

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPacerQueueOrder: retries wait before first attempts, the call refused
// most often first, a call's last attempt after the other retries, and
// attempts of the same rank in the order they came. While the limiter
// probes a storm, the turn goes to the attempt with the most of its budget
// left: a first attempt, else the retry refused least, a last attempt last.
func TestPacerQueueOrder(t *testing.T) {
	type arrival struct {
		name  string
		retry bool
		rank  int
	}
	tests := []struct {
		name     string
		arrivals []arrival
		probing  bool
		want     []string
	}{
		{"retries before first attempts", []arrival{{"a", false, 1}, {"b", true, 2}, {"c", false, 1}}, false, []string{"b", "a", "c"}},
		{"most refused first", []arrival{{"two", true, 2}, {"three", true, 3}, {"two'", true, 2}}, false, []string{"three", "two", "two'"}},
		{"a last attempt after the other retries", []arrival{{"last", true, 0}, {"two", true, 2}, {"first", false, 1}, {"three", true, 3}},
			false, []string{"three", "two", "last", "first"}},
		{"last attempts in the order they came", []arrival{{"x", true, 0}, {"y", true, 0}}, false, []string{"x", "y"}},
		{"probing: a first attempt before the retries", []arrival{{"two", true, 2}, {"a", false, 1}, {"b", false, 1}}, true,
			[]string{"a", "b", "two"}},
		{"probing: the retry refused least, a last attempt last", []arrival{{"last", true, 0}, {"three", true, 3}, {"one", true, 1}, {"two", true, 2}}, true,
			[]string{"one", "two", "three", "last"}},
		{"probing: nothing but last attempts, in the order they came", []arrival{{"x", true, 0}, {"y", true, 0}}, true, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pacer{probing: func() bool { return tt.probing }}
			names := map[*waiter]string{}
			for _, a := range tt.arrivals {
				w := &waiter{wake: make(chan struct{}, 1), rank: a.rank}
				names[w] = a.name
				p.join(w, a.retry)
			}
			var got []string
			for h := p.head(); h != nil; h = p.head() {
				got = append(got, names[h])
				p.leave(h)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestSpreadWait: a call refused again waits its Retry-After and a random
// extra of up to half of it, within the room it has; the extra is spread,
// not one fixed value.
func TestSpreadWait(t *testing.T) {
	tests := []struct {
		name             string
		retryAfter, room time.Duration
		least, most      time.Duration
	}{
		{"up to half more", 2 * time.Second, 30 * time.Second, 2 * time.Second, 3 * time.Second},
		{"no further than the room", 2 * time.Second, 2500 * time.Millisecond, 2 * time.Second, 2500 * time.Millisecond},
		{"no room: the wait asked", 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second},
		{"less room than the wait asked: the wait asked", 2 * time.Second, time.Second, 2 * time.Second, 2 * time.Second},
		{"Retry-After: 0", 0, 30 * time.Second, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := map[time.Duration]bool{}
			for range 200 {
				d := spreadWait(tt.retryAfter, tt.room)
				require.GreaterOrEqual(t, d, tt.least)
				require.LessOrEqual(t, d, tt.most)
				seen[d] = true
			}
			if tt.least < tt.most {
				assert.Greater(t, len(seen), 100, "the extra is drawn at random, not fixed")
			}
		})
	}
}

// TestARefusedRetryWaitsASpreadWait: a call refused once is retried exactly
// at its Retry-After; refused again, after that wait and a random extra of
// up to half of it, never past the call's maximum retry wait, nor past its
// deadline — a wait that no longer fits returns the typed 429 at once.
// Without a limiter, every wait is the Retry-After exactly.
func TestARefusedRetryWaitsASpreadWait(t *testing.T) {
	const retryAfter = 2 * time.Second
	tests := []struct {
		name         string
		opts         []Option
		deadline     time.Duration // 0: none
		wantAttempts int
		longest      time.Duration // the longest wait after a retry's refusal
	}{
		{"half more at most", nil, 0, 4, 3 * time.Second},
		{"unpaced: exact", []Option{WithRateLimiter(NoRateLimiter())}, 0, 4, retryAfter},
		{"within the maximum retry wait", []Option{WithMaxRetryWait(2500 * time.Millisecond)}, 0, 4, 2500 * time.Millisecond},
		// Refused at 0 and 2 s; the spread wait is cut to the 0.5 s left,
		// and the third refusal's wait no longer fits.
		{"within the deadline", nil, 4500 * time.Millisecond, 3, 2500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spread := map[time.Duration]bool{}
			for range 20 {
				gaps, err := refusedThrice(t, retryAfter, tt.deadline, tt.opts...)
				require.Len(t, gaps, tt.wantAttempts-1)
				assert.Equal(t, retryAfter, gaps[0], "a first refusal is retried at its Retry-After exactly")
				for _, g := range gaps[1:] {
					assert.GreaterOrEqual(t, g, retryAfter, "never before Retry-After")
					assert.LessOrEqual(t, g, tt.longest)
					spread[g] = true
				}
				if tt.deadline > 0 {
					var apiErr *Error
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
					continue
				}
				require.NoError(t, err)
			}
			if tt.longest > retryAfter {
				assert.Greater(t, len(spread), 10, "the retries of refused retries are spread")
			}
		})
	}
}

// refusedThrice runs one call against a service that refuses it three
// times with retryAfter and then accepts it, and returns the gaps between
// its attempts and the call's error. The client's limiter never holds
// (unless opts say otherwise), so that the gaps are the call's own waits.
func refusedThrice(t *testing.T, retryAfter, deadline time.Duration, opts ...Option) (gaps []time.Duration, err error) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t, append([]Option{WithRateLimiter(FixedRate(maxRate))}, opts...)...)
		refused := responder(429, errJSON(429, "RATE_LIMITED", "Too many requests"), "Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
		answer := sequence(refused, refused, refused, responder(200, okJSON(`{"items":[]}`)))
		var mu sync.Mutex
		var sent []time.Time
		env.mock.RegisterResponder("GET", mockBase+"/channels", func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			sent = append(sent, time.Now())
			mu.Unlock()
			return answer(req)
		})
		ctx := t.Context()
		if deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, deadline)
			defer cancel()
		}
		_, err = env.c.Channels.List(ctx)
		for i := 1; i < len(sent); i++ {
			gaps = append(gaps, sent[i].Sub(sent[i-1]))
		}
	})
	return gaps, err
}

// TestARefusalAfterABackoffWaitsExactly: a call whose first 429 comes after
// a failure of another kind (a 503 and its backoff) has waited no
// Retry-After yet: it waits this one exactly.
func TestARefusalAfterABackoffWaitsExactly(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			env := newMock(t, WithRateLimiter(FixedRate(maxRate)))
			answer := sequence(
				responder(503, errJSON(503, "SERVICE_UNAVAILABLE", "busy")),
				responder(429, errJSON(429, "RATE_LIMITED", "Too many requests"), "Retry-After", "2"),
				responder(200, okJSON(`{"items":[]}`)),
			)
			var sent []time.Time
			env.mock.RegisterResponder("GET", mockBase+"/channels", func(req *http.Request) (*http.Response, error) {
				sent = append(sent, time.Now())
				return answer(req)
			})
			_, err := env.c.Channels.List(t.Context())
			require.NoError(t, err)
			require.Len(t, sent, 3)
			assert.Equal(t, 2*time.Second, sent[2].Sub(sent[1]))
		})
	}
}
