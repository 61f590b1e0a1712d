package convo

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
)

// DefaultParallelLimit is how many calls Parallel and ParallelSeq run at
// once when no ParallelLimit is given: enough to hide a round trip of about
// 100 ms behind the others, few enough to stay under an ordinary rate limit.
const DefaultParallelLimit = 8

// ParallelLimit sets how many calls Parallel and ParallelSeq run at once (at
// least 1; a smaller n means 1). Default DefaultParallelLimit. Applies to
// Parallel.
func ParallelLimit(n int) Option {
	return func(c *config) {
		if c.in("ParallelLimit", scopeParallel) {
			c.limit = max(n, 1)
		}
	}
}

// ParallelCollectAll runs every input whatever happens to the others and
// reports each failure with its input. Without it, the first failure cancels
// the calls in flight (their context is cancelled with that failure as the
// cause), starts no new one, and is the only error reported. Applies to
// Parallel.
func ParallelCollectAll() Option {
	return func(c *config) {
		if c.in("ParallelCollectAll", scopeParallel) {
			c.collectAll = true
		}
	}
}

// parallelConfig gathers the options of a run.
func parallelConfig(opts []Option) (config, error) {
	c := config{scope: scopeParallel, limit: DefaultParallelLimit}
	err := c.apply(opts)
	return c, err
}

// ItemError is the failure of one input of Parallel in collect-all mode.
type ItemError struct {
	// Index is the input's position in the slice given to Parallel.
	Index int
	// Err is what fn returned for it.
	Err error
}

// Error names the input's position and its failure.
func (e *ItemError) Error() string { return "item " + strconv.Itoa(e.Index) + ": " + e.Err.Error() }

// Unwrap returns fn's error, so errors.Is and errors.As see through it.
func (e *ItemError) Unwrap() error { return e.Err }

// Parallel calls fn once for every input, at most ParallelLimit at a time,
// and returns the results in input order (out[i] is fn's result for
// inputs[i]). Each of ParallelLimit workers takes the next input as soon as
// it is free, so one slow call — waiting out a 429's Retry-After, say —
// holds only its own worker. It returns only once every call it started
// has returned: no goroutine is left behind, whatever happens.
//
// By default the first failure stops the run: the calls in flight are
// cancelled through their context, no new one starts, and that failure is
// returned as fn returned it (out then holds the results of the calls that
// succeeded, zero values elsewhere). With ParallelCollectAll every input is
// tried and the error joins one *ItemError per failed input, in input order
// (errors.Join; nil when all succeeded).
//
// The calls fn makes share the Client's rate limiter (see WithRateLimiter)
// with every other call of that Client: when the service refuses a call
// for its rate, the refused call waits out its Retry-After, and every call
// of the run is paced at the rate the service accepts, so the run proceeds
// near the limit rather than meeting it once per worker. Nothing is dropped
// by this: each call still retries its 429 within the client's own budget
// (WithMaxRetries), and only 429 makes a POST go out twice, as everywhere
// in this package. Parallel adds no retries of its own.
//
// When ctx ends, no new call starts: by default the run returns the
// context's error (unless a call failed first); in collect-all mode the
// first input not started is reported with it (the later ones are not
// reported at all).
//
// A panic in fn (or in a middleware or trace hook it runs) stops the run as
// a failure would, and is re-raised in the caller's goroutine as a
// *PanicError once every call has returned.
//
// fn must be safe to call from several goroutines at once; a *Client is.
func Parallel[In, Out any](ctx context.Context, inputs []In, fn func(ctx context.Context, in In) (Out, error), opts ...Option) ([]Out, error) {
	cfg, err := parallelConfig(opts)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errors.New("convo: nil context")
	}
	out := make([]Out, len(inputs))
	errs := make([]error, len(inputs))
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(context.Canceled)
	var (
		wg         sync.WaitGroup
		next       atomic.Int64
		notStarted atomic.Int64 // the first input not started because the run stopped
		failOnce   sync.Once
		firstErr   error
		p          panicked
	)
	notStarted.Store(int64(len(inputs)))
	call := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				p.keep(r, cancel)
			}
		}()
		out[i], errs[i] = fn(runCtx, inputs[i])
		if errs[i] != nil && !cfg.collectAll {
			failOnce.Do(func() { firstErr = errs[i]; cancel(errs[i]) })
		}
	}
	for range min(cfg.limit, len(inputs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(inputs) {
					return
				}
				if runCtx.Err() != nil {
					for cur := notStarted.Load(); int64(i) < cur && !notStarted.CompareAndSwap(cur, int64(i)); cur = notStarted.Load() {
					}
					return
				}
				call(i)
			}
		})
	}
	wg.Wait()
	p.reraise()
	failOnce.Do(func() {}) // firstErr is read after any failure was recorded
	if firstErr != nil {
		return out, firstErr
	}
	stopped := int(notStarted.Load())
	if !cfg.collectAll {
		if stopped < len(inputs) {
			return out, context.Cause(runCtx)
		}
		return out, nil
	}
	var all []error
	for i, err := range errs[:stopped] {
		if err != nil {
			all = append(all, &ItemError{Index: i, Err: err})
		}
	}
	if stopped < len(inputs) {
		all = append(all, &ItemError{Index: stopped, Err: context.Cause(runCtx)})
	}
	return out, errors.Join(all...)
}

// ParallelSeq is Parallel over a sequence, as a stream: it calls fn for each
// input, at most ParallelLimit at a time, and yields the results in input
// order as soon as each one and all before it are done. At most
// 4×ParallelLimit inputs are taken ahead of the one being yielded (so that
// one slow call does not idle the others while its successors wait for it
// in order), so memory stays bounded however long the sequence is, and a
// slow loop body slows the calls down rather than piling results up.
//
// By default the first failure stops the iteration: calls in flight are
// cancelled, the results before the failed input are yielded, then the
// failure (zero value and fn's error), and the iteration ends. With
// ParallelCollectAll every input is yielded with its own result or error.
//
// Breaking out of the loop cancels the calls in flight and returns once they
// have returned: no goroutine is left behind. inputs is read from another
// goroutine, one input at a time, never ahead of the window; if reading it
// makes calls (a listing), breaking out waits for the one under way. A run
// cut short by ctx ends with the context's error, never like a complete one.
//
// Calls share the Client's rate limiter as in Parallel. Unlike Parallel,
// results come out in input order through a bounded window: a call that
// waits (out a Retry-After, say) holds back the yielding of every later
// result, and once the window is full, the start of new calls.
func ParallelSeq[In, Out any](ctx context.Context, inputs iter.Seq[In], fn func(ctx context.Context, in In) (Out, error), opts ...Option) iter.Seq2[Out, error] {
	cfg, err := parallelConfig(opts)
	if err != nil {
		return func(yield func(Out, error) bool) {
			var zero Out
			yield(zero, err)
		}
	}
	return parallel(ctx, inputs, fn, cfg)
}

// orderWindow is how many results per allowed call may wait for their turn
// to be yielded in order.
const orderWindow = 4

type parallelResult[Out any] struct {
	v   Out
	err error
}

func parallel[In, Out any](ctx context.Context, inputs iter.Seq[In], fn func(context.Context, In) (Out, error), cfg config) iter.Seq2[Out, error] {
	return func(yield func(Out, error) bool) {
		if ctx == nil {
			var zero Out
			yield(zero, errors.New("convo: nil context"))
			return
		}
		runCtx, cancel := context.WithCancelCause(ctx)
		// pending holds one result channel per input started and not yet
		// yielded, in input order: with the one being waited on, at most
		// window inputs are in flight or done and waiting for their turn.
		// slots bounds the calls in flight to limit.
		window := orderWindow * cfg.limit
		pending := make(chan chan parallelResult[Out], window-1)
		slots := make(chan struct{}, cfg.limit)
		var (
			wg       sync.WaitGroup
			failOnce sync.Once
			firstErr error
			panicked panicked
		)
		fail := func(err error) {
			failOnce.Do(func() { firstErr = err; cancel(err) })
		}
		stoppedEarly := false // read once pending is closed
		wg.Go(func() {
			defer close(pending)
			defer func() { // the caller's sequence may panic
				if p := recover(); p != nil {
					panicked.keep(p, cancel)
				}
			}()
			for in := range inputs {
				if runCtx.Err() != nil {
					stoppedEarly = true
					return
				}
				ch := make(chan parallelResult[Out], 1)
				select {
				case pending <- ch:
				case <-runCtx.Done():
					stoppedEarly = true
					return
				}
				select {
				case slots <- struct{}{}:
				case <-runCtx.Done():
				}
				if runCtx.Err() != nil {
					// Queued but never run: its turn reports the cause.
					ch <- parallelResult[Out]{err: context.Cause(runCtx)}
					stoppedEarly = true
					return
				}
				wg.Go(func() {
					var r parallelResult[Out]
					defer func() {
						if p := recover(); p != nil {
							panicked.keep(p, cancel)
							r.err = errPanicked
						}
						<-slots
						ch <- r
					}()
					r.v, r.err = fn(runCtx, in)
					if r.err != nil && !cfg.collectAll {
						fail(r.err) // before the slot is free: nothing starts after it
					}
				})
			}
		})
		defer func() {
			cancel(context.Canceled)
			for range pending { // let the feeder see the cancellation and stop
			}
			wg.Wait()
			panicked.reraise() // every goroutine has ended
		}()
		for ch := range pending {
			r := <-ch
			if panicked.happened() {
				return
			}
			if r.err != nil && !cfg.collectAll {
				// A failed call ran fail before its send, so firstErr is the
				// cause, not a cancellation it brought about in an earlier
				// input; an input never run carries the context's cause.
				err := r.err
				failOnce.Do(func() {}) // firstErr is read after any fail
				if firstErr != nil {
					err = firstErr
				}
				yield(r.v, err)
				return
			}
			if !yield(r.v, r.err) {
				return
			}
		}
		if stoppedEarly {
			// The caller's context ended before the inputs did, which must
			// not look like a complete run.
			var zero Out
			yield(zero, context.Cause(runCtx))
		}
	}
}

// PanicError is what Parallel, ParallelSeq and an iteration with
// WithReadAhead panic with in the caller's goroutine when code they ran on
// a goroutine of their own panicked — fn, a middleware, a trace hook or the
// input sequence: the panic is not lost and does not end the process, and it
// is re-raised once every goroutine of the run has ended, so recover in the
// caller sees it and nothing is left running.
type PanicError struct {
	// Value is what the code panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, at the panic.
	Stack []byte
}

// Error describes the panic and where it happened.
func (p *PanicError) Error() string {
	return fmt.Sprintf("convo: panic in a goroutine of the SDK: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the value panicked with, when it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// errPanicked stands for the result of a call that panicked: the run stops,
// and the panic is re-raised instead.
var errPanicked = errors.New("convo: panicked")

// panicked keeps the first panic of a run's goroutines.
type panicked struct {
	mu  sync.Mutex
	err *PanicError
}

// keep records p with the stack of the goroutine that recovered it, and
// stops the run.
func (p *panicked) keep(v any, cancel context.CancelCauseFunc) {
	p.mu.Lock()
	if p.err == nil {
		p.err = &PanicError{Value: v, Stack: debug.Stack()}
	}
	p.mu.Unlock()
	cancel(errPanicked)
}

func (p *panicked) happened() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

// reraise panics with the kept panic, if any.
func (p *panicked) reraise() {
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	if err != nil {
		panic(err)
	}
}
