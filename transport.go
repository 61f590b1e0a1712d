package convo

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultStallTimeout is how long an attempt may go without receiving a byte
// before it is abandoned: first its headers, then each read of its body. It
// catches a server that stalls without cutting a long healthy transfer, which
// keeps receiving bytes (see WithStallTimeout).
const DefaultStallTimeout = 30 * time.Second

// DefaultMaxConnsPerHost is the number of connections per host the default
// transport opens at most, and keeps idle: enough for the concurrency a bulk
// run uses (Parallel runs 8 calls at once by default; users go higher), so
// that connections are reused rather than opened and closed on every call.
// Calls beyond it wait for a connection to come free.
const DefaultMaxConnsPerHost = 256

// ErrStalled is the cause of a call abandoned because no byte arrived within
// the stall timeout. It comes wrapped in a *TransportError, whose Timeout
// reports true; a method safe to repeat is retried first.
var ErrStalled error = stalledError{}

type stalledError struct{}

func (stalledError) Error() string   { return "convo: no byte received within the stall timeout" }
func (stalledError) Timeout() bool   { return true }
func (stalledError) Temporary() bool { return true }

// WithStallTimeout sets how long an attempt may wait for its next byte —
// headers or body — before it is abandoned with ErrStalled (default
// DefaultStallTimeout). A download that keeps receiving bytes is never cut,
// however long it takes; bound a whole call with its context or WithTimeout.
// 0 turns the stall timeout off. Applies to NewClient.
func WithStallTimeout(d time.Duration) Option {
	return func(c *config) {
		if !c.in("WithStallTimeout", scopeClient) {
			return
		}
		if d < 0 {
			c.fail("WithStallTimeout: negative duration %v", d)
			return
		}
		c.stallTimeout, c.stallSet = d, true
	}
}

// defaultTransport is the transport of every client built without
// WithHTTPClient: http.DefaultTransport's settings, with an idle pool sized
// for concurrent use (DefaultMaxConnsPerHost), shared by those clients
// as http.DefaultTransport would be.
var defaultTransport = sync.OnceValue(func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no overall cap: the per-host one bounds the pool
	t.MaxIdleConnsPerHost = DefaultMaxConnsPerHost
	t.MaxConnsPerHost = DefaultMaxConnsPerHost
	return t
})

// stallTransport abandons an attempt that receives no byte for limit: its
// context is cancelled with ErrStalled as the cause, which ends the wait for
// headers or the body read under way.
type stallTransport struct {
	next  http.RoundTripper
	limit time.Duration
}

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	timer := time.AfterFunc(t.limit, func() { cancel(ErrStalled) })
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if context.Cause(ctx) == ErrStalled {
			err = ErrStalled
		}
		cancel(nil)
		return nil, err
	}
	timer.Reset(t.limit)
	resp.Body = &stallBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, timer: timer, limit: t.limit}
	return resp, nil
}

// stallBody restarts the stall timer on every byte received, and reports a
// read cut by it as ErrStalled.
type stallBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	limit  time.Duration
}

func (b *stallBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.limit)
	}
	if err != nil && err != io.EOF && context.Cause(b.ctx) == ErrStalled {
		err = ErrStalled
	}
	return n, err
}

func (b *stallBody) Close() error {
	b.timer.Stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
