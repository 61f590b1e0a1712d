package bulk

import (
	"net/http"
	"time"

	"github.com/convoapi/convo-go/fake"
)

// Result is what a run did, judged from the fake's journal.
type Result struct {
	// Took is the wall time of the Parallel call.
	Took time.Duration
	// Failed counts the calls that returned an error.
	Failed int
	// Duplicates counts phones created more than once, and CONTACT_EXISTS
	// (409) answers.
	Duplicates int
	// Early counts requests sent again before the Retry-After of the 429
	// that refused the same body had passed.
	Early int
	// Refused counts 429 answers.
	Refused int
	// Requests counts the requests the fake received.
	Requests int
	// Timeline counts the answers of each TimelineSlot of the run, from
	// its start: what the limiter let through, moment by moment.
	Timeline []Slot
}

// TimelineSlot is the length of one Slot of a Result's Timeline.
const TimelineSlot = 250 * time.Millisecond

// Slot is what the fake answered in one TimelineSlot.
type Slot struct {
	// Accepted counts the requests not refused; Refused the 429s.
	Accepted int `json:"accepted"`
	Refused  int `json:"refused"`
}

// judge reads the journal: per phone (the body), what it was answered; a
// request sent again before its 429's Retry-After had passed is an early
// re-send (fake.RequestsSentTooEarly).
//
// The Timeline starts at start.
func (r *Result) judge(reqs []fake.Request, start time.Time) {
	byBody := map[string][]fake.Request{}
	for _, q := range reqs {
		byBody[string(q.Body)] = append(byBody[string(q.Body)], q)
	}
	r.Requests = len(reqs)
	for _, q := range reqs {
		i := max(0, int(q.Time.Sub(start)/TimelineSlot))
		for len(r.Timeline) <= i {
			r.Timeline = append(r.Timeline, Slot{})
		}
		if q.Status == http.StatusTooManyRequests {
			r.Timeline[i].Refused++
		} else {
			r.Timeline[i].Accepted++
		}
	}
	for _, list := range byBody {
		created := 0
		for _, q := range list {
			switch q.Status {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
				r.Duplicates++
			case http.StatusTooManyRequests:
				r.Refused++
			}
		}
		r.Duplicates += max(0, created-1)
	}
	r.Early = len(fake.RequestsSentTooEarly(reqs))
}

// Bound names one bound a run is held to.
type Bound string

// The bounds: no failed call, no duplicate, no early re-send, the wall time
// within Config.Budget, the 429s within Config.MaxRefused.
const (
	BoundFailed     Bound = "failed"
	BoundDuplicates Bound = "dups"
	BoundEarly      Bound = "early"
	BoundTime       Bound = "time"
	BoundRefused    Bound = "429s"
)

// Bounds are the bounds a run of s must hold: all of them for the adaptive
// limiter; for a user's limiter, the time too; for the other settings, no
// failure, no duplicate and no early re-send (their time and 429s are
// reported only).
func (s Setting) Bounds() []Bound {
	always := []Bound{BoundFailed, BoundDuplicates, BoundEarly}
	switch s {
	case Adaptive:
		return append(always, BoundTime, BoundRefused)
	case UserLimiter:
		return append(always, BoundTime)
	}
	return always
}

// Broken lists the bounds of cfg.Setting that r does not hold.
func (cfg Config) Broken(r Result) []Bound {
	var out []Bound
	for _, b := range cfg.Setting.Bounds() {
		var ok bool
		switch b {
		case BoundFailed:
			ok = r.Failed == 0
		case BoundDuplicates:
			ok = r.Duplicates == 0
		case BoundEarly:
			ok = r.Early == 0
		case BoundTime:
			ok = r.Took <= cfg.Budget()
		case BoundRefused:
			ok = r.Refused <= cfg.MaxRefused()
		}
		if !ok {
			out = append(out, b)
		}
	}
	return out
}
