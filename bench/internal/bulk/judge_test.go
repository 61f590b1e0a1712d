package bulk

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/fake"
)

// TestResultJudge reads hand-made journals: per body, in the order answered.
func TestResultJudge(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	req := func(body string, at time.Duration, status int, retryAfter time.Duration) fake.Request {
		return fake.Request{Body: []byte(body), Time: t0.Add(at), Status: status, RetryAfter: retryAfter}
	}
	tests := []struct {
		name string
		reqs []fake.Request
		want Result
	}{
		{"each created once", []fake.Request{req("a", 0, http.StatusCreated, 0), req("b", 0, http.StatusCreated, 0)}, Result{Requests: 2}},
		{"re-sent after its Retry-After", []fake.Request{
			req("a", time.Second+5*time.Millisecond, http.StatusCreated, 0), req("a", 0, http.StatusTooManyRequests, time.Second)}, // out of order on purpose
			Result{Refused: 1, Requests: 2}},
		{"re-sent before its Retry-After", []fake.Request{
			req("a", 0, http.StatusTooManyRequests, time.Second), req("a", 999*time.Millisecond, http.StatusCreated, 0)},
			Result{Refused: 1, Early: 1, Requests: 2}},
		{"a 429 without Retry-After sets no wait", []fake.Request{
			req("a", 0, http.StatusTooManyRequests, 0), req("a", time.Millisecond, http.StatusCreated, 0)},
			Result{Refused: 1, Requests: 2}},
		{"only the next request of the same body counts", []fake.Request{
			req("a", 0, http.StatusTooManyRequests, time.Second), req("b", 10*time.Millisecond, http.StatusCreated, 0), req("a", 2*time.Second, http.StatusCreated, 0)},
			Result{Refused: 1, Requests: 3}},
		{"created twice", []fake.Request{req("a", 0, http.StatusCreated, 0), req("a", time.Second, http.StatusCreated, 0)},
			Result{Duplicates: 1, Requests: 2}},
		{"CONTACT_EXISTS", []fake.Request{req("a", 0, http.StatusCreated, 0), req("a", time.Second, http.StatusConflict, 0)},
			Result{Duplicates: 1, Requests: 2}},
		{"a call that never got through", []fake.Request{req("a", 0, http.StatusTooManyRequests, time.Second), req("a", time.Second, http.StatusTooManyRequests, time.Second)},
			Result{Refused: 2, Requests: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Result
			got.judge(tt.reqs, t0)
			total := 0
			for _, s := range got.Timeline {
				total += s.Accepted + s.Refused
			}
			assert.Equal(t, got.Requests, total, "every answer is in the timeline")
			got.Timeline = nil // TestResultJudgeTimeline
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestResultJudgeTimeline counts answers by slot from the run's start.
func TestResultJudgeTimeline(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration, status int) fake.Request {
		return fake.Request{Body: []byte(d.String()), Time: t0.Add(d), Status: status}
	}
	var got Result
	got.judge([]fake.Request{
		at(0, http.StatusCreated), at(TimelineSlot-1, http.StatusTooManyRequests),
		at(2*TimelineSlot, http.StatusCreated), at(2*TimelineSlot+1, http.StatusBadRequest),
	}, t0)
	assert.Equal(t, []Slot{{Accepted: 1, Refused: 1}, {}, {Accepted: 2}}, got.Timeline)
}

// TestConfigBroken holds each setting to its own bounds.
func TestConfigBroken(t *testing.T) {
	cell := Config{Rate: 100, N: 1000} // budget 13.5 s, at most 132 429s
	slow := Result{Took: 14 * time.Second, Refused: 133}
	tests := []struct {
		setting Setting
		r       Result
		want    []Bound
	}{
		{Adaptive, Result{Took: 13500 * time.Millisecond, Refused: 132}, nil},
		{Adaptive, slow, []Bound{BoundTime, BoundRefused}},
		{Adaptive, Result{Failed: 1, Duplicates: 1, Early: 1}, []Bound{BoundFailed, BoundDuplicates, BoundEarly}},
		{UserLimiter, slow, []Bound{BoundTime}},
		{Fixed, slow, nil},
		{Off, slow, nil},
		{Off, Result{Early: 2}, []Bound{BoundEarly}},
	}
	for _, tt := range tests {
		t.Run(string(tt.setting), func(t *testing.T) {
			cfg := cell
			cfg.Setting = tt.setting
			assert.Equal(t, tt.want, cfg.Broken(tt.r))
		})
	}
}

// TestConfigBoundsOfSeveralClients: several clients on one key get a wider
// time budget and more 429s than one, the 429s growing with the clients and
// the run's length; one client keeps the bounds it always had.
func TestConfigBoundsOfSeveralClients(t *testing.T) {
	bucket, _ := KindNamed("bucket")
	sliding, _ := KindNamed("sliding")
	tests := []struct {
		name       string
		cfg        Config
		took       time.Duration
		budget     time.Duration
		maxRefused int
	}{
		{"one client, Clients unset", Config{Kind: bucket, Rate: 100, N: 1000}, time.Minute, 13500 * time.Millisecond, 132},
		{"one client", Config{Kind: bucket, Rate: 1000, N: 5000, Clients: 1}, time.Minute, 7250 * time.Millisecond, 532},
		{"2 clients, 15 % of N", Config{Kind: sliding, Rate: 100, N: 1000, Clients: 2}, 12 * time.Second, 17 * time.Second, 16 + 150},
		{"16 clients, K × seconds", Config{Kind: sliding, Rate: 100, N: 1000, Clients: 16}, 12*time.Second + 900*time.Millisecond, 17 * time.Second, 128 + 206}, // 16 × 12.9 s
		{"token bucket at 1,000/s", Config{Kind: bucket, Rate: 1000, N: 5000, Clients: 4}, 6 * time.Second, 10500 * time.Millisecond, 32 + 750},
		{"token bucket at 100/s", Config{Kind: bucket, Rate: 100, N: 1000, Clients: 4}, 6 * time.Second, 17 * time.Second, 32 + 150},
		{"10/s", Config{Kind: bucket, Rate: 10, N: 200, Clients: 4}, 25 * time.Second, 32 * time.Second, 32 + 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.budget, tt.cfg.Budget())
			assert.Equal(t, tt.maxRefused, tt.cfg.MaxRefused(tt.took))
		})
	}
}

// TestJain: 1 when every client got the same throughput, 1/K when one got
// it all, and in between otherwise.
func TestJain(t *testing.T) {
	client := func(calls int, finish time.Duration) ClientResult { return ClientResult{Calls: calls, Finish: finish} }
	tests := []struct {
		name    string
		clients []ClientResult
		want    float64
	}{
		{"one client", []ClientResult{client(200, 20*time.Second)}, 1},
		{"even", []ClientResult{client(500, 10*time.Second), client(500, 10*time.Second)}, 1},
		{"even rates, uneven shares", []ClientResult{client(334, 10020*time.Millisecond), client(333, 9990*time.Millisecond), client(333, 9990*time.Millisecond)}, 1},
		{"one twice as fast", []ClientResult{client(500, 5*time.Second), client(500, 10*time.Second)}, 0.9},
		{"one got it all", []ClientResult{client(100, time.Second), client(0, 0), client(0, 0), client(0, 0)}, 0.25},
		{"none got anything", []ClientResult{client(0, 0), client(0, 0)}, 1},
		{"no client", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, Result{Clients: tt.clients}.Jain(), 1e-3)
		})
	}
}

// TestConfigBrokenWithSeveralClients: the adaptive limiter is held to the
// fairness between several clients, and to their wider bounds; the other
// settings are not held to fairness, and one client never is.
func TestConfigBrokenWithSeveralClients(t *testing.T) {
	sliding, _ := KindNamed("sliding")
	fleet := Config{Kind: sliding, Rate: 100, N: 1000, Clients: 2} // budget 17 s, at most 166 429s at 12 s
	even := []ClientResult{{Calls: 500, Finish: 12 * time.Second}, {Calls: 500, Finish: 12 * time.Second}}
	unfair := []ClientResult{{Calls: 500, Finish: 4 * time.Second}, {Calls: 500, Finish: 12 * time.Second}} // Jain 0.8
	tests := []struct {
		name    string
		setting Setting
		clients int
		r       Result
		want    []Bound
	}{
		{"within every bound", Adaptive, 2, Result{Took: 12 * time.Second, Refused: 166, Clients: even}, nil},
		{"one 429 too many", Adaptive, 2, Result{Took: 12 * time.Second, Refused: 167, Clients: even}, []Bound{BoundRefused}},
		{"more 429s for a longer run", Adaptive, 2, Result{Took: 17 * time.Second, Refused: 166, Clients: even}, nil},
		{"too slow", Adaptive, 2, Result{Took: 17*time.Second + 1, Clients: even}, []Bound{BoundTime}},
		{"unfair", Adaptive, 2, Result{Took: 12 * time.Second, Clients: unfair}, []Bound{BoundJain}},
		{"everything broken", Adaptive, 2, Result{Took: time.Minute, Failed: 1, Duplicates: 1, Early: 1, Refused: 1000, Clients: unfair},
			[]Bound{BoundFailed, BoundDuplicates, BoundEarly, BoundTime, BoundRefused, BoundJain}},
		{"user limiter: time, not fairness", UserLimiter, 2, Result{Took: time.Minute, Refused: 1000, Clients: unfair}, []Bound{BoundTime}},
		{"fixed: neither", Fixed, 2, Result{Took: time.Minute, Refused: 1000, Clients: unfair}, nil},
		{"one client is never unfair", Adaptive, 1, Result{Took: 12 * time.Second, Clients: unfair[:1]}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fleet
			cfg.Setting, cfg.Clients = tt.setting, tt.clients
			assert.Equal(t, tt.want, cfg.Broken(tt.r))
		})
	}
}

// TestCountByClient attributes the journal's requests and 429s to the
// clients by their header; a request without one is nobody's.
func TestCountByClient(t *testing.T) {
	req := func(client string, status int) fake.Request {
		h := http.Header{}
		if client != "" {
			h.Set(ClientHeader, client)
		}
		return fake.Request{Header: h, Status: status}
	}
	clients := make([]ClientResult, 2)
	countByClient(clients, []fake.Request{
		req("0", http.StatusCreated), req("0", http.StatusTooManyRequests), req("1", http.StatusCreated),
		req("", http.StatusCreated), req("2", http.StatusCreated), req("x", http.StatusCreated),
	})
	assert.Equal(t, []ClientResult{{Requests: 2, Refused: 1}, {Requests: 1}}, clients)
}

// TestConfigBoundsWhenShared: clients that share a limiter are held to
// the bounds of one client at the rate. One FixedRate in memory: 1.1 × N ÷
// rate + 1 s, 2 % of N + 2·K 429s, Jain ≥ 0.95; one AdaptiveRate in
// memory: one client's bounds; through Redis, set or learnt: 1.15 × N ÷
// rate + 1 s and 2 % of N + 2·K 429s, or with an outage of Redis 1.5 × N ÷
// rate + 2 s and no bound on the 429s.
func TestConfigBoundsWhenShared(t *testing.T) {
	bucket, _ := KindNamed("bucket")
	sliding, _ := KindNamed("sliding")
	kill := Outage{Kind: OutageKill, For: 5 * time.Second}
	always := []Bound{BoundFailed, BoundDuplicates, BoundEarly}
	tests := []struct {
		name       string
		cfg        Config
		budget     time.Duration
		maxRefused int // at any time the run took
		minJain    float64
		bounds     []Bound
	}{
		{"memory, fixed, 8 clients at 100/s", Config{Setting: Fixed, Kind: bucket, Rate: 100, N: 1000, Clients: 8, Shared: SharedMemory},
			12 * time.Second, 20 + 16, 0.95, append(always, BoundTime, BoundRefused, BoundJain)},
		{"memory, fixed, 8 clients at 1,000/s", Config{Setting: Fixed, Kind: bucket, Rate: 1000, N: 5000, Clients: 8, Shared: SharedMemory},
			6500 * time.Millisecond, 100 + 16, 0.95, append(always, BoundTime, BoundRefused, BoundJain)},
		{"memory, fixed, one client", Config{Setting: Fixed, Kind: sliding, Rate: 10, N: 200, Shared: SharedMemory},
			23 * time.Second, 4 + 2, 0.95, append(always, BoundTime, BoundRefused, BoundJain)},
		{"memory, adaptive: one client's", Config{Setting: Adaptive, Kind: bucket, Rate: 100, N: 1000, Clients: 8, Shared: SharedMemory},
			13500 * time.Millisecond, 100 + 32, 0.9, append(always, BoundTime, BoundRefused)},
		{"memory, adaptive at 1,000/s: one client's", Config{Setting: Adaptive, Kind: bucket, Rate: 1000, N: 5000, Clients: 8, Shared: SharedMemory},
			7250 * time.Millisecond, 500 + 32, 0.9, append(always, BoundTime, BoundRefused)},
		{"redis, fixed, 4 clients", Config{Setting: Fixed, Kind: sliding, Rate: 100, N: 3000, Clients: 4, Shared: SharedRedis},
			35500 * time.Millisecond, 60 + 8, 0.9, append(always, BoundTime, BoundRefused)},
		{"redis, adaptive, 8 clients", Config{Setting: Adaptive, Kind: bucket, Rate: 100, N: 3000, Clients: 8, Shared: SharedRedis},
			35500 * time.Millisecond, 60 + 16, 0.9, append(always, BoundTime, BoundRefused)},
		{"redis at 1,000/s: no slack for the token bucket", Config{Setting: Fixed, Kind: bucket, Rate: 1000, N: 5000, Clients: 4, Shared: SharedRedis},
			6750 * time.Millisecond, 100 + 8, 0.9, append(always, BoundTime, BoundRefused)},
		{"redis, small: 2 % of N cut to a whole number", Config{Setting: Fixed, Kind: bucket, Rate: 20, N: 40, Clients: 2, Shared: SharedRedis},
			3300 * time.Millisecond, 0 + 4, 0.9, append(always, BoundTime, BoundRefused)},
		{"redis with an outage", Config{Setting: Fixed, Kind: bucket, Rate: 100, N: 3000, Clients: 4, Shared: SharedRedis, Outage: kill},
			47 * time.Second, 60 + 8, 0.9, append(always, BoundTime)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.budget, tt.cfg.Budget())
			for _, took := range []time.Duration{time.Second, time.Minute} {
				assert.Equal(t, tt.maxRefused, tt.cfg.MaxRefused(took), "after %v", took)
			}
			assert.Equal(t, tt.minJain, tt.cfg.MinJain())
			assert.Equal(t, tt.bounds, tt.cfg.Bounds())
		})
	}
}

// TestConfigBrokenWhenShared: the shared bounds, at their edges.
func TestConfigBrokenWhenShared(t *testing.T) {
	sliding, _ := KindNamed("sliding")
	memory := Config{Setting: Fixed, Kind: sliding, Rate: 100, N: 1000, Clients: 2, Shared: SharedMemory}  // 12 s, 24 429s, Jain 0.95
	viaRedis := Config{Setting: Fixed, Kind: sliding, Rate: 100, N: 3000, Clients: 4, Shared: SharedRedis} // 35.5 s, 68 429s
	outage := viaRedis
	outage.Outage = Outage{Kind: OutageStop, For: 5 * time.Second} // 47 s
	adaptive := memory
	adaptive.Setting = Adaptive // 13.5 s, 132 429s
	even := []ClientResult{{Calls: 500, Finish: 10 * time.Second}, {Calls: 500, Finish: 10 * time.Second}}
	fairEnough := []ClientResult{{Calls: 500, Finish: 6330 * time.Millisecond}, {Calls: 500, Finish: 10 * time.Second}} // Jain 0.952
	unfair := []ClientResult{{Calls: 500, Finish: 6 * time.Second}, {Calls: 500, Finish: 10 * time.Second}}             // Jain 0.941
	tests := []struct {
		name string
		cfg  Config
		r    Result
		want []Bound
	}{
		{"memory, fixed: within every bound", memory, Result{Took: 12 * time.Second, Refused: 24, Clients: fairEnough}, nil},
		{"memory, fixed: too slow", memory, Result{Took: 12*time.Second + 1, Refused: 24, Clients: even}, []Bound{BoundTime}},
		{"memory, fixed: one 429 too many", memory, Result{Took: 10 * time.Second, Refused: 25, Clients: even}, []Bound{BoundRefused}},
		{"memory, fixed: Jain under 0.95", memory, Result{Took: 10 * time.Second, Clients: unfair}, []Bound{BoundJain}},
		{"memory, fixed: a failed call", memory, Result{Took: 10 * time.Second, Failed: 1, Clients: even}, []Bound{BoundFailed}},
		{"memory, adaptive: one client's bounds", adaptive, Result{Took: 13500 * time.Millisecond, Refused: 132, Clients: unfair}, nil},
		{"memory, adaptive: past them", adaptive, Result{Took: 14 * time.Second, Refused: 133, Early: 1, Clients: even},
			[]Bound{BoundEarly, BoundTime, BoundRefused}},
		{"redis: within every bound, unfair", viaRedis, Result{Took: 35500 * time.Millisecond, Refused: 68, Clients: unfair}, nil},
		{"redis: too slow, too many 429s", viaRedis, Result{Took: 36 * time.Second, Refused: 69}, []Bound{BoundTime, BoundRefused}},
		{"redis with an outage: 429s not bounded", outage, Result{Took: 47 * time.Second, Refused: 1000}, nil},
		{"redis with an outage: too slow, a call failed", outage, Result{Took: 48 * time.Second, Failed: 1}, []Bound{BoundFailed, BoundTime}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.cfg.Broken(tt.r))
		})
	}
}
