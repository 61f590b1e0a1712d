package convo

import (
	"context"
	"sync"
	"time"
)

// shortRetryAfter is the longest Retry-After that the rate finder paces
// through instead of holding for it: the service rounds its wait up to whole
// seconds while its bucket refills in milliseconds, so one second asked is
// usually far more than needed. A longer wait (a real block) is held as asked.
const shortRetryAfter = time.Second

// WithAdaptiveRate turns the client's rate finder on (the default) or off.
// After the service first refuses a call for its rate (429), the finder
// paces every attempt of the client — every goroutine, Parallel runs
// included — to the rate the service has been accepting, learned from what
// got through and what was refused, and keeps probing upward while nothing
// is refused. A refused call is sent again at its paced turn rather than
// after the whole second the service's Retry-After usually rounds up to; a
// Retry-After longer than a second is still waited out. Nothing is dropped
// or sent twice, and a POST is still only re-sent after a 429. Off, calls
// meet the service's limit one 429 at a time. Applies to NewClient.
func WithAdaptiveRate(on bool) Option {
	return func(c *config) {
		if c.in("WithAdaptiveRate", scopeClient) {
			c.noFinder = !on
		}
	}
}

// rateFinder learns the rate the service accepts (see WithAdaptiveRate)
// and spaces the client's attempts to it.
type rateFinder struct {
	mu      sync.Mutex
	pace    float64       // attempts per second; 0 until the first refusal: no pacing
	tat     time.Time     // the theoretical time of the next turn
	changed chan struct{} // closed when the pace changes
	setAt   time.Time     // when the pace was last set
	quiet   int           // answers accepted since then
}

// The pace a first refusal sets, the turns a pace may run ahead, and the
// probe of quiet windows (see observe).
const (
	paceSlack    = 4
	firstTurn    = 4 * time.Millisecond
	quietWindow  = 100 * time.Millisecond
	quietAnswers = 8
	quietStep    = 2
)

// paces reports whether the finder is pacing the client.
func (f *rateFinder) paces() bool {
	if f == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pace > 0
}

// wait waits for the attempt's turn: one interval of the pace after the
// last turn given, give or take paceSlack turns. Waiting attempts hold no turn, so a change of pace
// applies at once to all of them. A turn that would come after the
// context's deadline is not waited for: the call fails at once, as when the
// gate holds it.
func (f *rateFinder) wait(ctx context.Context, info *callInfo) error {
	if f == nil {
		return nil
	}
	for {
		f.mu.Lock()
		if f.pace == 0 {
			f.mu.Unlock()
			return nil
		}
		now := time.Now()
		interval := time.Duration(float64(time.Second) / f.pace)
		tat := f.tat
		if tat.Before(now) {
			tat = now
		}
		// Turns may run paceSlack intervals ahead of the theoretical
		// time, so that a timer that fires late is made up for.
		d := tat.Sub(now) - paceSlack*interval
		if d <= 0 {
			f.tat = tat.Add(interval)
			f.mu.Unlock()
			return nil
		}
		changed := f.changed
		f.mu.Unlock()
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return &gateHeld{wait: d}
		}
		info.traceWait(ctx, WaitPace, d)
		timer := time.NewTimer(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-changed: // a new pace
			timer.Stop()
		case <-timer.C: // try for the turn; another attempt may take it first
		}
	}
}

// observe records an answer: accepted, or refused for the rate (a 429 that
// asks for a short wait, up to shortRetryAfter: what a token bucket says).
//
// A refusal means the client asks for more than the service accepts, so
// the rate at which answers were accepted since the pace was last set is
// the service's rate: the pace comes down to it. The first refusal, with
// nothing to measure yet, sets a pace of one answer per 4 ms, which later
// refusals correct. After quietAnswers accepted and quietWindow without a
// refusal, the pace doubles: a probe for a rate the service allows beyond it,
// which the next refusal corrects.
func (f *rateFinder) observe(refused bool) {
	if f == nil {
		return
	}
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !refused {
		f.quiet++
		if f.pace > 0 && f.quiet >= quietAnswers && now.Sub(f.setAt) >= quietWindow {
			f.setPace(now, f.pace*quietStep)
		}
		return
	}
	switch span := now.Sub(f.setAt); {
	case f.pace == 0:
		f.setPace(now, float64(time.Second/firstTurn))
	case f.quiet > 0 && float64(f.quiet)/span.Seconds() < f.pace:
		f.setPace(now, float64(f.quiet)/span.Seconds())
	}
}

// setPace sets the pace, and wakes the attempts waiting for a turn.
func (f *rateFinder) setPace(now time.Time, pace float64) {
	f.pace, f.setAt, f.quiet = pace, now, 0
	if f.changed != nil {
		close(f.changed)
	}
	f.changed = make(chan struct{})
}

// finderFor returns the finder that paces a request path: the client's,
// except for the anomaly report, whose limit is its own and counted in calls
// a day.
func (c *Client) finderFor(path string) *rateFinder {
	if path == anomaliesPath {
		return nil
	}
	return c.finder
}
