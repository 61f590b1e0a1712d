package fake

import (
	"sync"
	"time"
)

// Clock is the one source of time of a [Server]: message windows, anomaly
// ages, the anomaly cache, rate limits, response timestamps and attachment
// expiry all read it, so a test that controls the clock controls all of them.
//
// A Clock is either real (it follows the system clock, possibly shifted by
// [Clock.Advance] or [Clock.Set]) or manual (it stands still until moved).
// It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	manual bool
	now    time.Time     // manual clocks: the current instant
	offset time.Duration // real clocks: added to the system time
}

// NewRealClock returns a clock that follows the system clock. It is the
// default clock of a [Server].
func NewRealClock() *Clock { return &Clock{} }

// NewManualClock returns a clock frozen at start; it moves only through
// [Clock.Advance] and [Clock.Set]. Tests use it to avoid real sleeps.
func NewManualClock(start time.Time) *Clock {
	return &Clock{manual: true, now: start}
}

// Now returns the clock's current instant.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	if c.manual {
		return c.now
	}
	// The only reading of the system clock in the package.
	return time.Now().Add(c.offset)
}

// Advance moves the clock forward by d (backward when d is negative). On a
// real clock it shifts the reading; the clock keeps running.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		c.now = c.now.Add(d)
		return
	}
	c.offset += d
}

// Set makes the clock read t. On a real clock it shifts the reading so that
// it reads t now; the clock keeps running from there.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		c.now = t
		return
	}
	c.offset += t.Sub(c.nowLocked())
}

// Manual reports whether the clock is a manual one.
func (c *Clock) Manual() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.manual
}
