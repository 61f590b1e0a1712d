package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	convID    = "f0000000-0000-4000-8000-000000000001"
	contactID = "c0000000-0000-4000-8000-000000000001"
	accountID = "a0000000-0000-4000-8000-000000000001"
)

func readSeed(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/seed.json")
	require.NoError(t, err)
	return string(b)
}

// startSeeded starts convofake on the demo data and a frozen clock, then
// replaces the data through the admin API with testdata/seed.json.
func startSeeded(t *testing.T, args ...string) *proc {
	t.Helper()
	p := start(t, append([]string{"--clock", "frozen"}, args...)...)
	r := p.admin(http.MethodPost, "/_fake/seed", readSeed(t))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	body := r.json(t)
	assert.Equal(t, map[string]any{"now": "2026-11-22T10:00:00.000Z", "frozen": true}, body["clock"])
	assert.Equal(t, true, body["api_key_changed"], "the seed's key replaced the demo key")
	return p
}

// assertAdminError checks the admin error shape.
func assertAdminError(t *testing.T, r response, status int, code string) {
	t.Helper()
	assert.Equal(t, status, r.status, "%s", r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	var e map[string]any
	require.NoError(t, json.Unmarshal(r.body, &e), "%s", r.body)
	assert.Equal(t, code, e["error"], "%s", r.body)
	assert.NotEmpty(t, e["message"])
	assert.Len(t, e, 2, "only error and message: %s", r.body)
}

func TestAdminRequiresToken(t *testing.T) {
	p := start(t)
	for _, ep := range []struct{ method, path, body string }{
		{http.MethodGet, "/_fake/", ""},
		{http.MethodGet, "/_fake", ""},
		{http.MethodPost, "/_fake/reset", ""},
		{http.MethodPost, "/_fake/seed", `{"companies":[]}`},
		{http.MethodGet, "/_fake/clock", ""},
		{http.MethodPost, "/_fake/clock", `{"advance":"1h"}`},
		{http.MethodPost, "/_fake/faults", `{"status":500}`},
		{http.MethodDelete, "/_fake/faults", ""},
		{http.MethodDelete, "/_fake/faults/1", ""},
		{http.MethodGet, "/_fake/requests", ""},
		{http.MethodDelete, "/_fake/requests", ""},
		{http.MethodGet, "/_fake/state/contacts", ""},
		{http.MethodGet, "/_fake/state/conversations/x", ""},
		{http.MethodGet, "/_fake/no-such-endpoint", ""},
	} {
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + testAdminToken + "x", "Basic " + testAdminToken, testAdminToken, "Bearer fake-api-key"} {
			r := p.do(ep.method, ep.path, auth, ep.body)
			assertAdminError(t, r, http.StatusUnauthorized, "unauthorized")
			assert.Equal(t, `Bearer realm="convofake admin"`, r.header.Get("WWW-Authenticate"))
		}
	}
	// Nothing was changed by the refused calls: the demo data is there.
	assert.NotEmpty(t, p.admin(http.MethodGet, "/_fake/state/contacts", "").json(t)["items"])

	// With the token: the index, unknown routes and methods in the admin shape.
	r := p.admin(http.MethodGet, "/_fake/", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.json(t)["endpoints"], "POST /_fake/faults")
	assert.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake", "").status)
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/no-such-endpoint", ""), http.StatusNotFound, "not_found")
	r = p.admin(http.MethodPut, "/_fake/clock", `{}`)
	assertAdminError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
	assert.Equal(t, "GET, POST", r.header.Get("Allow"))
}

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

// withoutRaw drops data.items[].raw (outside the contract: docs/behaviour.md, "Forward compatibility").
func withoutRaw(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	for _, it := range m["data"].(map[string]any)["items"].([]any) {
		delete(it.(map[string]any), "raw")
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

func TestAdminBadSeedChangesNothing(t *testing.T) {
	p := startSeeded(t)
	bad, err := os.ReadFile("testdata/bad-seed.json")
	require.NoError(t, err)
	r := p.admin(http.MethodPost, "/_fake/seed", string(bad))
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.json(t)["message"], "companies[0].conversations[0].messages[0]")

	r = p.admin(http.MethodPost, "/_fake/seed", `{"companies":[{"api_key":"x","unknown_field":1}]}`)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.json(t)["message"], "unknown_field")

	assertAdminError(t, p.admin(http.MethodPost, "/_fake/seed", `{`), http.StatusBadRequest, "invalid_seed")

	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status, "the previous data stays")
}

func TestAdminClockMovesWindowAndAnomalies(t *testing.T) {
	p := startSeeded(t)
	assert.JSONEq(t, `{"now":"2026-11-22T10:00:00.000Z","frozen":true}`, string(p.admin(http.MethodGet, "/_fake/clock", "").body))
	assert.Equal(t, float64(0), anomalyCount(t, p, seedKey), "the last inbound is 1h old, under the 4h threshold")

	r := p.admin(http.MethodPost, "/_fake/clock", `{"advance":"4h"}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"now":"2026-11-22T14:00:00.000Z","frozen":true}`, string(r.body))

	r = p.api("/v1/conversations/anomalies", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"success":true,"data":{
		"buckets":{"never_engaged":{"count":0},"unanswered":{"count":1,"items":[{
			"conversation_id":"f0000000-0000-4000-8000-000000000001","contact_id":"c0000000-0000-4000-8000-000000000001",
			"channel":"chatapp","channel_account_id":"a0000000-0000-4000-8000-000000000001",
			"last_inbound_at":"2026-11-22T09:00:00.000Z","last_message_at":"2026-11-22T09:00:00.000Z",
			"waiting_hours":5,"assigned":false,"unread_count":2}]}},
		"window":{"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24},"threshold_hours":4}},
		"timestamp":"2026-11-22T14:00:00.000Z"}`, string(r.body))

	// Past the 24-hour ceiling of chatapp the conversation leaves the bucket,
	// and the read window follows the clock.
	r = p.admin(http.MethodPost, "/_fake/clock", `{"advance":"1d"}`)
	assert.JSONEq(t, `{"now":"2026-11-23T14:00:00.000Z","frozen":true}`, string(r.body))
	assert.Equal(t, float64(0), anomalyCount(t, p, seedKey))

	r = p.admin(http.MethodPost, "/_fake/clock", `{"set":"2026-12-01T00:00:00Z"}`)
	assert.JSONEq(t, `{"now":"2026-12-01T00:00:00.000Z","frozen":true}`, string(r.body))
	r = p.api("/v1/conversations/"+convID+"/messages", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, map[string]any{"recent_window_days": float64(30), "since": "2026-11-01T00:00:00.000Z"},
		r.json(t)["data"].(map[string]any)["window"])

	for _, body := range []string{
		``, `{}`, `{"advance":"1h","set":"2026-12-01T00:00:00Z"}`, `{"advance":"soon"}`, `{"advance":""}`,
		`{"set":"yesterday"}`, `{"advance":90}`, `{"freeze":true}`, `[]`,
	} {
		assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", body), http.StatusBadRequest, "invalid_request")
	}
	assert.JSONEq(t, `{"now":"2026-12-01T00:00:00.000Z","frozen":true}`, string(p.admin(http.MethodGet, "/_fake/clock", "").body), "unchanged")

	r = p.admin(http.MethodPost, "/_fake/clock", `{"advance":"-90m"}`)
	assert.JSONEq(t, `{"now":"2026-11-30T22:30:00.000Z","frozen":true}`, string(r.body), "a negative advance goes back")
}

func TestAdminClockRealRefusesToMove(t *testing.T) {
	p := start(t) // demo data, real clock
	r := p.admin(http.MethodGet, "/_fake/clock", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, false, r.json(t)["frozen"])
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"90m"}`), http.StatusConflict, "clock_not_frozen")
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/clock", `{"set":"2026-11-22T10:00:00Z"}`), http.StatusConflict, "clock_not_frozen")
}

func TestAdminFaults(t *testing.T) {
	p := startSeeded(t)

	r := p.admin(http.MethodPost, "/_fake/faults", `{"method":"GET","path":"/channels","status":429,"retry_after":30,"times":1}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Positive(t, r.json(t)["id"].(float64))

	r = p.api("/v1/channels", seedKey)
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "30", r.header.Get("Retry-After"))
	body := r.json(t)
	assert.Equal(t, false, body["success"])
	assert.Equal(t, float64(429), body["statusCode"])
	assert.Equal(t, "/api/v1/channels", body["path"])
	assert.Equal(t, "GET", body["method"])
	assert.Equal(t, "RATE_LIMITED", body["message"].(map[string]any)["error"])
	assert.Equal(t, "2026-11-22T10:00:00.000Z", body["timestamp"])
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status, "times: 1 is used up")

	// Clear every rule.
	for _, f := range []string{`{"status":503}`, `{"method":"get","path":"/conversations/*/messages","status":500,"times":3}`} {
		require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", f).status)
	}
	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults", "").status)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status)
	assert.Equal(t, http.StatusOK, p.api("/v1/conversations/"+convID+"/messages", seedKey).status)

	for _, bad := range []string{
		``, `{}`, `{"status":200}`, `{"status":600}`, `{"status":500,"times":-1}`, `{"status":500,"colour":"red"}`,
		`{"status":500,"path":"[oops"}`, `{"status":500,"latency":"forever"}`, `{"code":"X"}`, `{"latency":"-1s"}`,
		`{"drop":true,"retry_after":5}`,
	} {
		assertAdminError(t, p.admin(http.MethodPost, "/_fake/faults", bad), http.StatusBadRequest, "invalid_request")
	}
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/abc", ""), http.StatusBadRequest, "invalid_request")
}

func TestAdminDropFault(t *testing.T) {
	p := startSeeded(t)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", `{"path":"/channels","drop":true,"times":1}`).status)
	req, err := http.NewRequest(http.MethodGet, p.base+"/v1/channels", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+seedKey)
	// A fresh connection: net/http retries a GET once when a reused
	// connection closes before answering, which would hide the drop.
	fresh := &http.Client{Timeout: safetyTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := fresh.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped connection answered %d", resp.StatusCode)
	}
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status)
	// The client sees the connection close before the server logs it.
	assert.True(t, p.stderr.waitFor("path=/v1/channels status=0"), "the drop is logged with status 0:\n%s", p.stderr.String())
}

// GET /_fake/requests: the API keys never appear, nor key-like query
// parameters, headers and JSON body fields.
func TestAdminJournalRedactsKeys(t *testing.T) {
	p := startSeeded(t)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests", "").status)

	assert.Equal(t, http.StatusOK, p.api("/v1/conversations?phone=5511987654321&access_token=tok-777", seedKey).status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/api/v1/channels", "ApiKey "+seedKey, "").status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/v1/channels", "", "", "X-Api-Key", seedKey).status)
	r := p.do(http.MethodPatch, "/v1/chatapp/contacts/custom-fields", "Bearer "+seedKey,
		`{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold","api_token":"tok-999"},"api_key":"`+seedKey+`"}`)
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "not-the-key").status)

	r = p.admin(http.MethodGet, "/_fake/requests", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.NotContains(t, string(r.body), seedKey, "the API key never appears")
	assert.NotContains(t, string(r.body), "not-the-key", "nor a wrong one")
	assert.NotContains(t, string(r.body), testAdminToken, "admin calls are not journaled")
	assert.NotContains(t, string(r.body), "tok-")

	var j struct {
		Count int `json:"count"`
		Items []struct {
			Time    string              `json:"time"`
			Method  string              `json:"method"`
			Prefix  string              `json:"prefix"`
			Path    string              `json:"path"`
			Query   map[string][]string `json:"query"`
			Headers map[string][]string `json:"headers"`
			Body    json.RawMessage     `json:"body"`
			Status  int                 `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.body, &j))
	require.Equal(t, 5, j.Count)
	require.Len(t, j.Items, 5)

	it := j.Items[0]
	assert.Equal(t, "2026-11-22T10:00:00.000Z", it.Time)
	assert.Equal(t, "GET", it.Method)
	assert.Equal(t, "/v1", it.Prefix)
	assert.Equal(t, "/conversations", it.Path, "relative to the base URL, as fault rules take it")
	assert.Equal(t, map[string][]string{"phone": {"5511987654321"}, "access_token": {"[REDACTED]"}}, it.Query)
	assert.Equal(t, []string{"Bearer [REDACTED]"}, it.Headers["Authorization"])
	assert.JSONEq(t, `null`, string(it.Body))
	assert.Equal(t, 200, it.Status)

	assert.Equal(t, "/api/v1", j.Items[1].Prefix)
	assert.Equal(t, "/channels", j.Items[1].Path)
	assert.Equal(t, []string{"ApiKey [REDACTED]"}, j.Items[1].Headers["Authorization"])
	assert.Equal(t, []string{"[REDACTED]"}, j.Items[2].Headers["X-Api-Key"])
	assert.Equal(t, "PATCH", j.Items[3].Method)
	assert.JSONEq(t, `{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold","api_token":"[REDACTED]"},"api_key":"[REDACTED]"}`, string(j.Items[3].Body))
	assert.Equal(t, 401, j.Items[4].Status)

	// Filters: TestOnePathRuleInFaultsJournalAndAdmin.
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/requests?path=[", ""), http.StatusBadRequest, "invalid_request")

	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests", "").status)
	assert.JSONEq(t, `{"count":0,"items":[]}`, string(p.admin(http.MethodGet, "/_fake/requests", "").body))
}

func TestAdminState(t *testing.T) {
	p := startSeeded(t)

	wantContact := `{"id":"c0000000-0000-4000-8000-000000000001","company_id":"%s",
		"channel":"a0000000-0000-4000-8000-000000000001","phone":"5511987654321",
		"channel_identifier":"5511987654321","name":"Ana Souza","tags":["vip"],"tag_ids":["%s"],
		"created_at":"2026-11-12T10:00:00Z","last_interaction_at":"2026-11-22T09:00:00Z"}`
	r := p.admin(http.MethodGet, "/_fake/state/contacts/"+contactID, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	c := r.json(t)
	companyID := c["company_id"].(string)
	tagID := c["tag_ids"].([]any)[0].(string)
	assert.NotEmpty(t, companyID)
	want := fmt.Sprintf(wantContact, companyID, tagID)
	assert.JSONEq(t, want, string(r.body))

	for _, q := range []string{"?phone=%2B55%2011%2098765-4321", "?phone=5511987654321&account=" + accountID, ""} {
		r = p.admin(http.MethodGet, "/_fake/state/contacts"+q, "")
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.JSONEq(t, `{"items":[`+want+`]}`, string(r.body), q)
	}
	for _, q := range []string{"?phone=5511900000000", "?phone=5511987654321&account=other", "?phone=12"} {
		assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/state/contacts"+q, "").body), q)
	}
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?account="+accountID, ""), http.StatusBadRequest, "invalid_request")

	r = p.admin(http.MethodGet, "/_fake/state/conversations/"+convID, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"id":"f0000000-0000-4000-8000-000000000001","company_id":"`+companyID+`",
		"contact":"c0000000-0000-4000-8000-000000000001","channel_account_id":"a0000000-0000-4000-8000-000000000001",
		"channel":"chatapp","channel_identifier":"5511987654321","status":"open","unread_count":2,
		"created_at":"2026-11-22T08:00:00Z","last_inbound_at":"2026-11-22T09:00:00Z",
		"last_message_at":"2026-11-22T09:00:00Z","message_count":2}`, string(r.body))

	r = p.admin(http.MethodGet, "/_fake/state/messages/m-1", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"id":"m-1","conversation_id":"f0000000-0000-4000-8000-000000000001","direction":"inbound",
		"sender":"contact","type":"text","text":"Where is my order?","at":"2026-11-22T08:00:00Z"}`, string(r.body))

	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts/nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/conversations/nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/messages/nope", ""), http.StatusNotFound, "not_found")

	// State follows the API: a custom-field write shows in the contact.
	r = p.do(http.MethodPatch, "/v1/chatapp/contacts/custom-fields", "Bearer "+seedKey,
		`{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold"}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = p.admin(http.MethodGet, "/_fake/state/contacts/"+contactID, "")
	assert.Equal(t, map[string]any{"plan": "gold"}, r.json(t)["custom_fields"])
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
	assertAdminError(t, p.admin(http.MethodPost, "/_fake/reset", `{"empty":"yes"}`), http.StatusBadRequest, "invalid_request")
}
