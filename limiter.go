package convo

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// RateLimiter paces the attempts of a Client's calls under the service's
// request limit, whose number, window and kind the service does not
// publish, and which counts every process that uses the key. The client
// asks it for a turn before each attempt (Take) and tells it how each
// attempt it let through ended (Observe).
//
// The SDK's limiters are AdaptiveRate (the default), FixedRate and
// NoRateLimiter; give one, or your own, to NewClient with WithRateLimiter.
// One RateLimiter given to several clients paces them together, as one:
// with the SDK's limiters, their attempts also wait in one queue, served in
// the order they came, so that each client gets an even share.
//
// Whatever the implementation, the client keeps these rules around it:
//   - a request refused with a Retry-After is never sent again before that
//     wait has passed;
//   - attempts wait for their turn in one queue per client (one for all
//     the clients given one of the SDK's limiters): retries of calls the
//     service refused or failed first, the most refused first but a call's
//     last attempt after the other retries, then the others in the order
//     they came (but a storm's probe of AdaptiveRate goes to the attempt
//     with the most of its retries left); only the attempt at the head of
//     the queue asks Take, so a limiter sees one asker per client;
//   - an attempt whose turn would come later than the call's maximum retry
//     wait (WithMaxRetryWait) or its context's deadline is not sent: the call
//     returns at once a typed 429 of the client's own (Error.Held, with
//     Error.RetryAfter the wait that was left);
//   - each wait is traced once (Trace.Wait, WaitRateLimit), with the time
//     it lasted;
//   - Observe is called once for every turn Take gave, whatever became of
//     the attempt (OutcomeFailed when it got no answer).
//
// A RateLimiter must be safe for concurrent use. It may also have a method
// Changed() <-chan struct{}, returning a channel that is closed when a turn
// may come sooner than Take last said (the rate rose, a hold ended): the
// client then asks again at once rather than sleeping out the old wait.
type RateLimiter interface {
	// Take asks for the turn of an attempt about to be sent. It returns 0
	// when the attempt may be sent now, the turn being taken; otherwise
	// no turn is taken, and it returns how long until one may come: the
	// client sleeps that long (less if Changed fires, or the call ends)
	// and asks again. An error fails the call without sending the
	// attempt. ctx is the call's: a Take that needs the network (a shared
	// limiter) should bound its wait by it.
	Take(ctx context.Context, t Turn) (time.Duration, error)
	// Observe tells how an attempt Take let through ended. It must not
	// block.
	Observe(t Turn, o Outcome)
}

// Turn is an attempt asking a RateLimiter for its turn.
type Turn struct {
	// Method and Route name the call, as CallInfo does.
	Method, Route string
	// Retry reports an attempt after a refusal or a failure of the same
	// call: the client gives it the next turn before attempts sent for the
	// first time (see RateLimiter).
	Retry bool
}

// Outcome is how an attempt ended, as the client classifies its answer
// once for its retries, its limiters and its errors.
type Outcome struct {
	// Kind says whether the service accepted the attempt, refused it for
	// its rate, or gave no answer.
	Kind OutcomeKind
	// StatusCode is the answer's HTTP status; 0 when none came.
	StatusCode int
	// RetryAfter is the wait the answer asked for (Retry-After, on a 429
	// or a 503), as the client believes it: from 0 up to MaxRetryAfter; 0
	// when the answer asked for none or for nonsense (see MaxRetryAfter).
	RetryAfter time.Duration
	// Sent is when the attempt left, after its turn; Received is when its
	// answer (its status and headers) came, or when it failed.
	Sent, Received time.Time

	asked bool // a Retry-After the client believes was given (0 included)
}

// OutcomeKind classifies an attempt's outcome for a RateLimiter.
type OutcomeKind uint8

// The kinds of outcome.
const (
	// OutcomeAccepted is an answer other than 429: the service took the
	// request into account, whatever it answered.
	OutcomeAccepted OutcomeKind = iota + 1
	// OutcomeRefused is a 429: the service refused the request for its
	// rate.
	OutcomeRefused
	// OutcomeFailed is an attempt that got no answer this limiter can learn
	// from: a connection failure, a call cancelled before or while it was
	// sent, a middleware that answered without sending, or a refusal by
	// another limit than this limiter's (the anomaly report's own).
	OutcomeFailed
)

// String names the kind: "accepted", "refused" or "failed".
func (k OutcomeKind) String() string {
	switch k {
	case OutcomeAccepted:
		return "accepted"
	case OutcomeRefused:
		return "refused"
	case OutcomeFailed:
		return "failed"
	}
	return fmt.Sprintf("OutcomeKind(%d)", uint8(k))
}

// WithRateLimiter sets how the Client paces its requests (default: its own
// AdaptiveRate). Several clients given the same RateLimiter share it: they
// are paced together, as one client, which is how workers of one process
// keep under one key's limit together. A nil RateLimiter is refused. The
// anomaly report has a limit of its own (about one pass a day), which no
// setting paces: its 429s teach and slow nothing else, and a Retry-After
// there holds only anomaly report calls. Applies to NewClient.
func WithRateLimiter(r RateLimiter) Option {
	return func(c *config) {
		switch {
		case !c.in("WithRateLimiter", scopeClient):
		case r == nil:
			c.fail("WithRateLimiter: nil RateLimiter")
		default:
			if f, ok := r.(*fixedRate); ok && !(f.pace.rate > 0 && f.pace.rate <= maxRate) {
				c.fail("WithRateLimiter: FixedRate needs a positive rate up to %g a second, got %v", float64(maxRate), f.pace.rate)
				return
			}
			c.limiter = r
		}
	}
}

// NoRateLimiter turns client-side pacing off: each call meets the service's
// limit alone, waiting out the Retry-After of each 429 it gets before it
// sends again, within its retry budget. Use it when your code paces
// requests itself, for instance with a limiter in WithMiddleware, which
// sees every attempt (retries included). Under any kind of limit, more
// concurrent callers than the limit admits then see 429s, and a call can
// run out of retries.
func NoRateLimiter() RateLimiter { return noLimiter{} }

type noLimiter struct{}

func (noLimiter) Take(context.Context, Turn) (time.Duration, error) { return 0, nil }
func (noLimiter) Observe(Turn, Outcome)                             {}

// FixedRate paces every attempt at perSecond, never faster and never
// learning: for a service whose limit you know (from your contract), or to
// keep a job well below it. Under a token bucket or a sliding window at
// that rate, or a fixed window of that many a second, attempts are not
// refused. Given to several clients, it paces them together at perSecond.
// A perSecond that is not positive (or not finite) is refused by
// WithRateLimiter; every Take of such a limiter given elsewhere fails.
func FixedRate(perSecond float64) RateLimiter {
	return &fixedRate{pace: pace{rate: perSecond}}
}

type fixedRate struct {
	mu     sync.Mutex
	pace   pace
	shared sharedQueue
}

func (f *fixedRate) Take(context.Context, Turn) (time.Duration, error) {
	if !(f.pace.rate > 0) || f.pace.rate > maxRate {
		return 0, fmt.Errorf("convo: FixedRate needs a positive rate up to %g a second, got %v", maxRate, f.pace.rate)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pace.take(time.Now()), nil
}

func (*fixedRate) Observe(Turn, Outcome) {}

func (f *fixedRate) queue() *pacer { return f.shared.get(f) }

// maxRate bounds a pace: a billion turns a second is unpaced in all but
// name, and a nanosecond interval is the clock's grain.
const maxRate = 1e9

// anomaliesPath has a rate limit of its own (about one pass a day), so its
// 429s teach and hold only its own calls: a day-long wait there must not
// stop every other call of the client.
const anomaliesPath = "/conversations/anomalies"

// holdLimiter is the anomaly report's own limiter: it keeps no pace, and
// holds every anomaly report call until the Retry-After of its last 429 has
// passed.
type holdLimiter struct {
	mu      sync.Mutex
	until   time.Time
	changed chan struct{}
}

func newHoldLimiter() *holdLimiter { return &holdLimiter{changed: make(chan struct{})} }

func (h *holdLimiter) Take(context.Context, Turn) (time.Duration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return max(time.Until(h.until), 0), nil
}

func (h *holdLimiter) Observe(_ Turn, o Outcome) {
	if o.Kind != OutcomeRefused || o.RetryAfter <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if end := o.Received.Add(o.RetryAfter); end.After(h.until) {
		h.until = end
	}
}

// Changed is never closed early: a hold only ever grows until it ends.
func (h *holdLimiter) Changed() <-chan struct{} { return h.changed }

// holdError is an attempt not sent because its turn would come after the
// call's maximum retry wait or deadline. The call turns it into its typed
// 429 (Error.Held).
type holdError struct{ wait time.Duration }

func (e *holdError) Error() string {
	return "not sent: the client's rate limiter would hold it past the call's deadline or maximum retry wait"
}

// asError is the typed 429 a held call returns: as if the service had
// answered it, with the wait that is left (no longer than the longest wait
// the client believes, MaxRetryAfter).
func (e *holdError) asError(method, path string) *Error {
	return &Error{
		Held:       true,
		StatusCode: http.StatusTooManyRequests,
		Code:       CodeRateLimited,
		Message:    "not sent: the client's rate limiter would hold it past the call's deadline or maximum retry wait",
		Method:     method,
		Path:       path,
		RetryAfter: min(e.wait, MaxRetryAfter),
	}
}
