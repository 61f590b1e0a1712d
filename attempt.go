package convo

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// RoundTrip is one attempt: it waits for the client's rate limiter (and
// the anomaly report's hold) before anything else, then runs the
// middleware around the request. A held attempt is not sent, is not
// counted, and reaches no middleware.
func (ci *callInfo) RoundTrip(req *http.Request) (*http.Response, error) {
	hop := req.Response != nil // a redirect hop is the same attempt
	if !hop {
		ci.attempt++
		ci.handled = false
	}
	if err := ci.waitTurn(req.Context()); err != nil {
		if !hop {
			ci.attempt--
		}
		return nil, err
	}
	if len(ci.middleware) == 0 {
		return ci.send(req)
	}
	resp, err := runMiddleware(req, ci.middleware, ci.send)
	if resp != nil && resp.Request == nil {
		resp.Request = req // a middleware answered without sending
	}
	return resp, err
}

// waitTurn waits for the limiters that govern the call, and traces each
// wait once, with the time it took.
func (ci *callInfo) waitTurn(ctx context.Context) error {
	for _, l := range [2]*limiter{ci.limit, ci.hold} {
		waited, err := l.wait(ctx, ci.maxWait, ci.attempt > 1)
		if waited > 0 {
			ci.traceWait(ctx, WaitRateLimit, waited)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// send is the innermost step of an attempt: the request goes to the
// network (through the stall timeout) and the limiter learns from the
// answer. The anomaly report's 429s teach only its own hold.
func (ci *callInfo) send(req *http.Request) (*http.Response, error) {
	sent := time.Now()
	resp, err := ci.c.next.RoundTrip(req)
	if resp != nil && resp.Request == nil {
		resp.Request = req // a transport of the caller's may leave it out
	}
	if resp != nil && ci.file == nil {
		if ci.hold != nil && resp.StatusCode == http.StatusTooManyRequests {
			ci.hold.observe(sent, resp)
		} else {
			ci.limit.observe(sent, resp)
		}
	}
	if l := ci.c.logger; l != nil && l.Enabled(req.Context(), slog.LevelDebug) {
		ci.logAttempt(req, sent, resp, err)
	}
	return resp, err
}

func (ci *callInfo) logAttempt(req *http.Request, start time.Time, resp *http.Response, err error) {
	c := ci.c
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", ci.loggedPath(req)),
		slog.Duration("duration", time.Since(start)),
		slog.Int("attempt", ci.attempt),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", c.redactCall(ci, withoutURL(err).Error())))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	c.logger.LogAttrs(req.Context(), slog.LevelDebug, "convo: attempt", attrs...)
}

// loggedPath is the path an attempt is logged with: as sent (an id may hold
// the key, hence the redaction), or only the host of a temporary file
// address, which is a bearer secret.
func (ci *callInfo) loggedPath(req *http.Request) string {
	if ci.file != nil {
		return "(attachment on " + req.URL.Host + ")"
	}
	return ci.c.redactCall(ci, req.URL.EscapedPath())
}

// readBody is the response handler of an API call: it reads the answer's
// body (capped) inside the retry loop, so that a body cut part-way is an
// attempt that failed, retried like a failed connection.
func (ci *callInfo) readBody(resp *http.Response) error {
	ci.handled = true
	ci.buf.Reset()
	tooLarge, err := readCapped(ci.buf, resp.Body, resp.ContentLength, ci.c.maxBody)
	_ = resp.Body.Close() // read to its end, or refused: never waited for
	ci.tooLarge = tooLarge
	if err != nil {
		if l := ci.c.logger; l != nil && l.Enabled(resp.Request.Context(), slog.LevelDebug) {
			l.LogAttrs(resp.Request.Context(), slog.LevelDebug, "convo: reading the body failed",
				slog.String("method", ci.method), slog.String("path", ci.loggedPath(resp.Request)),
				slog.Int("attempt", ci.attempt), slog.Int("status", resp.StatusCode),
				slog.String("error", ci.c.redactCall(ci, withoutURL(err).Error())))
		}
		return err
	}
	return nil
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
func (ci *callInfo) traceStart(ctx context.Context) context.Context {
	if ci.trace == nil || ci.trace.CallStart == nil {
		return ctx
	}
	if out := ci.trace.CallStart(ctx, ci.callInfo()); out != nil {
		return out
	}
	return ctx
}

func (ci *callInfo) traceDone(ctx context.Context, err error) {
	if ci.trace != nil && ci.trace.CallDone != nil {
		ci.trace.CallDone(ctx, ci.callInfo(), ci.meta, err)
	}
}

func (ci *callInfo) traceWait(ctx context.Context, reason WaitReason, d time.Duration) {
	if ci.trace != nil && ci.trace.Wait != nil {
		ci.trace.Wait(ctx, ci.callInfo(), reason, d)
	}
}

// callInfo is the read-only view of the call that middleware and the trace
// see.
func (ci *callInfo) callInfo() CallInfo {
	return CallInfo{Method: ci.method, Route: ci.route, Attempt: ci.attempt}
}
