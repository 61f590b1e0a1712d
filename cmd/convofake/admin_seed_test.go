package main

import (
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminSeedThenAPIResultsExactly(t *testing.T) {
	p := startSeeded(t)

	// The seed's key replaced the demo key.
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "fake-api-key").status)

	r := p.api("/v1/channels", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[{
		"id":"a0000000-0000-4000-8000-000000000001","channel":"chatapp","display_name":"Support",
		"provider_identifier":"5511940000001","status":"connected",
		"capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,
		"max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}}]},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.body))

	r = p.api("/v1/conversations/"+convID+"/messages", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[
		{"message_id":"m-2","direction":"inbound","type":"text","status":null,"text":"Hello?","media":null,"reactions":[],
		 "sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null},
		{"message_id":"m-1","direction":"inbound","type":"text","status":null,"text":"Where is my order?","media":null,"reactions":[],
		 "sent_at":"2026-11-22T08:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null}],
		"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, withoutRaw(t, r.body))

	r = p.api("/v1/conversations/anomalies", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"success":true,"data":{
		"buckets":{"never_engaged":{"count":0},"unanswered":{"count":0,"items":[]}},
		"window":{"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24},"threshold_hours":4}},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.body))
}

func TestAdminBadSeedChangesNothing(t *testing.T) {
	p := startSeeded(t)
	bad, err := os.ReadFile("testdata/bad-seed.json")
	require.NoError(t, err)
	r := p.admin(http.MethodPost, "/_fake/seed", string(bad))
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.json(t)["message"], `companies[0].conversations[0].messages[0].sender: unknown sender "martian"`)

	r = p.admin(http.MethodPost, "/_fake/seed", `{"companies":[{"api_key":"x","unknown_field":1}]}`)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.json(t)["message"], "unknown_field")

	assertAdminError(t, p.admin(http.MethodPost, "/_fake/seed", `{`), http.StatusBadRequest, "invalid_seed")

	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status, "the previous data stays")
}

func TestAdminReset(t *testing.T) {
	p := start(t, "--seed", "testdata/seed.json")
	// Change everything: other data and key, clock, a fault, the journal.
	other := `{"now":"2030-01-01T00:00:00Z","companies":[{"api_key":"other-key","channels":[{"channel":"botapp"}]}]}`
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", other).status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"1h"}`).status)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", `{"path":"/conversations","status":500}`).status)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "other-key").status)
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", seedKey).status)

	r := p.admin(http.MethodPost, "/_fake/reset", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"ok":true,"clock":{"now":"2026-11-22T10:00:00.000Z","frozen":true},"api_key_changed":true,
		"notice":"the default company's API key is back to the one printed at start (CONVO_API_KEY)"}`, string(r.body))
	assert.JSONEq(t, `{"count":0,"items":[]}`, string(p.admin(http.MethodGet, "/_fake/requests", "").body), "journal emptied")
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "other-key").status)
	r = p.api("/v1/conversations", seedKey)
	require.Equal(t, http.StatusOK, r.status, "the fault is gone: %s", r.body)
	assert.Equal(t, convID, r.json(t)["data"].(map[string]any)["items"].([]any)[0].(map[string]any)["id"])

	// {"empty": true}: no data at all, the key stays.
	r = p.admin(http.MethodPost, "/_fake/reset", `{"empty":true}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = p.api("/v1/channels", seedKey)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"success":true,"data":{"items":[]},"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.body))
}
