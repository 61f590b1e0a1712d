package fake_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The tests of this file run in a synctest bubble, where the machine's
// clock (which every limit also counts on) moves only through time.Sleep:
// on a manual clock nothing else moves, so every figure is exact.

// limitKind is one kind of request limit, at n requests per second: a
// token bucket of n tokens refilled at n per second, or a window of n
// requests per second.
type limitKind struct {
	name string
	opt  func(n int, window time.Duration) fake.Option
}

var limitKinds = []limitKind{
	{"bucket", func(n int, window time.Duration) fake.Option {
		return fake.WithRateLimit(float64(n)/window.Seconds(), n)
	}},
	{"fixed", fake.WithFixedWindowLimit},
	{"sliding", fake.WithSlidingWindowLimit},
}

// limited builds a handler-only server (no listener, nothing to wait on in
// a bubble) on a manual clock at start.
func limited(t *testing.T, start time.Time, opts ...fake.Option) (*fake.Server, *fake.Clock) {
	t.Helper()
	clock := fake.NewManualClock(start)
	s, err := fake.NewHandler(append([]fake.Option{fake.WithClock(clock)}, opts...)...)
	require.NoError(t, err)
	return s, clock
}

// hitResp sends GET /v1<path> with key to the server's handler.
func hitResp(s *fake.Server, key, path string) resp {
	req := httptest.NewRequest(http.MethodGet, "/v1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return resp{rec.Code, rec.Header(), rec.Body.Bytes()}
}

// hit is hitResp's status and Retry-After header ("" when absent).
func hit(s *fake.Server, key, path string) (status int, retryAfter string) {
	r := hitResp(s, key, path)
	return r.Status, r.Header.Get("Retry-After")
}

// admitted counts the requests of key admitted in a row, up to max, and
// returns the Retry-After of the refusal that ended the run.
func admitted(t *testing.T, s *fake.Server, key string, max int) (n int, retryAfter string) {
	t.Helper()
	for n < max {
		status, ra := hit(s, key, "/channels")
		if status == http.StatusTooManyRequests {
			return n, ra
		}
		require.Equal(t, http.StatusOK, status)
		n++
	}
	return n, ""
}

// Each kind admits exactly n requests (a bucket: its burst) at one instant,
// refuses the next with 429 RATE_LIMITED and a Retry-After, and after a
// second of the server's clock admits n again (a bucket refilled at n/s).
func TestRateLimitKindsAdmitThenRefuse(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, clock := limited(t, t0, k.opt(3, time.Second))
				n, ra := admitted(t, s, s.APIKey(), 10)
				assert.Equal(t, 3, n)
				assert.Equal(t, "1", ra)
				r := hitResp(s, s.APIKey(), "/channels")
				assertError(t, r, http.StatusTooManyRequests, convo.CodeRateLimited, "", "/api/v1/channels", http.MethodGet, "")
				assert.Equal(t, "1", r.Header.Get("Retry-After"))

				clock.Advance(time.Second)
				n, ra = admitted(t, s, s.APIKey(), 10)
				assert.Equal(t, 3, n)
				assert.Equal(t, "1", ra)
			})
		})
	}
}

// The Retry-After is the true wait rounded up to whole seconds, and the
// wait is true: one millisecond before it the request is still refused, at
// it the request is admitted. Each case admits one request at 10:00:00,
// lets after go by on the server's clock, and is refused.
func TestRateLimitRetryAfterIsTheCeilingOfTheWait(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opt   fake.Option
		after time.Duration // from the admitted request to the refused one
		wait  time.Duration // the true wait at the refusal
		want  string
	}{
		{"bucket 1/s, at once", fake.WithRateLimit(1, 1), 0, time.Second, "1"},
		{"bucket 1/s, 0.05 s left", fake.WithRateLimit(1, 1), 950 * time.Millisecond, 50 * time.Millisecond, "1"},
		{"bucket 0.4/s, 1.5 s left", fake.WithRateLimit(0.4, 1), time.Second, 1500 * time.Millisecond, "2"},
		{"bucket 3/s, a third of a second", fake.WithRateLimit(3, 1), 0, 333333334 * time.Nanosecond, "1"},
		{"fixed 2 s, at once", fake.WithFixedWindowLimit(1, 2*time.Second), 0, 2 * time.Second, "2"},
		{"fixed 2 s, 0.05 s left", fake.WithFixedWindowLimit(1, 2*time.Second), 1950 * time.Millisecond, 50 * time.Millisecond, "1"},
		{"fixed 2 s, 1.5 s left", fake.WithFixedWindowLimit(1, 2*time.Second), 500 * time.Millisecond, 1500 * time.Millisecond, "2"},
		{"sliding 2 s, at once", fake.WithSlidingWindowLimit(1, 2*time.Second), 0, 2 * time.Second, "2"},
		{"sliding 2 s, 0.05 s left", fake.WithSlidingWindowLimit(1, 2*time.Second), 1950 * time.Millisecond, 50 * time.Millisecond, "1"},
		{"sliding 2 s, 1.5 s left", fake.WithSlidingWindowLimit(1, 2*time.Second), 500 * time.Millisecond, 1500 * time.Millisecond, "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, clock := limited(t, t0, tc.opt)
				status, _ := hit(s, s.APIKey(), "/channels")
				require.Equal(t, http.StatusOK, status)
				clock.Advance(tc.after)
				status, ra := hit(s, s.APIKey(), "/channels")
				require.Equal(t, http.StatusTooManyRequests, status)
				assert.Equal(t, tc.want, ra)

				clock.Advance(tc.wait - time.Millisecond)
				status, ra = hit(s, s.APIKey(), "/channels")
				assert.Equal(t, http.StatusTooManyRequests, status, "a millisecond early")
				assert.Equal(t, "1", ra)
				clock.Advance(time.Millisecond)
				status, _ = hit(s, s.APIKey(), "/channels")
				assert.Equal(t, http.StatusOK, status, "once the wait is over")
			})
		})
	}
}

// Fixed windows are aligned on the server's clock, on whole multiples of
// the window since the Unix epoch: a refusal at 10:00:00.950 asks 1 s and
// the request at 10:00:01.000 starts the next window; a 7 s window ends at
// the next multiple of 7 s of Unix time.
func TestFixedWindowIsAlignedOnTheClock(t *testing.T) {
	t.Run("1 s", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, clock := limited(t, t0.Add(900*time.Millisecond), fake.WithFixedWindowLimit(2, time.Second))
			status, _ := hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusOK, status)
			clock.Advance(50 * time.Millisecond) // 10:00:00.950
			status, _ = hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusOK, status)
			status, ra := hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusTooManyRequests, status)
			assert.Equal(t, "1", ra)
			clock.Advance(49 * time.Millisecond) // 10:00:00.999
			status, _ = hit(s, s.APIKey(), "/channels")
			assert.Equal(t, http.StatusTooManyRequests, status)
			clock.Advance(time.Millisecond) // 10:00:01.000
			n, ra := admitted(t, s, s.APIKey(), 10)
			assert.Equal(t, 2, n, "a whole new window")
			assert.Equal(t, "1", ra)
		})
	})
	t.Run("7 s since the Unix epoch", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			end := time.Unix((t0.Unix()/7+1)*7, 0)
			s, clock := limited(t, t0, fake.WithFixedWindowLimit(1, 7*time.Second))
			status, _ := hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusOK, status)
			status, ra := hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusTooManyRequests, status)
			assert.Equal(t, strconv.Itoa(int(end.Sub(t0)/time.Second)), ra)
			clock.Set(end.Add(-time.Millisecond))
			status, _ = hit(s, s.APIKey(), "/channels")
			assert.Equal(t, http.StatusTooManyRequests, status)
			clock.Set(end)
			status, _ = hit(s, s.APIKey(), "/channels")
			assert.Equal(t, http.StatusOK, status)
		})
	})
}

// A sliding window admits again exactly when its oldest request leaves the
// trailing window, and then asks to wait for the next oldest.
func TestSlidingWindowAdmitsWhenTheOldestLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, clock := limited(t, t0, fake.WithSlidingWindowLimit(3, 10*time.Second))
		for _, at := range []time.Duration{0, 2 * time.Second, 5 * time.Second} {
			clock.Set(t0.Add(at))
			status, _ := hit(s, s.APIKey(), "/channels")
			require.Equal(t, http.StatusOK, status)
		}
		clock.Set(t0.Add(6 * time.Second))
		status, ra := hit(s, s.APIKey(), "/channels")
		require.Equal(t, http.StatusTooManyRequests, status)
		assert.Equal(t, "4", ra, "the request of 10:00:00 leaves at 10:00:10")

		clock.Set(t0.Add(10*time.Second - time.Millisecond))
		status, _ = hit(s, s.APIKey(), "/channels")
		assert.Equal(t, http.StatusTooManyRequests, status)
		clock.Set(t0.Add(10 * time.Second))
		status, _ = hit(s, s.APIKey(), "/channels")
		assert.Equal(t, http.StatusOK, status)
		status, ra = hit(s, s.APIKey(), "/channels")
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Equal(t, "2", ra, "the request of 10:00:02 leaves at 10:00:12")
		clock.Set(t0.Add(12 * time.Second))
		status, _ = hit(s, s.APIKey(), "/channels")
		assert.Equal(t, http.StatusOK, status)
	})
}

// No kind is wedged by a manual clock that never moves, nor by one that
// moved and then stopped: a client that waits the Retry-After it was given,
// in real time only, gets through, round after round.
func TestRateLimitFrozenClockNeverWedges(t *testing.T) {
	for _, k := range limitKinds {
		for _, moved := range []time.Duration{0, 4 * time.Second} {
			t.Run(k.name+" moved "+moved.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s, clock := limited(t, t0.Add(950*time.Millisecond), k.opt(2, 10*time.Second))
					status, _ := hit(s, s.APIKey(), "/channels")
					require.Equal(t, http.StatusOK, status)
					clock.Advance(moved) // then the clock stops
					for round := range 3 {
						n, ra := admitted(t, s, s.APIKey(), 10)
						require.Less(t, n, 10, "round %d: the limit holds", round)
						secs, err := strconv.Atoi(ra)
						require.NoError(t, err, "round %d: Retry-After %q", round, ra)
						time.Sleep(time.Duration(secs) * time.Second)
						status, _ := hit(s, s.APIKey(), "/channels")
						require.Equal(t, http.StatusOK, status, "round %d: after the %d s asked", round, secs)
					}
				})
			})
		}
	}
}

// A fixed window whose end came by real time while the server's clock
// stands still (here at 10:00:00.950) is followed by full windows of real
// time, not by 50 ms ones: the limit stays 2 per second.
func TestFixedWindowFrozenClockKeepsFullWindows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := limited(t, t0.Add(950*time.Millisecond), fake.WithFixedWindowLimit(2, time.Second))
		n, ra := admitted(t, s, s.APIKey(), 10)
		require.Equal(t, 2, n)
		require.Equal(t, "1", ra)
		time.Sleep(50 * time.Millisecond) // the first window's end, by real time
		total := 0
		for range 100 { // 5 s of real time, 50 ms apart
			if status, _ := hit(s, s.APIKey(), "/channels"); status == http.StatusOK {
				total++
			}
			time.Sleep(50 * time.Millisecond)
		}
		assert.Equal(t, 10, total, "2 per second of real time")
	})
}

// The client of the fake, with its default retries, gets every call
// through a frozen clock: it waits each Retry-After in (bubble) real time.
func TestRateLimitFrozenClockClientGetsThrough(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fake.New(t, fake.WithInMemoryNetwork(), fake.WithClock(fake.NewManualClock(t0)), k.opt(2, time.Second))
				c := s.Client()
				start := time.Now()
				for i := range 6 {
					_, err := c.Channels.List(context.Background())
					require.NoError(t, err, "call %d", i)
				}
				assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "6 calls at 2 per second")
				refused := 0
				for _, r := range s.Requests() {
					if r.Status == http.StatusTooManyRequests {
						refused++
					}
				}
				assert.Equal(t, 6, len(s.Requests())-refused)
			})
		})
	}
}

// The anomaly report's own limit: a request it refuses gives back what it
// took from the general limit, whatever its kind, and a request the
// general limit refuses takes nothing from the anomaly limit.
func TestAnomalyLimitGivesBackTheGeneralRequest(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, clock := limited(t, t0, k.opt(2, time.Second), fake.WithAnomalyRateLimit(1, 24*time.Hour))
				key := s.APIKey()
				status, _ := hit(s, key, "/conversations/anomalies")
				require.Equal(t, http.StatusOK, status)
				status, ra := hit(s, key, "/conversations/anomalies")
				require.Equal(t, http.StatusTooManyRequests, status)
				assert.Equal(t, strconv.Itoa(24*3600), ra, "the anomaly limit's own wait")
				n, ra := admitted(t, s, key, 10)
				assert.Equal(t, 1, n, "the refused anomaly request took nothing from the general limit")
				assert.Equal(t, "1", ra)

				// Refused by the general limit: the anomaly limit keeps its pass.
				clock.Advance(24 * time.Hour)
				n, _ = admitted(t, s, key, 2)
				require.Equal(t, 2, n)
				status, ra = hit(s, key, "/conversations/anomalies")
				require.Equal(t, http.StatusTooManyRequests, status)
				assert.Equal(t, "1", ra, "the general limit's wait")
				clock.Advance(time.Second)
				status, _ = hit(s, key, "/conversations/anomalies")
				assert.Equal(t, http.StatusOK, status)
			})
		})
	}
}

// Each API key has its own state: one company using up its limit leaves
// another's whole.
func TestRateLimitPerKey(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, _ := limited(t, t0, k.opt(3, time.Second))
				other := s.AddCompany("other-company-key").APIKey()
				n, _ := admitted(t, s, s.APIKey(), 10)
				require.Equal(t, 3, n)
				n, _ = admitted(t, s, other, 10)
				assert.Equal(t, 3, n, "the other company's limit is whole")
				status, _ := hit(s, s.APIKey(), "/channels")
				assert.Equal(t, http.StatusTooManyRequests, status, "and the first's is still used up")
			})
		})
	}
}

// Server.Reset and Server.Clear forget every key's limit state.
func TestRateLimitResetForgetsTheState(t *testing.T) {
	for _, k := range limitKinds {
		for _, forget := range []struct {
			name string
			f    func(*fake.Server)
		}{{"Reset", (*fake.Server).Reset}, {"Clear", (*fake.Server).Clear}} {
			t.Run(k.name+" "+forget.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s, _ := limited(t, t0, k.opt(3, time.Minute))
					n, _ := admitted(t, s, s.APIKey(), 10)
					require.Equal(t, 3, n)
					forget.f(s)
					n, _ = admitted(t, s, s.APIKey(), 10)
					assert.Equal(t, 3, n)
				})
			})
		}
	}
}

// A limit of n <= 0, a window <= 0 or a rate <= 0 is no limit.
func TestRateLimitOff(t *testing.T) {
	for name, opt := range map[string]fake.Option{
		"bucket rate 0":    fake.WithRateLimit(0, 5),
		"fixed n 0":        fake.WithFixedWindowLimit(0, time.Second),
		"fixed window 0":   fake.WithFixedWindowLimit(3, 0),
		"sliding n -1":     fake.WithSlidingWindowLimit(-1, time.Second),
		"sliding window 0": fake.WithSlidingWindowLimit(3, 0),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, _ := limited(t, t0, opt)
				n, _ := admitted(t, s, s.APIKey(), 50)
				assert.Equal(t, 50, n)
			})
		})
	}
}

// The journal's RetryAfter is the wait a 429 asked for, and 0 for every
// other answer.
func TestRateLimitJournalRetryAfter(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, _ := limited(t, t0, k.opt(1, 10*time.Second))
				hit(s, s.APIKey(), "/channels")
				hit(s, s.APIKey(), "/channels")
				hit(s, "wrong-key", "/channels")
				hit(s, s.APIKey(), "/nothing")
				var got []string
				for _, r := range s.Requests() {
					got = append(got, strconv.Itoa(r.Status)+" "+r.RetryAfter.String())
				}
				assert.Equal(t, []string{"200 0s", "429 10s", "401 0s", "404 0s"}, got)
			})
		})
	}
}

// The three kinds answer the SDK as the service would: a typed
// RATE_LIMITED error with the wait asked.
func TestRateLimitKindsTypedError(t *testing.T) {
	for _, k := range limitKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := fake.New(t, fake.WithInMemoryNetwork(), fake.WithClock(fake.NewManualClock(t0)), k.opt(1, 3*time.Second))
				c := s.Client(convo.WithMaxRetries(0))
				_, err := c.Channels.List(context.Background())
				require.NoError(t, err)
				_, err = c.Channels.List(context.Background())
				var apiErr *convo.Error
				require.ErrorAs(t, err, &apiErr)
				assert.ErrorIs(t, err, convo.ErrRateLimited)
				assert.Equal(t, convo.CodeRateLimited, apiErr.Code)
				assert.Equal(t, 3*time.Second, apiErr.RetryAfter)
			})
		})
	}
}
