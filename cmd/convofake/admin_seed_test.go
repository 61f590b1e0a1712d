package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminSeedThenAPIResultsExactly(t *testing.T) {
	p := startSeeded(t)

	// The seed's key replaced the demo key.
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "fake-api-key").Status)

	r := p.api("/v1/channels", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[{
		"id":"a0000000-0000-4000-8000-000000000001","channel":"chatapp","display_name":"Support",
		"provider_identifier":"5511940000001","status":"connected",
		"capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,
		"max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}}]},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.Body))

	r = p.api("/v1/conversations/"+convID+"/messages", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[
		{"message_id":"m-2","direction":"inbound","type":"text","status":null,"text":"Hello?","media":null,"reactions":[],
		 "sent_at":"2026-11-22T09:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null},
		{"message_id":"m-1","direction":"inbound","type":"text","status":null,"text":"Where is my order?","media":null,"reactions":[],
		 "sent_at":"2026-11-22T08:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null}],
		"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, withoutRaw(t, r.Body))

	r = p.api("/v1/conversations/anomalies", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"success":true,"data":{
		"buckets":{"never_engaged":{"count":0},"unanswered":{"count":0,"items":[]}},
		"window":{"ceiling_hours_by_channel":{"botapp":24,"chatapp":24,"sms":24,"webchat":24},"threshold_hours":4}},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.Body))
}

func TestAdminBadSeedChangesNothing(t *testing.T) {
	p := startSeeded(t)
	bad, err := os.ReadFile("testdata/bad-seed.json")
	require.NoError(t, err)
	r := p.admin(http.MethodPost, "/_fake/seed", string(bad))
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.JSON(t)["message"], `companies[0].conversations[0].messages[0].sender: unknown sender "martian"`)

	r = p.admin(http.MethodPost, "/_fake/seed", `{"companies":[{"api_key":"x","unknown_field":1}]}`)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.JSON(t)["message"], "unknown_field")

	assertAdminError(t, p.admin(http.MethodPost, "/_fake/seed", `{`), http.StatusBadRequest, "invalid_seed")

	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).Status, "the previous data stays")
}

func TestAdminReset(t *testing.T) {
	p := start(t, "--seed", "testdata/seed.json")
	// Change everything: other data and key, clock, a fault, the journal.
	other := `{"now":"2030-01-01T00:00:00Z","companies":[{"api_key":"other-key","channels":[{"channel":"botapp"}]}]}`
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", other).Status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"1h"}`).Status)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/faults", `{"path":"/conversations","status":500}`).Status)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "other-key").Status)
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", seedKey).Status)

	r := p.admin(http.MethodPost, "/_fake/reset", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"ok":true,"clock":{"now":"2026-11-22T10:00:00.000Z","frozen":true},"api_key_changed":true,
		"notice":"the default company's API key is back to the one printed at start (CONVO_API_KEY)"}`, string(r.Body))
	assert.JSONEq(t, `{"count":0,"items":[]}`, string(p.admin(http.MethodGet, "/_fake/requests", "").Body), "journal emptied")
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "other-key").Status)
	r = p.api("/v1/conversations", seedKey)
	require.Equal(t, http.StatusOK, r.Status, "the fault is gone: %s", r.Body)
	assert.Equal(t, convID, r.JSON(t)["data"].(map[string]any)["items"].([]any)[0].(map[string]any)["id"])

	// {"empty": true}: no data at all, the key stays.
	r = p.admin(http.MethodPost, "/_fake/reset", `{"empty":true}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = p.api("/v1/channels", seedKey)
	require.Equal(t, http.StatusOK, r.Status)
	assert.JSONEq(t, `{"success":true,"data":{"items":[]},"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.Body))
}

// bigSeed is a seed of one company with n messages in conversations of 100,
// written out as JSON.
func bigSeed(t *testing.T, n int) []byte {
	t.Helper()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cs := fake.CompanySeed{Channels: []fake.ChannelAccount{{Ref: "a", Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"}}}
	for c := range n / 100 {
		ref := fmt.Sprintf("c%d", c)
		cs.Contacts = append(cs.Contacts, fake.Contact{Ref: ref, ChannelAccountID: "a", PhoneNumber: fmt.Sprintf("5511%09d", c)})
		cv := fake.Conversation{ContactID: ref, CreatedAt: start}
		for m := range 100 {
			cv.Messages = append(cv.Messages, fake.Message{Text: fmt.Sprintf("message %d of conversation %d", m, c),
				At: start.Add(time.Duration(c*100+m) * time.Second)})
		}
		cs.Conversations = append(cs.Conversations, cv)
	}
	now := start.AddDate(0, 0, 20)
	data, err := json.Marshal(fake.Seed{Now: &now, Companies: []fake.CompanySeed{cs}})
	require.NoError(t, err)
	return data
}

// An export of 100 000 messages (about 30 MB, over the former 16 MiB limit) loads
// back through POST /_fake/seed, and its company through POST
// /_fake/companies; over --max-seed-size it is 413 naming the flag.
func TestAdminSeedLoadsBackALargeExport(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100 000 messages three times")
	}
	n := 100_000
	if raceOn {
		n = 20_000 // the race detector makes each step ten times slower
	}
	p := start(t, "--clock", "frozen", "--rate-limit", "0")
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", string(bigSeed(t, n))).Status)
	export := p.admin(http.MethodGet, "/_fake/seed", "")
	require.Equal(t, http.StatusOK, export.Status)
	t.Logf("the export of %d messages is %d bytes", n, len(export.Body))
	if !raceOn {
		assert.Greater(t, len(export.Body), 16<<20, "over the former limit")
	}

	r := p.admin(http.MethodPost, "/_fake/seed", string(export.Body))
	require.Equal(t, http.StatusOK, r.Status, "%.500s", r.Body)
	assert.Equal(t, len(export.Body), len(p.admin(http.MethodGet, "/_fake/seed", "").Body), "the same state")

	var doc fake.Seed
	require.NoError(t, json.Unmarshal(export.Body, &doc))
	one, err := json.Marshal(fake.Seed{Companies: doc.Companies[:1]})
	require.NoError(t, err)
	r = p.admin(http.MethodPost, "/_fake/companies", string(one))
	require.Equal(t, http.StatusCreated, r.Status, "%.500s", r.Body)
	assert.ElementsMatch(t, []any{"api_key", "id"}, r.JSON(t)["replaced"], "the default company's key and id are taken")
	conv := doc.Companies[0].Conversations[len(doc.Companies[0].Conversations)-1]
	page := p.api("/v1/conversations/"+conv.ID+"/messages?limit=100&since=2026-10-01T00:00:00Z", r.JSON(t)["api_key"].(string))
	require.Equal(t, http.StatusOK, page.Status, "%s", page.Body)
	assert.Len(t, page.JSON(t)["data"].(map[string]any)["items"], 100)

	// In memory: over a connection, the server's early 413 may reach the
	// client as a reset while it still writes 30 MB.
	a := newAdmin(fake.New(t), testAdminToken, slog.New(slog.DiscardHandler))
	a.seedLimit = 1 << 20
	for _, path := range []string{"/_fake/seed", "/_fake/companies"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(export.Body))
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		a.ServeHTTP(rec, req)
		r := response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
		assertAdminError(t, r, http.StatusRequestEntityTooLarge, "body_too_large")
		assert.Contains(t, r.JSON(t)["message"], "--max-seed-size", path)
	}
}
