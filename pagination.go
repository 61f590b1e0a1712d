package convo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
)

// Page is one page of a cursor-paginated listing (OpenAPI listMessages, listConversations);
// the conversation list pages like the message read. The
// messages page, MessagePage, is this type with the read window added.
type Page[T any] struct {
	// Items are the page's items, in the server's order.
	Items []T `json:"items"`
	// NextCursor is the cursor of the next page; empty on the last page.
	// Save it to resume a listing later: pass it as the params' Cursor.
	NextCursor string `json:"next_cursor"`
}

// HasMore reports whether another page follows.
func (p *Page[T]) HasMore() bool { return p != nil && p.NextCursor != "" }

// pageOf is what the page iterators need of a page: its cursor.
type pageOf interface{ nextCursor() string }

func (p *Page[T]) nextCursor() string { return p.NextCursor }

// pages builds the iterator behind every Pages method. It fetches lazily,
// one page when the previous one has been consumed; it yields each page,
// stops after yielding the first error, checks ctx before each page, and
// starts no goroutine — unless readAhead is set, where one goroutine fetches
// the next page while the loop body works on the current one (see
// WithReadAhead). A next cursor equal to the current one (a server fault that
// would loop forever) ends the sequence with an error wrapping
// ErrMalformedResponse rather than quietly. Every range starts afresh from
// start, so the sequence may be ranged over more than once.
func pages[P pageOf](ctx context.Context, start string, opts []Option, fetch func(ctx context.Context, cursor string, opts []Option) (P, error)) iter.Seq2[P, error] {
	return func(yield func(P, error) bool) {
		var zero P
		if ctx == nil {
			yield(zero, errors.New("convo: nil context"))
			return
		}
		o, _ := callConfig(opts) // a bad option fails the first fetch
		if o.readAhead {
			walkAhead(ctx, start, aheadFetch(fetch, opts, o.response), yield, o.response)
			return
		}
		cursor := start
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			page, err := fetch(ctx, cursor, opts)
			if err != nil {
				yield(zero, err)
				return
			}
			more, err := follow(cursor, page)
			if !yield(page, nil) || !more {
				return
			}
			if err != nil {
				yield(zero, err)
				return
			}
			cursor = page.nextCursor()
		}
	}
}

// follow reports whether a page has a successor, and an error when its next
// cursor is the one it was read with.
func follow[P pageOf](cursor string, page P) (bool, error) {
	n := page.nextCursor()
	if n == "" {
		return false, nil
	}
	if n == cursor {
		// Looping would never end and stopping quietly would pass a partial
		// listing off as complete.
		return true, fmt.Errorf("convo: the service returned the cursor of the page just read as the next one; the listing is incomplete: %w", ErrMalformedResponse)
	}
	return true, nil
}

// fetched is a page fetched ahead, or the error that ended the fetch, and
// the fetch's metadata when the caller asked for it.
type fetched[P any] struct {
	page     P
	err      error
	meta     *Response
	panicked *PanicError // the fetch panicked (a middleware, a trace hook)
}

// aheadFetch adapts a page fetch to run in the read-ahead goroutine: the
// metadata of a CaptureResponse is captured into a private Response and
// handed to the caller's only when the page is (so the caller never reads
// it while the goroutine writes it).
func aheadFetch[P pageOf](fetch func(context.Context, string, []Option) (P, error), opts []Option, capture *Response) func(context.Context, string) fetched[P] {
	return func(ctx context.Context, cursor string) fetched[P] {
		var r fetched[P]
		if err := ctx.Err(); err != nil {
			r.err = err
			return r
		}
		own := opts
		if capture != nil {
			r.meta = new(Response)
			own = append(opts[:len(opts):len(opts)], CaptureResponse(r.meta))
		}
		r.page, r.err = fetch(ctx, cursor, own)
		return r
	}
}

// walkAhead is pages with read-ahead: while the caller holds page n, one
// goroutine fetches page n+1 (never more: the channel has room for one
// result and the next fetch starts only after it is taken). Breaking out of
// the loop, or the context ending, cancels that fetch and waits for its
// goroutine before returning, so none is left behind.
func walkAhead[P pageOf](ctx context.Context, cursor string, next func(context.Context, string) fetched[P], yield func(P, error) bool, capture *Response) {
	var zero P
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := func(cursor string) <-chan fetched[P] {
		ch := make(chan fetched[P], 1)
		go func() {
			var r fetched[P]
			defer func() {
				if p := recover(); p != nil {
					r = fetched[P]{panicked: &PanicError{Value: p, Stack: debug.Stack()}}
				}
				ch <- r
			}()
			r = next(ctx, cursor)
		}()
		return ch
	}
	pending := start(cursor)
	for {
		r := <-pending
		pending = nil
		if r.panicked != nil {
			panic(r.panicked) // the goroutine has ended: it sent
		}
		if capture != nil && r.meta != nil {
			*capture = *r.meta
		}
		if r.err != nil {
			yield(zero, r.err)
			return
		}
		more, err := follow(cursor, r.page)
		if more && err == nil {
			cursor = r.page.nextCursor()
			pending = start(cursor)
		}
		if !yield(r.page, nil) || !more {
			if pending != nil {
				cancel()
				// The goroutine has ended once it has sent; a panic of its
				// fetch is the caller's still.
				if r := <-pending; r.panicked != nil {
					panic(r.panicked)
				}
			}
			return
		}
		if err != nil {
			yield(zero, err)
			return
		}
	}
}

// items flattens a page iterator into its items; it stops at the first
// error (yielded once) or when the loop breaks.
func items[P pageOf, T any](seq iter.Seq2[P, error], itemsOf func(P) []T) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for page, err := range seq {
			if err != nil {
				yield(zero, err)
				return
			}
			list := itemsOf(page)
			for i := range list {
				if !yield(list[i], nil) {
					return
				}
			}
		}
	}
}
