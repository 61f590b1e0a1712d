package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The state of a contact, conversation or message, its times to the
// millisecond as the API writes them.
func TestAdminState(t *testing.T) {
	p := startSeeded(t)

	wantContact := `{"id":"c0000000-0000-4000-8000-000000000001","company_id":"%s",
		"channel":"a0000000-0000-4000-8000-000000000001","phone":"5511987654321",
		"channel_identifier":"5511987654321","name":"Ana Souza","tags":["vip"],"tag_ids":["%s"],
		"created_at":"2026-11-12T10:00:00.000Z","last_interaction_at":"2026-11-22T09:00:00.000Z"}`
	r := p.admin(http.MethodGet, "/_fake/state/contacts/"+contactID, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	c := r.JSON(t)
	companyID := c["company_id"].(string)
	tagID := c["tag_ids"].([]any)[0].(string)
	assert.NotEmpty(t, companyID)
	want := fmt.Sprintf(wantContact, companyID, tagID)
	assert.JSONEq(t, want, string(r.Body))

	for _, q := range []string{"?phone=%2B55%2011%2098765-4321", "?phone=5511987654321&account=" + accountID, ""} {
		r = p.admin(http.MethodGet, "/_fake/state/contacts"+q, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.JSONEq(t, `{"items":[`+want+`]}`, string(r.Body), q)
	}
	for _, q := range []string{"?phone=5511900000000", "?phone=5511987654321&account=other", "?phone=12"} {
		assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/state/contacts"+q, "").Body), q)
	}
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?account="+accountID, ""), http.StatusBadRequest, "invalid_request")

	r = p.admin(http.MethodGet, "/_fake/state/conversations/"+convID, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"id":"f0000000-0000-4000-8000-000000000001","company_id":"`+companyID+`",
		"contact":"c0000000-0000-4000-8000-000000000001","channel_account_id":"a0000000-0000-4000-8000-000000000001",
		"channel":"chatapp","channel_identifier":"5511987654321","status":"open","unread_count":2,
		"created_at":"2026-11-22T08:00:00.000Z","last_inbound_at":"2026-11-22T09:00:00.000Z",
		"last_message_at":"2026-11-22T09:00:00.000Z","message_count":2}`, string(r.Body))

	r = p.admin(http.MethodGet, "/_fake/state/messages/m-1", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.JSONEq(t, `{"id":"m-1","conversation_id":"f0000000-0000-4000-8000-000000000001","direction":"inbound",
		"sender":"contact","type":"text","text":"Where is my order?","at":"2026-11-22T08:00:00.000Z"}`, string(r.Body))

	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts/nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/conversations/nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/messages/nope", ""), http.StatusNotFound, "not_found")

	// State follows the API: a custom-field write shows in the contact.
	r = p.do(http.MethodPatch, "/v1/chatapp/contacts/custom-fields", "Bearer "+seedKey,
		`{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold"}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = p.admin(http.MethodGet, "/_fake/state/contacts/"+contactID, "")
	assert.Equal(t, map[string]any{"plan": "gold"}, r.JSON(t)["custom_fields"])
}

// GET /_fake/companies and ?company= on the state endpoints reach every
// company, not only the default one.
func TestAdminCompanies(t *testing.T) {
	p := start(t, "--clock", "frozen")
	r := p.admin(http.MethodPost, "/_fake/seed", twoCompanies)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	r = p.admin(http.MethodGet, "/_fake/companies", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	items := r.JSON(t)["items"].([]any)
	require.Len(t, items, 2)
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	assert.Equal(t, true, first["default"])
	assert.Equal(t, false, second["default"])
	assert.Equal(t, float64(1), first["contacts"])
	assert.Equal(t, float64(2), second["contacts"])
	assert.NotContains(t, string(r.Body), "second-key", "keys are not listed")
	assert.Equal(t, first["id"], p.admin(http.MethodGet, "/_fake/", "").JSON(t)["company_id"])

	// The default company without ?company=, another with it.
	r = p.admin(http.MethodGet, "/_fake/state/contacts", "")
	assert.Len(t, r.JSON(t)["items"], 1)
	r = p.admin(http.MethodGet, "/_fake/state/contacts?company="+second["id"].(string), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Len(t, r.JSON(t)["items"], 2)
	r = p.admin(http.MethodGet, "/_fake/state/contacts?company="+second["id"].(string)+"&phone=%2B55+21+97777-6666", "")
	got := r.JSON(t)["items"].([]any)
	require.Len(t, got, 1)
	assert.Equal(t, "b2000000-0000-4000-8000-000000000001", got[0].(map[string]any)["id"])
	assert.Equal(t, second["id"], got[0].(map[string]any)["company_id"])
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?company=nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?company=", ""), http.StatusNotFound, "not_found")

	// The journal redacts every company's key, not only the default one.
	require.Equal(t, http.StatusUnauthorized, p.api("/v1/channels?api_key=second-key", "").Status)
	r = p.admin(http.MethodGet, "/_fake/requests", "")
	assert.NotContains(t, string(r.Body), "second-key")
	q := r.JSON(t)["items"].([]any)[0].(map[string]any)["query"]
	assert.Equal(t, map[string]any{"api_key": []any{"[REDACTED]"}}, q)
}
