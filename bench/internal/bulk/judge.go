package bulk

import (
	"net/http"
	"strconv"
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
	// Clients holds each client's figures, in the order of their shares
	// of the contacts; one for a run of one client.
	Clients []ClientResult
	// Outage is when the run's Redis outage (Config.Outage) began and
	// ended; nil when there was none, or when the run ended before it was
	// due.
	Outage *OutageSpan
}

// OutageSpan is when an outage of Redis began (the server was killed or
// stopped) and ended (the restarted server answered PING, or the stopped
// one was sent SIGCONT), from the run's common start.
type OutageSpan struct {
	Began, Ended time.Duration
}

// ClientResult is what one client of a run did.
type ClientResult struct {
	// Calls counts the client's calls (its share of the contacts);
	// Failed those that returned an error.
	Calls, Failed int
	// Errors are the first few different errors the failed calls returned.
	Errors []string
	// Finish is when the client's last call ended, from the run's common
	// start.
	Finish time.Duration
	// Requests and Refused count the client's requests and the 429s among
	// them, as the fake's journal has them.
	Requests, Refused int
	// RedisDown and RedisBack count, for a limiter shared through Redis,
	// the times the client's redislimit.Limiter said Redis did not answer
	// (and paced by its fallback from then on), and that it answered
	// again.
	RedisDown, RedisBack int
}

// Throughput is the client's calls a second: Calls ÷ Finish (0 for a
// client that took no time, which made no call).
func (c ClientResult) Throughput() float64 {
	if c.Finish <= 0 {
		return 0
	}
	return float64(c.Calls) / c.Finish.Seconds()
}

// Jain is Jain's fairness index over the clients' throughputs,
// (Σx)² ÷ (K·Σx²): 1 when every client got the same rate, down to 1/K when
// one got it all. It is 1 for a run of one client, and for clients that
// all got nothing (none was favoured).
func (r Result) Jain() float64 {
	xs := make([]float64, len(r.Clients))
	for i, c := range r.Clients {
		xs[i] = c.Throughput()
	}
	return jain(xs)
}

// jain is Jain's fairness index over xs; see Result.Jain.
func jain(xs []float64) float64 {
	var sum, squares float64
	for _, x := range xs {
		sum += x
		squares += x * x
	}
	if squares == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * squares)
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
// within Config.Budget, the 429s within Config.MaxRefused, and, for several
// clients, a fair share each: Jain's index over their throughputs at least
// Config.MinJain.
const (
	BoundFailed     Bound = "failed"
	BoundDuplicates Bound = "dups"
	BoundEarly      Bound = "early"
	BoundTime       Bound = "time"
	BoundRefused    Bound = "429s"
	BoundJain       Bound = "jain"
)

// MinJain is the least Jain's index the adaptive limiter must give the
// clients of a run of several: clients that share a key must converge to
// even shares, though none of them knows of the others.
const MinJain = 0.9

// MinJainShared is the least Jain's index of clients that share one
// FixedRate in memory: its one queue serves them in turn.
const MinJainShared = 0.95

// severalClients reports a run of several clients, each with a limiter of
// its own.
func (c Config) severalClients() bool { return c.Clients > 1 }

// clients is the run's number of clients: at least one.
func (c Config) clients() int { return max(c.Clients, 1) }

// Budget is the time a run of c must keep within (when its bounds hold it
// to the time):
//
//   - one client, or clients that share one AdaptiveRate in memory (which
//     learns for them all, as for one client): 1.25 × N ÷ Rate + 1 s;
//   - clients that share one FixedRate in memory (one client at the
//     rate): 1.1 × N ÷ Rate + 1 s;
//   - clients that share a limit through Redis (one pace for all, set or
//     learnt): 1.15 × N ÷ Rate + 1 s; with an outage of Redis in the
//     middle of the run (each client then paced alone by its fallback),
//     1.5 × N ÷ Rate + 2 s;
//   - several clients with a limiter each: 1.5 × N ÷ Rate + 2 s (3 s under
//     a token bucket at 1,000/s), since clients that know nothing of each
//     other find their shares only from the refusals each of them meets.
func (c Config) Budget() time.Duration {
	ideal := c.Ideal()
	switch {
	case c.Shared == SharedRedis && c.Outage.Kind != NoOutage:
		return ideal*3/2 + 2*time.Second
	case c.Shared == SharedRedis:
		return ideal*115/100 + time.Second
	case c.Shared == SharedMemory && c.Setting == Fixed:
		return ideal*11/10 + time.Second
	case c.Shared == SharedMemory, !c.severalClients():
		return ideal*5/4 + time.Second
	}
	slack := 2 * time.Second
	if c.Kind.Name == "bucket" && c.Rate == 1000 {
		// A second more, as the acceptance of many clients on one key has
		// it for this cell: the tightest one already for one client (see
		// the README's figures).
		slack = 3 * time.Second
	}
	return ideal*3/2 + slack
}

// MaxRefused is the most 429 answers a run of c that took took may
// receive (when its bounds hold it to them):
//
//   - one client, or clients that share one AdaptiveRate in memory:
//     10 % of N + 32 (took is not used);
//   - clients that share one FixedRate in memory, or a limit through
//     Redis: 2 % of N + 2·K (with an outage of Redis, the 429s are
//     reported, not bounded);
//   - K clients with a limiter each: 8·K + max(15 % of N, K × took in
//     seconds, cut to a whole number), since each client learns its share
//     from refusals of its own and probes for room about once a second.
func (c Config) MaxRefused(took time.Duration) int {
	switch {
	case c.Shared == SharedRedis, c.Shared == SharedMemory && c.Setting == Fixed:
		return c.N*2/100 + 2*c.clients()
	case c.Shared == SharedMemory, !c.severalClients():
		return c.N/10 + 32
	}
	return 8*c.Clients + max(c.N*15/100, int(float64(c.Clients)*took.Seconds()))
}

// MinJain is the least Jain's index a run of c must reach (when its bounds
// hold it to fairness): MinJainShared for clients that share one FixedRate
// in memory, MinJain otherwise.
func (c Config) MinJain() float64 {
	if c.Shared == SharedMemory && c.Setting == Fixed {
		return MinJainShared
	}
	return MinJain
}

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

// Bounds are the bounds a run of cfg must hold. With a limiter each, its
// setting's, and for the adaptive limiter with several clients, the
// fairness between them too. With a shared limiter, whatever the setting
// (adaptive or fixed), no failure, duplicate or early re-send, and:
//
//   - one FixedRate in memory: the time, the 429s and the fairness
//     (MinJainShared);
//   - one AdaptiveRate in memory: the time and the 429s, one client's;
//   - through Redis: the time and the 429s; with an outage of Redis, the
//     time (its wider budget) only.
func (cfg Config) Bounds() []Bound {
	always := []Bound{BoundFailed, BoundDuplicates, BoundEarly}
	switch {
	case cfg.Shared == SharedMemory && cfg.Setting == Fixed:
		return append(always, BoundTime, BoundRefused, BoundJain)
	case cfg.Shared == SharedMemory:
		return append(always, BoundTime, BoundRefused)
	case cfg.Shared == SharedRedis && cfg.Outage.Kind != NoOutage:
		return append(always, BoundTime)
	case cfg.Shared == SharedRedis:
		return append(always, BoundTime, BoundRefused)
	}
	b := cfg.Setting.Bounds()
	if cfg.severalClients() && cfg.Setting == Adaptive {
		b = append(b, BoundJain)
	}
	return b
}

// Broken lists the bounds of cfg that r does not hold.
func (cfg Config) Broken(r Result) []Bound {
	var out []Bound
	for _, b := range cfg.Bounds() {
		if !cfg.holds(b, r) {
			out = append(out, b)
		}
	}
	return out
}

// holds reports whether r holds the bound b of cfg.
func (cfg Config) holds(b Bound, r Result) bool {
	switch b {
	case BoundFailed:
		return r.Failed == 0
	case BoundDuplicates:
		return r.Duplicates == 0
	case BoundEarly:
		return r.Early == 0
	case BoundTime:
		return r.Took <= cfg.Budget()
	case BoundRefused:
		return r.Refused <= cfg.MaxRefused(r.Took)
	case BoundJain:
		return r.Jain() >= cfg.MinJain()
	}
	return false
}

// ClientHeader is the header in which each client of a run of several
// sends its index, so that the journal tells whose each request was.
const ClientHeader = "X-Bench-Client"

// countByClient adds to each of clients the requests and the 429s the
// journal has from it (by ClientHeader); a request without a known index
// counts for none.
func countByClient(clients []ClientResult, reqs []fake.Request) {
	for _, q := range reqs {
		i, err := strconv.Atoi(q.Header.Get(ClientHeader))
		if err != nil || i < 0 || i >= len(clients) {
			continue
		}
		clients[i].Requests++
		if q.Status == http.StatusTooManyRequests {
			clients[i].Refused++
		}
	}
}
