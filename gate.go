package convo

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// anomaliesPath has a rate limit of its own (about one pass a day,
// docs/behaviour.md, Rate limits and retries), so its 429s hold only its own gate: a day-long wait there must not
// stop every other call of the client.
const anomaliesPath = "/conversations/anomalies"

// rateGates are the client's two holds: the service's general limit, and the
// anomaly report's own. Nil when the gate is off.
type rateGates struct{ general, anomalies rateGate }

// forPath returns the gate that governs a request path; nil when off.
func (g *rateGates) forPath(path string) *rateGate {
	if g == nil {
		return nil
	}
	if path == anomaliesPath {
		return &g.anomalies
	}
	return &g.general
}

// rateGate is a hold that a 429 with Retry-After sets (see
// WithRateLimitGate). It is one atomic word, read before every attempt, so an
// open gate costs a load and a clock read.
type rateGate struct {
	until atomic.Int64 // gateClock() reading at which the hold ends; 0 or past: open
}

// gateEpoch anchors gateClock, so that a hold is measured on the monotonic
// clock: a step of the wall clock (an NTP correction) during a hold neither
// stretches nor cuts it.
var gateEpoch = time.Now()

// gateClock is the time since gateEpoch on the monotonic clock.
func gateClock() time.Duration { return time.Since(gateEpoch) }

// holdFor closes the gate for wait, unless wait is over limit: the general
// gate never holds longer than the client's maximum retry wait, so that one
// answer cannot stall every other call of the client (the call that was
// asked gets its typed 429 at once). A later end wins; an earlier one never
// shortens a hold already set.
func (g *rateGate) holdFor(wait, limit time.Duration) {
	if g == nil || wait <= 0 || wait > limit {
		return
	}
	end := int64(gateClock() + wait)
	for {
		cur := g.until.Load()
		// 0 is "never held"; readings may be negative (a synctest bubble's
		// clock runs before gateEpoch), so 0 is no lower bound.
		if (cur != 0 && cur >= end) || g.until.CompareAndSwap(cur, end) {
			return
		}
	}
}

// holdLimit is the longest hold a 429 on path may set: the client's maximum
// retry wait, except on the anomaly report, whose gate holds only its own
// calls and may be held as long as the service asks.
func holdLimit(path string, clientMax time.Duration) time.Duration {
	if path == anomaliesPath {
		return MaxRetryAfter
	}
	return clientMax
}

// wait blocks until the gate is open. It gives up at once, with a *gateHeld,
// when the hold would outlast the call's context deadline or its maximum
// retry wait; it returns the context's error if the context ends while
// waiting.
func (g *rateGate) wait(ctx context.Context, info *callInfo) error {
	if g == nil {
		return nil
	}
	for {
		until := g.until.Load()
		if until == 0 {
			return nil
		}
		d := time.Duration(until) - gateClock()
		if d <= 0 {
			return nil
		}
		if dl, ok := ctx.Deadline(); d > info.maxWait || (ok && time.Until(dl) < d) {
			return &gateHeld{wait: d}
		}
		if err := info.sleep(ctx, WaitGate, d); err != nil {
			return err
		}
		// Loop: another 429 may have extended the hold meanwhile.
	}
}

// gateHeld travels from the transport to the pipeline, which turns it into
// the typed 429 of a call that could not wait for the gate.
type gateHeld struct{ wait time.Duration }

func (g *gateHeld) Error() string { return "held by the client's rate-limit gate" }

// Is makes errors.Is(err, ErrRateLimited) true for the error middleware
// sees when an attempt is held and not sent.
func (g *gateHeld) Is(target error) bool { return target == ErrRateLimited }

// asError is the typed 429 a held call returns: as if the service had
// answered it, with the wait that is left.
func (g *gateHeld) asError(method, path string) *Error {
	return &Error{
		StatusCode: http.StatusTooManyRequests,
		Code:       CodeRateLimited,
		Message:    "not sent: the service asked this client to wait (Retry-After) and the wait outlasts the call's deadline or maximum retry wait",
		Method:     method,
		Path:       path,
		RetryAfter: g.wait,
	}
}
