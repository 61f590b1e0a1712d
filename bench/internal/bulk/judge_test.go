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
