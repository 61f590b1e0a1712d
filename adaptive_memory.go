package convo

import (
	"math"
	"time"
)

// The adaptive limiter's memory of the trailing two seconds: what the
// service accepted, and the lowest rate turns were given at. Each keeps
// slots of 10 ms, so its memory is constant at any rate.

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
		if s.at > n-int64(slotsPerWindow) && s.at <= n && s.at >= lo {
			total += s.count
		}
	}
	return total
}

// count is the number of events in the trailing second.
func (w *countWindow) count(now time.Time) int {
	return w.since(now.Add(-time.Second), now)
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

// lowest is the lowest rate from from to now, within the trailing second;
// +Inf when none was noted.
func (w *lowWindow) lowest(from, now time.Time) float64 {
	lo, n := from.UnixNano()/int64(slotLength), now.UnixNano()/int64(slotLength)
	low := math.Inf(1)
	for _, s := range w.slots {
		if s.at > n-int64(slotsPerWindow) && s.at <= n && s.at >= lo {
			low = min(low, s.low)
		}
	}
	return low
}
