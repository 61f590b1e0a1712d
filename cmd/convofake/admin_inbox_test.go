package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// inboxItems reads GET /_fake/state/conversations?query: contact name →
// item.
func inboxItems(t *testing.T, p *proc, query string) map[string]map[string]any {
	t.Helper()
	r := p.admin(http.MethodGet, "/_fake/state/conversations"+query, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	out := map[string]map[string]any{}
	for _, it := range r.json(t)["items"].([]any) {
		m := it.(map[string]any)
		out[m["contact_name"].(string)+"/"+m["status"].(string)] = m
	}
	return out
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
	require.Equal(t, http.StatusOK, r.status)
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
		assert.Equal(t, tc.status, r.status, tc.path)
		assert.Equal(t, tc.code, r.json(t)["error"], tc.path)
	}
}

func TestAdminChannels(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodGet, "/_fake/state/channels", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.NotContains(t, string(r.body), p.printed()["CONVO_API_KEY"], "the key is masked")
	body := r.json(t)
	assert.Equal(t, "fake••••••••", body["api_key_masked"])
	var names []string
	for _, it := range body["items"].([]any) {
		names = append(names, it.(map[string]any)["display_name"].(string))
	}
	assert.Equal(t, []string{"Acme Support", "Acme Sales", "Acme Help Bot"}, names, "as GET /v1/channels lists them")
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
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var th threadJSON
	require.NoError(t, json.Unmarshal(r.body, &th))
	assert.Equal(t, "Ana Souza", th.ContactName)
	require.Len(t, th.Messages, th.Conversation.MessageCount)
	assert.Equal(t, "Hi! My order #4521 hasn't arrived yet.", th.Messages[0].Text, "oldest first")
	var links int
	for _, m := range th.Messages {
		if m.MediaURL != "" {
			links++
			assert.True(t, strings.HasPrefix(m.MediaURL, p.base+"/_files/"), m.MediaURL)
			assert.Equal(t, http.StatusOK, p.do(http.MethodGet, strings.TrimPrefix(m.MediaURL, p.base), "", "").status)
		}
	}
	assert.Positive(t, links, "available media have a temporary link")
}

// The inbox reads the fake's API in-process: they are journaled with their
// own User-Agent and company, and a read a fault rule would answer is not
// made (the rule keeps its uses).
func TestAdminInboxReadsAndFaults(t *testing.T) {
	p := start(t, "--clock", uiClock)
	r := p.admin(http.MethodPost, "/_fake/faults", `{"method": "GET", "path": "/v1/conversations", "status": 500, "times": 1}`)
	require.Equal(t, http.StatusCreated, r.status)
	r = p.admin(http.MethodGet, "/_fake/state/conversations", "")
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "fault_in_force", r.json(t)["error"])
	assert.Contains(t, r.json(t)["message"], "fault rule 1 matches GET /conversations")
	faults := p.admin(http.MethodGet, "/_fake/faults", "").json(t)["items"].([]any)
	require.Len(t, faults, 1)
	assert.EqualValues(t, 1, faults[0].(map[string]any)["remaining"], "the rule is not used up")

	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults", "").status)
	require.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake/state/channels", "").status)
	var journal requestsJSON
	require.NoError(t, json.Unmarshal(p.admin(http.MethodGet, "/_fake/requests?path=/channels", "").body, &journal))
	require.Len(t, journal.Items, 1)
	assert.Equal(t, []string{uiAgent}, journal.Items[0].Headers["User-Agent"])
	assert.NotEmpty(t, journal.Items[0].Company, "the journal names the company")
}

func TestFaultMatches(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"", "", true},
		{"GET", "/conversations", true},
		{"get", "/api/v1/conversations", true},
		{"POST", "/conversations", false},
		{"", "/conversations/*", false},
		{"", "/v1/conv*", true},
		{"", "[", false},
	} {
		assert.Equal(t, tc.want, faultMatches(faultOf(tc.method, tc.path), http.MethodGet, "/conversations"), "%s %s", tc.method, tc.path)
	}
}

func faultOf(method, path string) fake.Fault { return fake.Fault{Method: method, Path: path} }
