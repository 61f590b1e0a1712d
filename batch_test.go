package convo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestParallelKeepsInputOrderWithinTheLimit(t *testing.T) {
	for _, limit := range []int{1, 3, 16} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight, most atomic.Int32
				inputs := make([]int, 40)
				for i := range inputs {
					inputs[i] = i
				}
				out, err := convo.Parallel(t.Context(), inputs, func(ctx context.Context, i int) (string, error) {
					n := inFlight.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(time.Duration(40-i) * time.Millisecond) // later inputs finish first
					inFlight.Add(-1)
					return fmt.Sprint(i), nil
				}, convo.ParallelLimit(limit))
				require.NoError(t, err)
				for i, v := range out {
					assert.Equal(t, fmt.Sprint(i), v)
				}
				assert.Equal(t, int32(limit), most.Load())
			})
		})
	}
}

// synctest.Test fails when a goroutine of the bubble is still alive at the
// end, so these also check that none is left behind.
func TestParallelStopsOnTheFirstFailureAndLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		var started atomic.Int32
		_, err := convo.Parallel(t.Context(), make([]int, 100), func(ctx context.Context, _ int) (int, error) {
			if started.Add(1) == 3 {
				return 0, boom
			}
			<-ctx.Done() // the others wait until cancelled
			assert.ErrorIs(t, context.Cause(ctx), boom)
			return 0, ctx.Err()
		}, convo.ParallelLimit(4))
		assert.ErrorIs(t, err, boom)
		assert.LessOrEqual(t, started.Load(), int32(4), "no input starts after the failure")
	})
}

func TestParallelCollectAllReportsEveryFailureByIndex(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out, err := convo.Parallel(t.Context(), []int{0, 1, 2, 3, 4, 5}, func(_ context.Context, i int) (int, error) {
			if i%2 == 1 {
				return 0, fmt.Errorf("odd %d", i)
			}
			return i * 10, nil
		}, convo.ParallelCollectAll(), convo.ParallelLimit(2))
		assert.Equal(t, []int{0, 0, 20, 0, 40, 0}, out)
		var ie *convo.ItemError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, 1, ie.Index)
		assert.EqualError(t, err, "item 1: odd 1\nitem 3: odd 3\nitem 5: odd 5")
	})
}

func TestParallelSeqBreakCancelsAndLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cancelled atomic.Int32
		inputs := func(yield func(int) bool) {
			for i := 0; ; i++ { // endless: only the break ends it
				if !yield(i) {
					return
				}
			}
		}
		var got []int
		for v, err := range convo.ParallelSeq(t.Context(), inputs, func(ctx context.Context, i int) (int, error) {
			if i >= 5 {
				<-ctx.Done()
				cancelled.Add(1)
				return 0, ctx.Err()
			}
			return i, nil
		}, convo.ParallelLimit(4)) {
			require.NoError(t, err)
			got = append(got, v)
			if v == 4 {
				break
			}
		}
		assert.Equal(t, []int{0, 1, 2, 3, 4}, got)
		assert.LessOrEqual(t, cancelled.Load(), int32(4))
	})
}

func TestParallelSeqReportsACancelledContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var n int
		var last error
		for _, err := range convo.ParallelSeq(ctx, slices.Values(make([]int, 50)), func(ctx context.Context, _ int) (int, error) {
			time.Sleep(time.Millisecond)
			return 0, nil
		}, convo.ParallelLimit(2)) {
			if n++; n == 3 {
				cancel()
			}
			last = err
		}
		assert.ErrorIs(t, last, context.Canceled, "a run cut short never looks complete")
		assert.Less(t, n, 50)
	})
}

// A rate limit far below the offered load (16 calls in flight with a 20 ms
// round trip offer 800 a second, to a limit of 20): every create goes
// through exactly once (a 429 is refused before anything is done, so
// retrying it is safe), and the run slows down to the limit instead of
// failing calls, given a retry budget for a bulk job (the default 3 is
// for interactive calls: with 16 calls contending for 5 answers a second,
// a call can meet four 429s in a row).
func TestParallelUnderARateLimitLosesAndDuplicatesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c, _ := inMemoryFake(t, 20*time.Millisecond, []fake.Option{fake.WithRateLimit(20, 5)}, convo.WithMaxRetries(10))
		acc := s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
		phones := make([]string, 120)
		for i := range phones {
			phones[i] = fmt.Sprintf("55119%08d", i)
		}
		limited := 0
		_, err := convo.Parallel(t.Context(), phones, func(ctx context.Context, p string) (*convo.Confirmation, error) {
			return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "5511900000001", PhoneNumber: p, Name: "N " + p})
		}, convo.ParallelLimit(16))
		require.NoError(t, err)
		for _, r := range s.Requests() {
			if r.Status == http.StatusTooManyRequests {
				limited++
			}
		}
		assert.Len(t, s.Company().Contacts(), len(phones))
		for _, p := range phones {
			_, ok := s.Company().ContactByPhone(acc, p)
			assert.True(t, ok, p)
		}
		assert.Positive(t, limited, "the limit was reached")
	})
}

// A panic in code the SDK runs on a goroutine of its own — fn, a
// middleware, a trace hook, the input sequence, a page fetched ahead — is
// re-raised in the caller's goroutine as a *PanicError once the run has
// stopped: the caller recovers it, the process lives, and synctest.Test
// fails if any goroutine is left.
func TestPanicsReachTheCaller(t *testing.T) {
	boom := errors.New("boom")
	panicking := func(*http.Request, convo.MiddlewareNext) (*http.Response, error) { panic(boom) }
	list := func(opts ...convo.Option) func(ctx context.Context, c *convo.Client, i int) (int, error) {
		return func(ctx context.Context, c *convo.Client, i int) (int, error) {
			if i != 5 {
				_, err := c.Channels.List(ctx)
				return i, err
			}
			_, err := c.Channels.List(ctx, opts...)
			return i, err
		}
	}
	inputs := make([]int, 40)
	for i := range inputs {
		inputs[i] = i
	}
	tests := []struct {
		name string
		run  func(ctx context.Context, c *convo.Client)
	}{
		{"Parallel, fn", func(ctx context.Context, c *convo.Client) {
			_, _ = convo.Parallel(ctx, inputs, func(ctx context.Context, i int) (int, error) {
				if i == 5 {
					panic(boom)
				}
				return list()(ctx, c, i)
			}, convo.ParallelLimit(4))
		}},
		{"Parallel, middleware", func(ctx context.Context, c *convo.Client) {
			_, _ = convo.Parallel(ctx, inputs, func(ctx context.Context, i int) (int, error) {
				return list(convo.WithMiddleware(panicking))(ctx, c, i)
			}, convo.ParallelLimit(4), convo.ParallelCollectAll())
		}},
		{"Parallel, trace hook", func(ctx context.Context, c *convo.Client) {
			hook := &convo.Trace{CallDone: func(context.Context, convo.CallInfo, convo.Response, error) { panic(boom) }}
			_, _ = convo.Parallel(ctx, inputs, func(ctx context.Context, i int) (int, error) {
				return list(convo.WithTrace(hook))(ctx, c, i)
			}, convo.ParallelLimit(4))
		}},
		{"ParallelSeq, fn", func(ctx context.Context, c *convo.Client) {
			for range convo.ParallelSeq(ctx, slices.Values(inputs), func(ctx context.Context, i int) (int, error) {
				return list(convo.WithMiddleware(panicking))(ctx, c, i)
			}, convo.ParallelLimit(4)) {
			}
		}},
		{"ParallelSeq, the input sequence", func(ctx context.Context, c *convo.Client) {
			seq := func(yield func(int) bool) {
				for i := range 10 {
					if i == 5 {
						panic(boom)
					}
					if !yield(i) {
						return
					}
				}
			}
			for range convo.ParallelSeq(ctx, seq, func(ctx context.Context, i int) (int, error) { return list()(ctx, c, i) }) {
			}
		}},
		{"read-ahead, middleware", func(ctx context.Context, c *convo.Client) {
			second := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
				if req.URL.Query().Get("cursor") != "" {
					panic(boom)
				}
				return next(req)
			}
			for _, err := range c.Conversations.All(ctx, &convo.ListConversationsParams{Limit: 1}, convo.WithReadAhead(), convo.WithMiddleware(second)) {
				require.NoError(t, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, c, _ := inMemoryFake(t, time.Millisecond, []fake.Option{fake.WithSeed(fake.DemoSeed())})
				var got any
				func() {
					defer func() { got = recover() }()
					tt.run(t.Context(), c)
				}()
				pe, ok := got.(*convo.PanicError)
				require.True(t, ok, "recovered %T %v", got, got)
				assert.ErrorIs(t, pe, boom)
				assert.Equal(t, boom, pe.Value)
				assert.Contains(t, string(pe.Stack), "batch_test.go", "the stack of the goroutine that panicked")
			})
		})
	}
}
