package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// call is one execution of a request: the state its attempts share, and
// each step of its loop as a method. go-retryablehttp runs the loop; the
// call gives it its hooks (checkRetry, backoff, prepareRetry) and is the
// transport of the call's own http.Client (RoundTrip: the turn, the
// middleware, the network). What differs between an API call and a
// download is the call's strategy, not branches on a flag.
//
// go-retryablehttp stays the loop, as the design names it; the call owns
// what the library cannot know: the turn at the limiters before each
// attempt (it would otherwise sleep its backoff and then meet the limit
// again), the one classification of each answer, the reading of the
// answer inside the loop (so that a body cut part-way is one more failed
// attempt), and a download's resumption.
type call struct {
	*request
	how strategy

	// What the attempts share. The loop runs them one after another on
	// the call's goroutine.
	attempt  int           // attempts so far
	retries  int           // retries decided so far by checkRetry
	planned  time.Duration // the wait checkRetry chose before the next attempt
	toldWait bool          // the call has waited a Retry-After already (see spreadWait)
	waitFrom time.Time     // when that wait began; zero: no wait under way
	handled  bool          // the strategy has read the last answer
	last     Outcome       // the classification of lastResp
	lastResp *http.Response
	meta     Response
	keyMatch *keyMatcher // the call's own key's matcher, built when first needed (see redactCall)
}

// strategy is what an API call and a download each do their own way.
type strategy interface {
	// client is the template of the call's http.Client: its redirects,
	// cookie jar and timeout.
	client(c *Client) http.Client
	// retryMax is the loop's budget of retries, given the call's.
	retryMax(budget int) int
	// receive reads an answer the loop will not retry (go-retryablehttp's
	// response handler); an error makes it one more failed attempt.
	receive(c *call, resp *http.Response) error
	// retryable says whether an outcome is retried, within the budget.
	retryable(c *call, resp *http.Response, err error, o Outcome) bool
	// backoffStep is the exponent of the next backoff.
	backoffStep(c *call) int
	// prepare readies the next attempt's request.
	prepare(req *http.Request)
	// where names what an attempt reaches, in logs; target, in errors.
	where(c *call, req *http.Request) string
	target(c *call) string
	// finish turns the last answer into the call's result.
	finish(c *call, resp *http.Response) error
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// execute runs the request's call under its timeout and trace, hands the
// last answer to the strategy, and stamps the call's metadata on the
// result. It returns the number of attempts, and the call's error.
func (r *request) execute(ctx context.Context, how strategy) (int, error) {
	c := &call{request: r, how: how}
	start := time.Now()
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	ctx = c.traceStart(ctx)
	var err error
	if err = ctx.Err(); err != nil {
		err = c.transportError(ctx, err)
	} else {
		var resp *http.Response
		if resp, err = c.run(ctx); err == nil {
			err = how.finish(c, resp)
		}
	}
	c.meta.Attempts, c.meta.Duration = c.attempt, time.Since(start)
	if err != nil {
		err = c.finishError(err)
	}
	c.traceDone(ctx, err)
	if r.capture != nil {
		*r.capture = c.meta
	}
	return c.attempt, err
}

// run is the call's loop. It returns the last answer (read by the
// strategy), or the failure to get one.
func (c *call) run(ctx context.Context) (*http.Response, error) {
	var raw any // retryablehttp treats a nil []byte as a body; keep it untyped nil
	if c.body != nil {
		raw = c.body
	}
	req, err := retryablehttp.NewRequestWithContext(context.WithValue(ctx, callKey{}, c), c.method, c.url, raw)
	if err != nil {
		// url.Parse's error quotes the whole URL, query values included.
		return nil, fmt.Errorf("convo: %s %s: building request: %w", c.method, c.path, withoutURL(err))
	}
	req.Header = c.header
	req.SetResponseHandler(func(resp *http.Response) error {
		c.handled = true
		return c.how.receive(c, resp)
	})
	hc := c.how.client(c.c)
	hc.Transport = c
	rc := &retryablehttp.Client{
		HTTPClient:   &hc,
		RetryMax:     c.how.retryMax(c.maxRetries),
		CheckRetry:   c.checkRetry,
		Backoff:      c.backoff,
		PrepareRetry: c.prepareRetry,
		// The last answer comes back as it is, so that the caller's error
		// is the typed error of that answer, not a generic one.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	resp, err := rc.Do(req)
	c.endWait(ctx) // a wait the context cut short
	if err != nil {
		var held *holdError
		if errors.As(err, &held) {
			return nil, held.asError(c.method, c.path)
		}
		return nil, c.transportError(ctx, err)
	}
	c.meta.StatusCode, c.meta.Header = resp.StatusCode, resp.Header
	return resp, nil
}

// RoundTrip is one attempt: it waits for its turn at the call's limiters
// before anything else, then runs the middleware around the request. A held
// attempt is not sent, is not counted, and reaches no middleware.
func (c *call) RoundTrip(req *http.Request) (*http.Response, error) {
	hop := req.Response != nil // a redirect hop is the same attempt
	if !hop {
		c.attempt++
		c.handled = false
	}
	a := &attempt{c: c, turn: Turn{Method: c.method, Route: c.route, Retry: c.attempt > 1}}
	if err := a.waitTurn(req.Context()); err != nil {
		if !hop {
			c.attempt--
		}
		return nil, err
	}
	defer a.settle()
	if len(c.middleware) == 0 {
		return a.send(req)
	}
	resp, err := runMiddleware(req, c.middleware, a.send)
	if resp != nil && resp.Request == nil {
		resp.Request = req // a middleware answered without sending
	}
	return resp, err
}

// attempt is one attempt's turn: the limiters that gave it, each told once
// how the attempt ended.
type attempt struct {
	c     *call
	turn  Turn
	given [2]*pacer // hold, limit: those that gave a turn not yet observed
}

// rank is the attempt's place among the retries waiting for a turn: the
// more often its call was refused, the sooner it goes, except that a call's
// last attempt goes after the other retries. The first turn after a hold
// or a cut is the one most likely refused again; when the most refused
// call always took it, that one call met refusal after refusal and failed
// while the calls behind it kept their budget: with its last attempt
// behind, the many-clients matrix fails a third fewer runs for a failed
// call.
func (a *attempt) rank() int {
	if a.c.attempt > a.c.how.retryMax(a.c.maxRetries) {
		return 0
	}
	return a.c.attempt
}

// waitTurn waits for the anomaly report's hold, then for the client's
// limiter, and traces each wait once, with the time it took.
func (a *attempt) waitTurn(ctx context.Context) error {
	c := a.c
	for i, p := range [2]*pacer{c.hold, c.limit} {
		if p == nil {
			continue
		}
		waited, err := p.wait(ctx, a.turn, a.rank(), c.maxWait)
		if waited > 0 {
			c.traceWait(ctx, WaitRateLimit, waited)
		}
		if err != nil {
			a.settle()
			return err
		}
		a.given[i] = p
	}
	return nil
}

// send is the innermost step of an attempt: the request goes to the
// network (through the stall timeout), its answer is classified once, and
// the limiters learn from it.
func (a *attempt) send(req *http.Request) (*http.Response, error) {
	c := a.c
	sent := time.Now()
	resp, err := c.c.next.RoundTrip(req)
	if resp != nil && resp.Request == nil {
		resp.Request = req // a transport of the caller's may leave it out
	}
	c.last, c.lastResp = classify(resp, err, sent), resp
	a.observe(c.last)
	if l := c.c.logger; l != nil && l.Enabled(req.Context(), slog.LevelDebug) {
		c.logAttempt(req, sent, resp, err)
	}
	return resp, err
}

// observe tells each limiter that gave the turn how the attempt ended,
// once. A 429 of the anomaly report is its own limit's: it teaches only its
// hold, and says nothing to the client's limiter.
func (a *attempt) observe(o Outcome) {
	hold, limit := a.given[0], a.given[1]
	a.given = [2]*pacer{}
	if hold != nil {
		hold.lim.Observe(a.turn, o)
	}
	if limit != nil {
		if a.c.hold != nil && o.Kind == OutcomeRefused {
			o.Kind = OutcomeFailed
		}
		limit.lim.Observe(a.turn, o)
	}
}

// settle tells the limiters that gave a turn to an attempt that got no
// answer (a middleware answered, a panic, a hold by the next limiter).
func (a *attempt) settle() {
	if a.given != [2]*pacer{} {
		now := time.Now()
		a.observe(Outcome{Kind: OutcomeFailed, Sent: now, Received: now})
	}
}

// outcomeOf is the classification of an attempt's outcome: the one made
// when it came back from the network, or, for an answer a middleware made
// itself, one made now.
func (c *call) outcomeOf(resp *http.Response, err error) Outcome {
	if resp != nil && resp == c.lastResp {
		return c.last
	}
	return classify(resp, err, time.Now())
}

// checkRetry is the loop's CheckRetry: whether the outcome of an attempt (an
// answer, a failure to get one, or a failure to read its body) is retried,
// and after how long. A wait that would end after the context's deadline is
// not started: the call returns the last answer's typed error at once
// rather than sleeping until the deadline and reporting only
// context.DeadlineExceeded. It returns an error only when the context has
// ended.
func (c *call) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if err != nil {
			return false, err // keep the failure; the pipeline adds ctxErr if missing
		}
		return false, ctxErr
	}
	if err == nil && c.handled {
		return false, nil // the answer the loop stops on, read by the strategy
	}
	o := c.outcomeOf(resp, err)
	if !c.how.retryable(c, resp, err, o) {
		return false, nil
	}
	wait, shortest := c.planWait(ctx, o)
	if dl, has := ctx.Deadline(); has && time.Now().Add(shortest).After(dl) {
		return false, nil
	}
	c.retries++
	c.planned = wait
	if resp != nil && err == nil {
		keepConnection(resp)
	}
	return true, nil
}

// planWait returns the wait before the next attempt and the shortest it
// could be: the Retry-After of a 429 or 503, whole — for a paced call that
// had waited a Retry-After already, with a random share of it more (see
// spreadWait) — else the jittered exponential backoff (whose shortest is
// half its base).
func (c *call) planWait(ctx context.Context, o Outcome) (wait, shortest time.Duration) {
	if o.asked {
		again := c.toldWait
		c.toldWait = true
		if !again || c.limit == nil {
			return o.RetryAfter, o.RetryAfter
		}
		room := c.maxWait
		if dl, has := ctx.Deadline(); has {
			room = min(room, time.Until(dl))
		}
		return spreadWait(o.RetryAfter, room), o.RetryAfter
	}
	n := c.how.backoffStep(c)
	min, max := c.c.retryWaitMin, c.c.retryWaitMax
	return jitteredBackoff(min, max, n), baseBackoff(min, max, n) / 2
}

// spreadWait is the wait of a call refused again after it had waited out a
// Retry-After: that Retry-After and a random extra of up to half of it, but
// no more than room (the call's maximum retry wait, and what is left before
// its deadline). The service tells every attempt it refuses at one moment
// the same wait, so the calls it refused together — those of the clients
// that share the key, whose limiters know nothing of each other — come back
// together, one Retry-After later, into a key that is full again, and meet
// refusal after refusal until the budget runs out. A call refused only once
// keeps its exact wait: a lone refusal is retried as soon as allowed. So
// does a call of a client that does not pace (NoRateLimiter): its retries
// compete with its own first attempts, which would take a window the
// Retry-After points at the start of, whereas a paced client's retries go
// before its first attempts whenever they come.
func spreadWait(retryAfter, room time.Duration) time.Duration {
	extra := min(retryAfter/2, room-retryAfter)
	if extra <= 0 {
		return retryAfter
	}
	return retryAfter + rand.N(extra+1)
}

// backoff is the loop's Backoff: the wait checkRetry planned. The loop
// sleeps it; its start is noted for the trace.
func (c *call) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	c.waitFrom = time.Now()
	return c.planned
}

// prepareRetry is the loop's PrepareRetry, run when the wait is over and
// before the next attempt: it traces the wait, and lets the strategy ready
// the next request.
func (c *call) prepareRetry(req *http.Request) error {
	c.endWait(req.Context())
	c.how.prepare(req)
	return nil
}

// endWait traces the retry wait under way, if any, with the time it took.
func (c *call) endWait(ctx context.Context) {
	if c.waitFrom.IsZero() {
		return
	}
	d := time.Since(c.waitFrom)
	c.waitFrom = time.Time{}
	c.traceWait(ctx, WaitRetry, d)
}

func (c *call) logAttempt(req *http.Request, start time.Time, resp *http.Response, err error) {
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", c.how.where(c, req)),
		slog.Duration("duration", time.Since(start)),
		slog.Int("attempt", c.attempt),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", c.redact(withoutURL(err).Error())))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	c.c.logger.LogAttrs(req.Context(), slog.LevelDebug, "convo: attempt", attrs...)
}

// runMiddleware sends req through mws in order, the first outermost, then
// through last. The slices are never modified, so a middleware may call next
// more than once.
func runMiddleware(req *http.Request, mws []Middleware, last MiddlewareNext) (*http.Response, error) {
	if len(mws) == 0 {
		return last(req)
	}
	resp, err := mws[0](req, func(r *http.Request) (*http.Response, error) {
		return runMiddleware(r, mws[1:], last)
	})
	if resp == nil && err == nil {
		err = errors.New("convo: a middleware returned neither a response nor an error")
	}
	return resp, err
}

// traceStart, traceDone and traceWait tell the call's Trace, if any.
func (c *call) traceStart(ctx context.Context) context.Context {
	if c.trace == nil || c.trace.CallStart == nil {
		return ctx
	}
	if out := c.trace.CallStart(ctx, c.info()); out != nil {
		return out
	}
	return ctx
}

func (c *call) traceDone(ctx context.Context, err error) {
	if c.trace != nil && c.trace.CallDone != nil {
		c.trace.CallDone(ctx, c.info(), c.meta, err)
	}
}

func (c *call) traceWait(ctx context.Context, reason WaitReason, d time.Duration) {
	if c.trace != nil && c.trace.Wait != nil {
		c.trace.Wait(ctx, c.info(), reason, d)
	}
}

// info is the read-only view of the call that middleware and the trace
// see.
func (c *call) info() CallInfo {
	return CallInfo{Method: c.method, Route: c.route, Attempt: c.attempt}
}

// pacer is the client's side of a RateLimiter, which keeps the client's
// rules around any implementation (see RateLimiter): the attempts of the
// client wait in one queue, retries first, then the others in the order
// they came (but see probeHead); only the attempt at the head asks the
// limiter for its turn, and sleeps what it says (or until the limiter's
// Changed fires); an attempt that would wait past its bound is held at
// once. An attempt finds the queue empty most of the time, and asks the
// limiter without queueing.
type pacer struct {
	lim     RateLimiter
	changed func() <-chan struct{} // the limiter's Changed, if it has one
	probing func() bool            // the SDK limiter's probing, if it has one (see probeHead)

	mu      sync.Mutex
	retries []*waiter // the queue: retries first,
	firsts  []*waiter // then first attempts, each in the order they came
	ahead   time.Duration
}

// sharedQueue is the one pacer of a limiter of the SDK's, made when a
// client is first given it.
type sharedQueue struct {
	once sync.Once
	p    *pacer
}

func (q *sharedQueue) get(l RateLimiter) *pacer {
	q.once.Do(func() { q.p = pacerOf(l) })
	return q.p
}

// waiter is an attempt in the queue. wake is signalled when it may have
// become the head.
type waiter struct {
	wake chan struct{}
	rank int // a retry's place: higher goes first (see attempt.rank)
}

// nudge wakes w if it sleeps; a wake already pending is enough.
func (w *waiter) nudge() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// newPacer is the pacer of l; nil for NoRateLimiter, which never holds.
// The SDK's own limiters keep one pacer for every client given them, so
// that the clients' attempts wait in one queue and are served in the order
// they came, as one client's are; a limiter of the user's has a pacer per
// client.
func newPacer(l RateLimiter) *pacer {
	if _, off := l.(noLimiter); off || l == nil {
		return nil
	}
	if q, ok := l.(interface{ queue() *pacer }); ok {
		return q.queue()
	}
	return pacerOf(l)
}

// pacerOf is a new pacer of l.
func pacerOf(l RateLimiter) *pacer {
	p := &pacer{lim: l}
	if ch, ok := l.(interface{ Changed() <-chan struct{} }); ok {
		p.changed = ch.Changed
	}
	if pr, ok := l.(interface{ probing() bool }); ok {
		p.probing = pr.probing
	}
	return p
}

// wait blocks until the attempt t has its turn, and returns how long it
// waited (0: not at all). It gives up at once with a *holdError when its
// turn would come after maxWait from when it began to wait, or after ctx's
// deadline; it returns ctx's error if ctx ends while it waits, and the
// limiter's error, wrapped, if Take fails.
func (p *pacer) wait(ctx context.Context, t Turn, rank int, maxWait time.Duration) (time.Duration, error) {
	var (
		asked   bool // the limiter was asked already, and said d
		d       time.Duration
		changed <-chan struct{}
	)
	p.mu.Lock()
	idle := len(p.retries)+len(p.firsts) == 0
	p.mu.Unlock()
	if idle {
		if p.changed != nil {
			changed = p.changed() // before Take: a change after it wakes the sleep below
		}
		var err error
		if d, err = p.lim.Take(ctx, t); err != nil || d == 0 {
			return 0, takeError(err)
		}
		asked = true
	}
	w := &waiter{wake: make(chan struct{}, 1), rank: rank}
	p.join(w, t.Retry)
	defer p.leave(w)
	start := time.Now()
	slept, wasHead := false, false
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		head, ahead := p.headAndAhead(w)
		switch {
		case !head:
			if wasHead {
				// The head changed under it (a storm's probe began or
				// ended; see probeHead): the new one may be asleep.
				p.wakeHead()
			}
			d, changed = ahead, nil
		case !asked:
			if p.changed != nil {
				changed = p.changed()
			}
			var err error
			if d, err = p.lim.Take(ctx, t); err != nil || d == 0 {
				return waited(start, slept), takeError(err)
			}
		}
		if head {
			p.setAhead(d)
		}
		asked, wasHead = false, head
		now := time.Now()
		elapsed := now.Sub(start)
		if dl, ok := ctx.Deadline(); elapsed+d > maxWait || (!head && elapsed >= maxWait) || (ok && dl.Sub(now) < d) {
			return waited(start, slept), &holdError{wait: d}
		}
		sleep := d // the head sleeps its turn; one behind it, until woken or its bound
		if !head {
			sleep = maxWait - elapsed
		}
		if timer == nil {
			timer = time.NewTimer(sleep)
		} else {
			timer.Reset(sleep)
		}
		select {
		case <-ctx.Done():
			return waited(start, true), ctx.Err()
		case <-timer.C:
		case <-changed:
		case <-w.wake:
		}
		slept = true
	}
}

// waited is the time an attempt waited since start, if it slept at all.
func waited(start time.Time, slept bool) time.Duration {
	if !slept {
		return 0
	}
	return time.Since(start)
}

// takeError wraps a limiter's failure: the call fails with it.
func takeError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("convo: rate limiter: %w", err)
}

// join queues w; a retry goes before every first attempt, and becomes the
// head if none is ahead of it.
func (p *pacer) join(w *waiter, retry bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if retry {
		// A call refused more often goes first: under a window limit,
		// where only the first attempts of each window pass, it would
		// otherwise spend its budget behind calls that have more left.
		i := len(p.retries)
		for i > 0 && p.retries[i-1].rank < w.rank {
			i--
		}
		p.retries = slices.Insert(p.retries, i, w)
	} else {
		p.firsts = append(p.firsts, w)
	}
}

// leave takes w out of the queue and wakes the new head, if it changed.
func (p *pacer) leave(w *waiter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	before := p.head()
	if i := slices.Index(p.retries, w); i >= 0 {
		p.retries = slices.Delete(p.retries, i, i+1)
	} else if i := slices.Index(p.firsts, w); i >= 0 {
		p.firsts = slices.Delete(p.firsts, i, i+1)
	}
	if h := p.head(); h != nil && h != before {
		h.nudge()
	}
}

// head is the attempt at the head of the queue; nil when it is empty. The
// caller holds p.mu.
func (p *pacer) head() *waiter {
	if p.probing != nil && len(p.retries) > 0 && p.probing() {
		return p.probeHead()
	}
	switch {
	case len(p.retries) > 0:
		return p.retries[0]
	case len(p.firsts) > 0:
		return p.firsts[0]
	}
	return nil
}

// probeHead is the head while the SDK's limiter holds every attempt but a
// storm's probe: a first attempt, else the retry refused least (a call's
// last attempt only when nothing else waits). A probe is the attempt most
// likely refused; given, as the queue's order would, to the retry refused
// most, it fell to the same call at each probe until that call ran out of
// retries (sixteen clients on a token bucket at 100 a second: one call
// refused at 1.0, 2.5, 4.5, 6.5 and 8.2 s, and failed). The caller holds
// p.mu, and there is a retry.
func (p *pacer) probeHead() *waiter {
	if len(p.firsts) > 0 {
		return p.firsts[0]
	}
	for i := len(p.retries) - 1; i >= 0; i-- {
		if p.retries[i].rank > 0 {
			return p.retries[i]
		}
	}
	return p.retries[0]
}

// wakeHead wakes the attempt at the head of the queue, if any.
func (p *pacer) wakeHead() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.head(); h != nil {
		h.nudge()
	}
}

// headAndAhead reports whether w is the head, and else how long the head
// was last told to wait: the least an attempt behind it will wait more.
func (p *pacer) headAndAhead(w *waiter) (bool, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.head() == w, p.ahead
}

func (p *pacer) setAhead(d time.Duration) {
	p.mu.Lock()
	p.ahead = d
	p.mu.Unlock()
}
