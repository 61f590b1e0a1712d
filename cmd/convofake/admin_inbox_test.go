package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// inboxItems reads GET /_fake/state/conversations with the query: the
// items by "contact name/status".
func inboxItems(t *testing.T, p *proc, query string) map[string]map[string]any {
	t.Helper()
	return testkit.InboxItems(t, p.admin, query)
}

func TestAdminInboxFilters(t *testing.T) {
	p := start(t, "--clock", uiClock)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"Emma Clarke/open", "Ana Souza/open", "Carla Mendes/open", "Bruno Lima/open", "Farid Haddad/open",
			"Website visitor/open", "Diego Ferreira/resolved", "Gabriela Rocha/archived", "Bruno Lima/resolved"}},
		{"?status=resolved", []string{"Diego Ferreira/resolved", "Bruno Lima/resolved"}},
		{"?status=archived", []string{"Gabriela Rocha/archived"}},
		{"?status=open&assigned=true", []string{"Ana Souza/open", "Carla Mendes/open", "Farid Haddad/open"}},
		{"?bucket=unanswered", []string{"Ana Souza/open", "Bruno Lima/open", "Farid Haddad/open", "Website visitor/open"}},
		{"?bucket=automation_only", []string{"Carla Mendes/open"}},
	} {
		got := inboxItems(t, p, tc.query)
		for _, name := range tc.want {
			assert.Contains(t, got, name, "%s", tc.query)
		}
		if tc.query != "" {
			assert.Len(t, got, len(tc.want), "%s: %v", tc.query, got)
		}
	}
}

func TestAdminInboxItem(t *testing.T) {
	p := start(t, "--clock", uiClock)
	items := inboxItems(t, p, "?status=open")
	emma := items["Emma Clarke/open"]
	assert.InDelta(t, 0.6, emma["waiting_hours"], 0.001, "measured on the fake clock")
	assert.Equal(t, "Is the store open on Sunday?", emma["last_message"].(map[string]any)["text"])
	assert.Empty(t, emma["buckets"])
	bruno := items["Bruno Lima/open"]
	assert.Equal(t, []any{"unanswered", "unassigned"}, bruno["buckets"])
	carla := items["Carla Mendes/open"]
	assert.Nil(t, carla["waiting_hours"], "the last message is outbound: nobody waits")

	r := p.admin(http.MethodPost, "/_fake/clock", `{"advance": "4h"}`)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Contains(t, inboxItems(t, p, "?bucket=unanswered"), "Emma Clarke/open")
}

func TestAdminInboxErrors(t *testing.T) {
	p := start(t, "--clock", uiClock)
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"/_fake/state/conversations?assigned=maybe", http.StatusBadRequest, "invalid_request"},
		{"/_fake/state/conversations?company=nope", http.StatusNotFound, "not_found"},
		{"/_fake/state/channels?company=nope", http.StatusNotFound, "not_found"},
		{"/_fake/state/conversations/nope/messages", http.StatusNotFound, "not_found"},
	} {
		r := p.admin(http.MethodGet, tc.path, "")
		assert.Equal(t, tc.status, r.Status, tc.path)
		assert.Equal(t, tc.code, r.JSON(t)["error"], tc.path)
	}
}

func TestAdminChannels(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodGet, "/_fake/state/channels", "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.NotContains(t, string(r.Body), p.printed()["CONVO_API_KEY"], "the key is masked")
	body := r.JSON(t)
	assert.Equal(t, "fake••••••••", body["api_key_masked"])
	var names []string
	for _, it := range body["items"].([]any) {
		names = append(names, it.(map[string]any)["display_name"].(string))
	}
	assert.Equal(t, []string{"Acme Support", "Acme Sales", "Acme Help Bot", "acme.example website"}, names, "the accounts as GET /v1/channels lists them, then the webchat widget")
}

func TestMaskKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"fake-api-key", "fake••••••••"},
		{"abc", "a••••••••"},
		{"", "••••••••"},
	} {
		assert.Equal(t, tc.want, maskKey(tc.key), tc.key)
	}
}

func TestAdminThread(t *testing.T) {
	p := start(t, "--clock", uiClock)
	id := conversationOf(t, p, "Ana Souza")
	r := p.admin(http.MethodGet, "/_fake/state/conversations/"+id+"/messages", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var th threadJSON
	require.NoError(t, json.Unmarshal(r.Body, &th))
	assert.Equal(t, "Ana Souza", th.ContactName)
	require.Len(t, th.Messages, th.Conversation.MessageCount)
	assert.Equal(t, "Hi! My order #4521 hasn't arrived yet.", th.Messages[0].Text, "oldest first")
	var links int
	for _, m := range th.Messages {
		if m.MediaURL != "" {
			links++
			assert.True(t, strings.HasPrefix(m.MediaURL, "/_fake/state/media/"), m.MediaURL)
			got := p.admin(http.MethodGet, m.MediaURL, "")
			assert.Equal(t, http.StatusOK, got.Status)
			assert.Equal(t, "application/octet-stream", got.Header.Get("Content-Type"), "never run on the admin origin")
			assert.Equal(t, int(m.Media.FileSize), len(got.Body))
		}
	}
	assert.Positive(t, links, "available media have an admin address")
}

// Every admin read of the page's views reads the store: with a fault rule
// on every path and a rate limit of 2 requests, reading every view leaves
// the rule unused, the journal empty, the budget whole, the anomaly report
// uncached and the clock where it was.
func TestAdminViewsChangeNothing(t *testing.T) {
	p := start(t, "--clock", uiClock, "--rate-limit", "0.001", "--rate-burst", "2")
	r := p.admin(http.MethodPost, "/_fake/faults", `{"path": "*", "status": 500, "times": 1}`)
	require.Equal(t, http.StatusCreated, r.Status)
	clock := p.admin(http.MethodGet, "/_fake/clock", "").JSON(t)
	id := conversationOf(t, p, "Ana Souza")
	for _, path := range []string{"/_fake/companies", "/_fake/state/channels", "/_fake/state/conversations",
		"/_fake/state/conversations/" + id + "/messages", "/_fake/state/contacts", "/_fake/state/conversations/" + id} {
		r := p.admin(http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
	}
	var th threadJSON
	require.NoError(t, json.Unmarshal(p.admin(http.MethodGet, "/_fake/state/conversations/"+id+"/messages", "").Body, &th))
	for _, m := range th.Messages {
		if m.MediaURL != "" {
			require.Equal(t, http.StatusOK, p.admin(http.MethodGet, m.MediaURL, "").Status)
		}
	}
	faults := p.admin(http.MethodGet, "/_fake/faults", "").JSON(t)["items"].([]any)
	require.Len(t, faults, 1)
	assert.EqualValues(t, 1, faults[0].(map[string]any)["remaining"], "the fault rule is not used")
	assert.EqualValues(t, 0, p.admin(http.MethodGet, "/_fake/requests", "").JSON(t)["count"], "the journal is empty")
	assert.Equal(t, clock, p.admin(http.MethodGet, "/_fake/clock", "").JSON(t), "the clock has not moved")
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults", "").Status)

	before := anomalyCount(t, p, fake.DefaultAPIKey) // the first token; the report is cached now
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).Status, "the second token: the views took none")
	assert.Equal(t, http.StatusTooManyRequests, p.api("/v1/channels", fake.DefaultAPIKey).Status, "the budget held 2")
	assert.Positive(t, before)
}

// The views never fill the anomaly cache: a conversation that starts
// waiting after the page was opened is counted by the client's next call.
func TestAdminViewsLeaveTheAnomalyCache(t *testing.T) {
	p := start(t, "--clock", uiClock)
	for _, path := range []string{"/_fake/state/conversations", "/_fake/state/conversations?bucket=unanswered"} {
		require.Equal(t, http.StatusOK, p.admin(http.MethodGet, path, "").Status)
	}
	inbox := inboxItems(t, p, "?bucket=unanswered")
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance": "4h"}`).Status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake/state/conversations", "").Status)
	assert.EqualValues(t, len(inboxItems(t, p, "?bucket=unanswered")), anomalyCount(t, p, fake.DefaultAPIKey),
		"the API's count is the page's, computed now (it was %d before the clock moved)", len(inbox))
}

func TestAdminMedia(t *testing.T) {
	p := start(t, "--clock", uiClock)
	r := p.admin(http.MethodGet, "/_fake/state/media/nope", "")
	assertAdminError(t, r, http.StatusNotFound, "not_found")
	r = p.do(http.MethodGet, "/_fake/state/media/nope", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status, "the admin token is needed")
}
