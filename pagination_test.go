package convo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fetchPage reads the page that starts at cursor ("" for the first page).
type fetchPage[T any] func(ctx context.Context, cursor string) (items []T, next string, err error)

// paginate is All over a fetch of bare items: pages, then items.
func paginate[T any](ctx context.Context, start string, fetch fetchPage[T], opts ...Option) iter.Seq2[T, error] {
	seq := pages(ctx, start, opts, func(ctx context.Context, cursor string, _ []Option) (*Page[T], error) {
		list, next, err := fetch(ctx, cursor)
		if err != nil {
			return nil, err
		}
		return &Page[T]{Items: list, NextCursor: next}, nil
	})
	return items(seq, func(p *Page[T]) []T { return p.Items })
}

// intPages serves pages of ints: page i holds 3·i … 3·i+2, the last has no cursor.
func intPages(n int, calls *[]string, failAt int) fetchPage[int] {
	return func(ctx context.Context, cursor string) ([]int, string, error) {
		*calls = append(*calls, cursor)
		i := 0
		if cursor != "" {
			_, _ = fmt.Sscanf(cursor, "c%d", &i)
		}
		if i == failAt {
			return nil, "", errors.New("boom")
		}
		next := ""
		if i+1 < n {
			next = fmt.Sprintf("c%d", i+1)
		}
		return []int{3 * i, 3*i + 1, 3*i + 2}, next, nil
	}
}

func TestPaginate(t *testing.T) {
	tests := []struct {
		name      string
		pages     int
		failAt    int
		start     string
		stopAfter int // break after this many items; 0: never
		wantItems []int
		wantErrs  int
		wantCalls []string
	}{
		{"three pages stitched in order", 3, -1, "", 0, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, 0, []string{"", "c1", "c2"}},
		{"early break fetches no more", 3, -1, "", 2, []int{0, 1}, 0, []string{""}},
		{"break at a page end fetches no more", 3, -1, "", 3, []int{0, 1, 2}, 0, []string{""}},
		{"error mid-way is yielded once", 3, 1, "", 0, []int{0, 1, 2}, 1, []string{"", "c1"}},
		{"resume from a cursor", 3, -1, "c2", 0, []int{6, 7, 8}, 0, []string{"c2"}},
		{"single page", 1, -1, "", 0, []int{0, 1, 2}, 0, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			var items []int
			errs := 0
			for v, err := range paginate(context.Background(), tt.start, intPages(tt.pages, &calls, tt.failAt)) {
				if err != nil {
					errs++
					continue // a well-behaved iterator stops by itself after an error
				}
				items = append(items, v)
				if tt.stopAfter > 0 && len(items) == tt.stopAfter {
					break
				}
			}
			assert.Equal(t, tt.wantItems, items)
			assert.Equal(t, tt.wantErrs, errs)
			assert.Equal(t, tt.wantCalls, calls)
		})
	}
}

func TestPaginateHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls []string
	var got []int
	var gotErr error
	for v, err := range paginate(ctx, "", intPages(5, &calls, -1)) {
		if err != nil {
			gotErr = err
			break
		}
		got = append(got, v)
		if v == 2 {
			cancel() // cancel between pages: the next page is not fetched
		}
	}
	assert.ErrorIs(t, gotErr, context.Canceled)
	assert.Equal(t, []int{0, 1, 2}, got)
	assert.Equal(t, []string{""}, calls)
}

// A server repeating its cursor must neither loop forever nor end the
// listing quietly as if it were complete (audit finding: it used to stop
// without an error).
func TestPaginateStopsOnARepeatedCursor(t *testing.T) {
	n := 0
	seq := paginate(context.Background(), "", func(ctx context.Context, cursor string) ([]int, string, error) {
		n++
		return []int{n}, "same", nil
	})
	var got []int
	var errs []error
	for v, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, v)
		require.Less(t, len(got), 10, "a server repeating its cursor must not loop forever")
	}
	assert.Equal(t, []int{1, 2}, got)
	require.Len(t, errs, 1, "the error is yielded once")
	assert.ErrorIs(t, errs[0], ErrMalformedResponse)
}

func TestPageHasMore(t *testing.T) {
	assert.False(t, (*Page[int])(nil).HasMore())
	assert.False(t, (&Page[int]{}).HasMore())
	assert.True(t, (&Page[int]{NextCursor: "c"}).HasMore())
	assert.True(t, (&MessagePage{Page: Page[Message]{NextCursor: "c"}}).HasMore())
}

func TestPaginateCanBeRangedAgain(t *testing.T) {
	var calls []string
	seq := paginate(context.Background(), "c1", intPages(3, &calls, -1))
	collect := func() (out []int) {
		for v, err := range seq {
			require.NoError(t, err)
			out = append(out, v)
		}
		return out
	}
	assert.Equal(t, []int{3, 4, 5, 6, 7, 8}, collect())
	assert.Equal(t, []int{3, 4, 5, 6, 7, 8}, collect(), "a second range starts again from the start cursor")
	assert.Equal(t, []string{"c1", "c2", "c1", "c2"}, calls)
}

// Ranging over an All iterator built with a nil context yields one error, as
// every other entry point reports one, and sends nothing.
func TestIteratorWithNilContext(t *testing.T) {
	env := newMock(t)
	var nilCtx context.Context
	n := 0
	for _, err := range env.c.Messages.All(nilCtx, "c1", nil) {
		require.Error(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Zero(t, env.mock.GetTotalCallCount())
}

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
