package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminClockMovesWindowAndAnomalies(t *testing.T) {
	p := startSeeded(t)
	assert.JSONEq(t, `{"now":"2026-11-22T10:00:00.000Z","frozen":true}`, string(p.admin(http.MethodGet, "/_fake/clock", "").Body))
	assert.Equal(t, float64(0), anomalyCount(t, p, seedKey), "the last inbound is 1h old, under the 4h threshold")

	r := p.admin(http.MethodPost, "/_fake/clock", `{"advance":"4h"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"now":"2026-11-22T14:00:00.000Z","frozen":true}`, string(r.Body))

	r = p.api("/v1/conversations/anomalies", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"success":true,"data":{
		"buckets":{"never_engaged":{"count":0},"unanswered":{"count":1,"items":[{
			"conversation_id":"f0000000-0000-4000-8000-000000000001","contact_id":"c0000000-0000-4000-8000-000000000001",
			"channel":"chatapp","channel_account_id":"a0000000-0000-4000-8000-000000000001",
			"last_inbound_at":"2026-11-22T09:00:00.000Z","last_message_at":"2026-11-22T09:00:00.000Z",
			"waiting_hours":5,"assigned":false,"unread_count":2}]}},
		"window":{"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24},"threshold_hours":4}},
		"timestamp":"2026-11-22T14:00:00.000Z"}`, string(r.Body))

	// Past the 24-hour ceiling of chatapp the conversation leaves the bucket,
	// and the read window follows the clock.
	r = p.admin(http.MethodPost, "/_fake/clock", `{"advance":"1d"}`)
	assert.JSONEq(t, `{"now":"2026-11-23T14:00:00.000Z","frozen":true}`, string(r.Body))
	assert.Equal(t, float64(0), anomalyCount(t, p, seedKey))

	r = p.admin(http.MethodPost, "/_fake/clock", `{"set":"2026-12-01T00:00:00Z"}`)
	assert.JSONEq(t, `{"now":"2026-12-01T00:00:00.000Z","frozen":true}`, string(r.Body))
	r = p.api("/v1/conversations/"+convID+"/messages", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, map[string]any{"recent_window_days": float64(30), "since": "2026-11-01T00:00:00.000Z"},
		r.JSON(t)["data"].(map[string]any)["window"])

	for _, body := range []string{
		``, `{}`, `{"advance":"1h","set":"2026-12-01T00:00:00Z"}`, `{"advance":"soon"}`, `{"advance":""}`,
		`{"set":"yesterday"}`, `{"advance":90}`, `{"freeze":true}`, `[]`,
	} {
		assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", body), http.StatusBadRequest, "invalid_request")
	}
	assert.JSONEq(t, `{"now":"2026-12-01T00:00:00.000Z","frozen":true}`, string(p.admin(http.MethodGet, "/_fake/clock", "").Body), "unchanged")

	r = p.admin(http.MethodPost, "/_fake/clock", `{"advance":"-90m"}`)
	assert.JSONEq(t, `{"now":"2026-11-30T22:30:00.000Z","frozen":true}`, string(r.Body), "a negative advance goes back")
}

// A real clock is never moved: POST /_fake/clock is 409, and a seed with
// "now" is refused clearly (400 invalid_seed, the advice a flag, no Go call)
// and changes nothing, instead of shifting the clock.
// TestAdminBadSeedChangesNothing has a seed error naming the field.
func TestAdminRealClockIsNeverMoved(t *testing.T) {
	p := start(t) // demo data, real clock
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"90m"}`), http.StatusConflict, "clock_not_frozen")
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", `{"set":"2026-11-22T10:00:00Z"}`), http.StatusConflict, "clock_not_frozen")

	before := p.admin(http.MethodGet, "/_fake/state/contacts", "").Body
	r := p.admin(http.MethodPost, "/_fake/seed", twoCompanies)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	msg := r.JSON(t)["message"].(string)
	assert.Contains(t, msg, `seed: now: convofake runs on the real clock`)
	assert.Contains(t, msg, `--clock=frozen`, "the advice is a flag")
	for _, goCall := range []string{"WithClock", "NewManualClock", "WithSeed", "(...)"} {
		assert.NotContains(t, msg, goCall, "no Go call in an HTTP answer")
	}
	assert.Equal(t, string(before), string(p.admin(http.MethodGet, "/_fake/state/contacts", "").Body), "nothing changed")
	r = p.admin(http.MethodGet, "/_fake/clock", "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, false, r.JSON(t)["frozen"])
	assert.NotEqual(t, "2026-11-22T10:00:00.000Z", r.JSON(t)["now"])
}
