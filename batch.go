package convo

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
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
// inputs[i]). It returns only once every call it started has returned: no
// goroutine is left behind, whatever happens.
//
// By default the first failure stops the run: the calls in flight are
// cancelled through their context, no new one starts, and that failure is
// returned as fn returned it (out then holds the results of the calls that
// succeeded, zero values elsewhere). With ParallelCollectAll every input is
// tried and the error joins one *ItemError per failed input, in input order
// (errors.Join; nil when all succeeded).
//
// The calls fn makes with the context it is given share the run's pace: when
// the service answers 429, every call waits out its Retry-After before its
// next attempt (the client's rate-limit gate, on by default), and the number
// of attempts of the run allowed in flight is halved, then grows back by one
// per round of successes. Nothing is dropped by this: each call still
// retries its 429 within the client's own budget (WithMaxRetries; raise it
// for long bulk jobs), and only 429 makes a POST go out twice, as everywhere
// in this package. Parallel adds no retries of its own.
//
// When ctx ends, no new call starts: in collect-all mode the first input
// not started is reported with the context's error (the later ones are not
// reported at all).
//
// fn must be safe to call from several goroutines at once; a *Client is.
func Parallel[In, Out any](ctx context.Context, inputs []In, fn func(ctx context.Context, in In) (Out, error), opts ...Option) ([]Out, error) {
	cfg, err := parallelConfig(opts)
	if err != nil {
		return nil, err
	}
	out := make([]Out, len(inputs))
	var errs []error
	i := 0
	for v, err := range parallel(ctx, slices.Values(inputs), fn, cfg) {
		switch {
		case err == nil:
			out[i] = v
		case cfg.collectAll:
			errs = append(errs, &ItemError{Index: i, Err: err})
		default:
			return out, err
		}
		i++
	}
	return out, errors.Join(errs...)
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
// Calls share the run's pace on 429 exactly as in Parallel.
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
		runCtx = ContextWithMiddleware(runCtx, newPace(cfg.limit).middleware)
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
		)
		fail := func(err error) {
			failOnce.Do(func() { firstErr = err; cancel(err) })
		}
		stoppedEarly := false // read once pending is closed
		wg.Go(func() {
			defer close(pending)
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
					v, err := fn(runCtx, in)
					if err != nil && !cfg.collectAll {
						fail(err) // before the slot is free: nothing starts after it
					}
					<-slots
					ch <- parallelResult[Out]{v, err}
				})
			}
		})
		defer func() {
			cancel(context.Canceled)
			for range pending { // let the feeder see the cancellation and stop
			}
			wg.Wait()
		}()
		for ch := range pending {
			r := <-ch
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

// pace is shared by the calls of one Parallel run, through their context:
// its middleware runs around each of their attempts. The hold a 429 asks for is the client's rate-limit gate (see
// WithRateLimitGate), which every call of the Client obeys; pace adds a
// limit on how many attempts of the run are in flight, additive increase
// and multiplicative decrease as TCP does: a 429 halves the limit (once per
// round: answers to attempts sent before the last cut do not cut again),
// each success adds 1/limit, so the limit regrows by one per round of
// successes, up to the run's bound. Without it, the whole run would meet
// the service at full width again the moment the hold ends.
type pace struct {
	mu       sync.Mutex
	max      float64
	limit    float64
	inFlight int
	lastCut  time.Time     // when the limit was last halved
	changed  chan struct{} // closed when inFlight drops or the limit changes
}

func newPace(limit int) *pace {
	return &pace{max: float64(limit), limit: float64(limit), changed: make(chan struct{})}
}

// middleware paces one attempt: it reaches the calls of the run through
// their context (see ContextWithMiddleware).
func (p *pace) middleware(req *http.Request, next MiddlewareNext) (*http.Response, error) {
	start, err := p.acquire(req.Context())
	if err != nil {
		return nil, err
	}
	resp, err := next(req)
	info := callInfoFrom(req.Context())
	p.release(start, resp, info != nil && info.finder.paces())
	return resp, err
}

// acquire waits until fewer than the limit are in flight, and returns when
// the attempt started (for release).
func (p *pace) acquire(ctx context.Context) (time.Time, error) {
	for {
		p.mu.Lock()
		if float64(p.inFlight) < p.limit {
			p.inFlight++
			p.mu.Unlock()
			return time.Now(), nil
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-changed:
		}
	}
}

// release ends an attempt started at start and learns from its answer
// (nil: no answer). A 429 does not cut the limit when the client's rate
// finder paces the calls (paced): the finder already spaces them to the
// service's rate, and cutting the width too would idle the run.
func (p *pace) release(start time.Time, resp *http.Response, paced bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight--
	switch {
	case resp == nil:
	case resp.StatusCode == http.StatusTooManyRequests && paced:
	case resp.StatusCode == http.StatusTooManyRequests:
		now := time.Now()
		// Answers to attempts sent before the last cut tell nothing new.
		if start.After(p.lastCut) {
			p.limit = max(1, p.limit/2)
			p.lastCut = now
		}
	case resp.StatusCode < 500:
		p.limit = min(p.max, p.limit+1/p.limit)
	}
	close(p.changed)
	p.changed = make(chan struct{})
}
