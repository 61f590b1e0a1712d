package convo

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowPages serves n pages of one int each; every fetch takes rtt (fake
// time) and ends early, with the context's error, when the context ends.
func slowPages(n int, rtt time.Duration, fetches, cancelled *atomic.Int32) fetchPage[int] {
	return func(ctx context.Context, cursor string) ([]int, string, error) {
		fetches.Add(1)
		select {
		case <-ctx.Done():
			cancelled.Add(1)
			return nil, "", ctx.Err()
		case <-time.After(rtt):
		}
		i := 0
		if cursor != "" {
			_, _ = fmt.Sscanf(cursor, "c%d", &i)
		}
		next := ""
		if i+1 < n {
			next = fmt.Sprintf("c%d", i+1)
		}
		return []int{i}, next, nil
	}
}

func TestReadAheadOverlapsTheLoopBody(t *testing.T) {
	const rtt, work = 100 * time.Millisecond, 100 * time.Millisecond
	for _, tt := range []struct {
		name string
		opts []Option
		want time.Duration
	}{
		{"off: fetch, work, fetch, work…", nil, 5 * (rtt + work)},
		{"on: the next fetch runs during the work", []Option{WithReadAhead()}, rtt + 5*work},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var fetches, cancelled atomic.Int32
				start := time.Now()
				var got []int
				for v, err := range paginate(context.Background(), "", slowPages(5, rtt, &fetches, &cancelled), tt.opts...) {
					require.NoError(t, err)
					got = append(got, v)
					time.Sleep(work)
				}
				assert.Equal(t, []int{0, 1, 2, 3, 4}, got)
				assert.Equal(t, tt.want, time.Since(start))
				assert.EqualValues(t, 5, fetches.Load(), "never more than the pages there are")
			})
		})
	}
}

// Breaking out of a read-ahead loop cancels the fetch in flight and returns
// only once its goroutine has ended: synctest.Test would report a goroutine
// left blocked in the bubble, and the goroutine count is back to its start.
func TestReadAheadBreakLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fetches, cancelled atomic.Int32
		for v, err := range paginate(context.Background(), "", slowPages(1000, time.Hour, &fetches, &cancelled), WithReadAhead()) {
			require.NoError(t, err)
			assert.Equal(t, 0, v)
			synctest.Wait() // the fetch ahead is now under way
			break
		}
		assert.EqualValues(t, 2, fetches.Load(), "one page ahead at most")
		assert.EqualValues(t, 1, cancelled.Load(), "the fetch ahead was cancelled")
	})

	// Cancelling the context mid-loop: the loop ends with context.Canceled,
	// and synctest.Test fails if the fetch's goroutine outlives the loop
	// (process-wide goroutine counts are disturbed by other tests' idle
	// connections, so the bubble is the check).
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var fetches, cancelled atomic.Int32
		n := 0
		var last error
		for _, err := range paginate(ctx, "", slowPages(1000, time.Millisecond, &fetches, &cancelled), WithReadAhead()) {
			if err != nil {
				last = err
				break
			}
			if n++; n == 3 {
				cancel()
			}
		}
		assert.ErrorIs(t, last, context.Canceled)
		assert.LessOrEqual(t, int(fetches.Load()), n+1, "one page ahead at most")
	})
}

func TestReadAheadKeepsTheIterationRules(t *testing.T) {
	var calls []string
	var got []int
	errs := 0
	for v, err := range paginate(context.Background(), "c1", intPages(4, &calls, 3), WithReadAhead()) {
		if err != nil {
			errs++
			continue
		}
		got = append(got, v)
	}
	assert.Equal(t, []int{3, 4, 5, 6, 7, 8}, got, "resumes from the start cursor, stops at the error")
	assert.Equal(t, 1, errs, "the error is yielded once")
	assert.Equal(t, []string{"c1", "c2", "c3"}, calls)

	n := 0
	seq := paginate(context.Background(), "", func(ctx context.Context, cursor string) ([]int, string, error) {
		n++
		return []int{n}, "same", nil
	}, WithReadAhead())
	var repeated []error
	for _, err := range seq {
		if err != nil {
			repeated = append(repeated, err)
		}
	}
	require.Len(t, repeated, 1)
	assert.ErrorIs(t, repeated[0], ErrMalformedResponse)
}
