package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// errBudget: the request budget is spent; the checks that need more are
// skipped.
var errBudget = errors.New("the request budget is spent")

// stopError: the server answered 429, or the run's context ended; nothing
// more is sent.
type stopError struct{ why string }

func (e *stopError) Error() string { return e.why }

// pacer is the run's transport: it keeps a least gap between two
// requests, counts them against the budget, stops everything at the first
// 429, and notes the rate-limit headers it sees. The raw checks, the SDK
// client and the file downloads all go through it.
type pacer struct {
	next   http.RoundTripper
	gap    time.Duration
	budget int

	mu       sync.Mutex
	last     time.Time
	sent     int
	writes   int
	stopped  *stopError
	headers  map[string]string
	sentTime []time.Time // when each request left, for the tests of the pace
	spending bool        // the rate-limit check: no pace, and a 429 stops nothing
}

// spend turns the rate-limit check's mode on or off.
func (p *pacer) spend(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spending = on
}

func newPacer(next http.RoundTripper, gap time.Duration, budget int) *pacer {
	if next == nil {
		next = http.DefaultTransport
	}
	return &pacer{next: next, gap: gap, budget: budget, headers: map[string]string{}}
}

// RoundTrip implements http.RoundTripper.
func (p *pacer) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := p.admit(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := p.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	p.observe(resp)
	return resp, nil
}

// admit waits for the request's turn; it holds the lock while it waits,
// so requests leave one by one, each at least gap after the previous.
func (p *pacer) admit(req *http.Request) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.stopped != nil:
		return p.stopped
	case p.sent >= p.budget:
		return errBudget
	}
	if wait := time.Until(p.last.Add(p.gap)); p.gap > 0 && !p.last.IsZero() && wait > 0 && !p.spending {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-req.Context().Done():
			return req.Context().Err()
		}
	}
	p.last = time.Now()
	p.sent++
	p.sentTime = append(p.sentTime, p.last)
	switch req.Method {
	case http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut:
		p.writes++
	}
	return nil
}

func (p *pacer) observe(resp *http.Response) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, vs := range resp.Header {
		l := strings.ToLower(name)
		if strings.Contains(l, "ratelimit") || strings.Contains(l, "rate-limit") || l == "retry-after" {
			p.headers[name] = strings.Join(vs, ", ")
		}
	}
	if resp.StatusCode == http.StatusTooManyRequests && p.stopped == nil && !p.spending {
		p.stopped = &stopError{fmt.Sprintf("the server answered 429 to %s %s (Retry-After: %q); the run sends nothing more",
			resp.Request.Method, resp.Request.URL.Path, resp.Header.Get("Retry-After"))}
	}
}

func (p *pacer) counts() (sent, writes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent, p.writes
}

func (p *pacer) stopReason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped == nil {
		return ""
	}
	return p.stopped.why
}
