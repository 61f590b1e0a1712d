package convo

import (
	"math"
	"slices"
	"time"
)

// pace hands out turns at rate, evenly: a generic cell rate algorithm whose
// next turn is due at tat. A turn may come up to a few intervals early (at
// most 25 ms), so that a timer that fires late is made up for; after an
// idle spell the first turns therefore come that much closer together, and
// never more than that.
type pace struct {
	rate float64
	tat  time.Time
}

// take takes the turn at now and returns 0, or returns how long until the
// next turn.
func (p *pace) take(now time.Time) time.Duration {
	interval := p.interval()
	tat := p.tat
	if slack := p.slack(); tat.Before(now.Add(-slack)) {
		tat = now.Add(-slack)
	}
	if d := tat.Sub(now); d > 0 {
		return d
	}
	p.tat = tat.Add(interval)
	return 0
}

// noSooner puts the next turn at t, unless it is due later already.
func (p *pace) noSooner(t time.Time) {
	if p.tat.Before(t) {
		p.tat = t
	}
}

// slack is how early a turn may come: a few intervals, at most 25 ms.
func (p *pace) slack() time.Duration { return min(4*p.interval(), 25*time.Millisecond) }

// interval is the time between two turns.
func (p *pace) interval() time.Duration {
	return max(time.Duration(float64(time.Second)/p.rate), 1)
}

// The adaptive limiter's memory of the trailing two seconds: what the
// service accepted, and the lowest rate turns were given at. Each keeps
// slots of 10 ms, so its memory is constant at any rate. It stays in this
// file with the pace above, though the file is long, so that a paced call
// passes through one file of the limiter.

// countWindow counts accepted answers over the trailing two seconds.
type countWindow struct {
	slots [slotsPerWindow]struct {
		at    int64 // the slot's number since the epoch (time / slotLength)
		count int
	}
}

const (
	slotLength     = 10 * time.Millisecond
	slotsPerWindow = int(2 * time.Second / slotLength)
)

func (w *countWindow) add(now time.Time) {
	n := now.UnixNano() / int64(slotLength)
	s := &w.slots[n%int64(slotsPerWindow)]
	if s.at != n {
		s.at, s.count = n, 0
	}
	s.count++
}

// since is the number of accepted answers from from to now, within the
// trailing two seconds, to the slot.
func (w *countWindow) since(from, now time.Time) int {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	total := 0
	for _, s := range w.slots {
		if slotIn(s.at, lo, n) {
			total += s.count
		}
	}
	return total
}

// count is the number of events in the trailing second.
func (w *countWindow) count(now time.Time) int {
	return w.since(now.Add(-time.Second), now)
}

// slotIn reports whether the slot numbered at lies from slot lo to slot n,
// within the trailing two seconds of n (an older slot is stale).
func slotIn(at, lo, n int64) bool {
	return at > n-int64(slotsPerWindow) && at <= n && at >= lo
}

// callsOut counts the attempts a limiter gave turns to and has not heard
// of yet, the most it saw out at once (the calls the client runs at once,
// as far as the limiter can tell), and when each call the service refused
// may be sent again.
type callsOut struct {
	out, most int
	back      []time.Time // the ends of the refusals' Retry-After; those past are dropped as others come
}

// maxSitting bounds callsOut's memory: a server that asks for hours' waits
// of every request would otherwise have it grow with every refusal. Those
// left out are the ones back soonest, so that keepWait waits less, never
// more.
const maxSitting = 1024

func (c *callsOut) gave() {
	c.out++
	c.most = max(c.most, c.out)
}

func (c *callsOut) answered() { c.out = max(c.out-1, 0) }

// sitOut notes a call refused at now that may be sent again after wait.
func (c *callsOut) sitOut(now time.Time, wait time.Duration) {
	if wait <= 0 {
		return
	}
	kept := c.back[:0]
	for _, t := range c.back {
		if t.After(now) {
			kept = append(kept, t)
		}
	}
	if len(kept) >= maxSitting {
		slices.SortFunc(kept, time.Time.Compare)
		kept = append(kept[:0], kept[len(kept)-maxSitting+1:]...)
	}
	c.back = append(kept, now.Add(wait))
}

// sitting is how many refused calls still sit out their Retry-After at now,
// and when the first of them may be sent again (zero when none).
func (c *callsOut) sitting(now time.Time) (n int, first time.Time) {
	for _, t := range c.back {
		if t.After(now) {
			n++
			if first.IsZero() || t.Before(first) {
				first = t
			}
		}
	}
	return n, first
}

// heldSpans keeps the client's last storms: the spans in which it held
// every attempt but a probe. What the service took of it then says
// nothing of its share. Clients on one key come back from a window
// limit's storm at different moments (their calls sit out a Retry-After
// rounded up to whole seconds), and counted in, a storm made the one that
// came back last measure a smaller share, be cut to it and keep it: of a
// client and one that joined it under a fixed window of 100 a second, one
// ended at 20 a second beside the other at 60–90 (the joiner test failed
// 18 of 120 runs, 5–12 with storms left out).
type heldSpans struct {
	spans [heldKept]stormSpan
	next  int // the span under way or the next
}

// stormSpan is a storm from its first to its last moment; to is zero while
// it lasts.
type stormSpan struct{ from, to time.Time }

// heldKept is how many storms heldSpans keeps: those of the trailing two
// seconds (a window limit's count is spent once a window at most). Were
// there more, the oldest would count as time the client sent.
const heldKept = 8

// begin notes that a storm began at now.
func (h *heldSpans) begin(now time.Time) {
	h.spans[h.next%heldKept] = stormSpan{from: now}
}

// end notes that the storm under way ended at now.
func (h *heldSpans) end(now time.Time) {
	h.spans[h.next%heldKept].to = now
	h.next++
}

// within is how much of the span from from to now the storms cover.
func (h *heldSpans) within(from, now time.Time) time.Duration {
	var held time.Duration
	for _, s := range h.spans {
		if s.from.IsZero() {
			continue
		}
		lo, hi := s.from, s.to
		if hi.IsZero() {
			hi = now // under way
		}
		if lo.Before(from) {
			lo = from
		}
		if hi.After(now) {
			hi = now
		}
		if hi.After(lo) {
			held += hi.Sub(lo)
		}
	}
	return held
}

// lowWindow keeps the lowest rate of each slot over the trailing two seconds.
type lowWindow struct {
	slots [slotsPerWindow]struct {
		at  int64
		low float64
	}
}

func (w *lowWindow) add(now time.Time, rate float64) {
	n := now.UnixNano() / int64(slotLength)
	s := &w.slots[n%int64(slotsPerWindow)]
	if s.at != n || rate < s.low {
		s.at, s.low = n, rate
	}
}

// lowest is the lowest rate from from to now, within the trailing two
// seconds; +Inf when none was noted.
func (w *lowWindow) lowest(from, now time.Time) float64 {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	low := math.Inf(1)
	for _, s := range w.slots {
		if slotIn(s.at, lo, n) {
			low = min(low, s.low)
		}
	}
	return low
}
