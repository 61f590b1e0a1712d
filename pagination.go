package convo

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// Page is one page of a cursor-paginated listing (spec §4.1, §4.3, D5).
type Page[T any] struct {
	// Items are the page's items, in the server's order.
	Items []T `json:"items"`
	// NextCursor is the cursor of the next page; empty on the last page.
	NextCursor string `json:"next_cursor"`
}

// HasMore reports whether another page follows.
func (p *Page[T]) HasMore() bool { return p != nil && p.NextCursor != "" }

// fetchPage reads the page that starts at cursor ("" for the first page).
type fetchPage[T any] func(ctx context.Context, cursor string) (items []T, next string, err error)

// paginate builds the iterator behind every All method. It fetches lazily, one
// page at a time and only when the previous page has been consumed; it yields
// each item, stops after yielding the first error, checks ctx before each
// page, and starts no goroutine. A next cursor equal to the current one (a
// server fault that would loop forever) ends the sequence with an error
// wrapping ErrMalformedResponse rather than quietly. Only one page is held at a time, so memory
// does not grow with the length of the history. Every range starts afresh from
// start, so the sequence may be ranged over more than once.
func paginate[T any](ctx context.Context, start string, fetch fetchPage[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if ctx == nil {
			yield(zero, errors.New("convo: nil context"))
			return
		}
		cursor := start
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			items, next, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for i := range items {
				if !yield(items[i], nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if next == cursor {
				// Looping would never end and stopping quietly would pass a
				// partial listing off as complete.
				yield(zero, fmt.Errorf("convo: the service returned the cursor of the page just read as the next one; the listing is incomplete: %w", ErrMalformedResponse))
				return
			}
			cursor = next
		}
	}
}
