package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twoCompanies = `{"now":"2026-11-22T10:00:00.000Z","companies":[
  {"api_key":"first-key","channels":[{"ref":"c","id":"a1000000-0000-4000-8000-000000000001","channel":"chatapp","provider_identifier":"5511940000001"}],
   "contacts":[{"ref":"a","channel":"c","phone":"5511987654321","name":"Ana"}]},
  {"api_key":"second-key","channels":[{"ref":"c","id":"a2000000-0000-4000-8000-000000000001","channel":"chatapp","provider_identifier":"5511940000009"}],
   "contacts":[{"ref":"b","id":"b2000000-0000-4000-8000-000000000001","channel":"c","phone":"5521977776666","name":"Bruno"},
               {"ref":"c2","channel":"c","phone":"5521977775555","name":"Carla"}]}]}`

// GET /_fake/companies and ?company= on the state endpoints reach every
// company, not only the default one.
func TestAdminCompanies(t *testing.T) {
	p := start(t, "--clock", "frozen")
	r := p.admin(http.MethodPost, "/_fake/seed", twoCompanies)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)

	r = p.admin(http.MethodGet, "/_fake/companies", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	items := r.json(t)["items"].([]any)
	require.Len(t, items, 2)
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	assert.Equal(t, true, first["default"])
	assert.Equal(t, false, second["default"])
	assert.Equal(t, float64(1), first["contacts"])
	assert.Equal(t, float64(2), second["contacts"])
	assert.NotContains(t, string(r.body), "second-key", "keys are not listed")
	assert.Equal(t, first["id"], p.admin(http.MethodGet, "/_fake/", "").json(t)["company_id"])

	// The default company without ?company=, another with it.
	r = p.admin(http.MethodGet, "/_fake/state/contacts", "")
	assert.Len(t, r.json(t)["items"], 1)
	r = p.admin(http.MethodGet, "/_fake/state/contacts?company="+second["id"].(string), "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Len(t, r.json(t)["items"], 2)
	r = p.admin(http.MethodGet, "/_fake/state/contacts?company="+second["id"].(string)+"&phone=%2B55+21+97777-6666", "")
	got := r.json(t)["items"].([]any)
	require.Len(t, got, 1)
	assert.Equal(t, "b2000000-0000-4000-8000-000000000001", got[0].(map[string]any)["id"])
	assert.Equal(t, second["id"], got[0].(map[string]any)["company_id"])
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?company=nope", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/state/contacts?company=", ""), http.StatusNotFound, "not_found")

	// The journal redacts every company's key, not only the default one.
	require.Equal(t, http.StatusUnauthorized, p.api("/v1/channels?api_key=second-key", "").status)
	r = p.admin(http.MethodGet, "/_fake/requests", "")
	assert.NotContains(t, string(r.body), "second-key")
	q := r.json(t)["items"].([]any)[0].(map[string]any)["query"]
	assert.Equal(t, map[string]any{"api_key": []any{"[REDACTED]"}}, q)
}

// GET /_fake/faults lists the rules; DELETE /_fake/faults/{id} is 404 for
// an unknown id or a rule that ran out.
func TestAdminFaultListingAndRemoval(t *testing.T) {
	p := startSeeded(t)
	assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/faults", "").body))
	r := p.admin(http.MethodPost, "/_fake/faults", `{"method":"get","path":"/v1/channels","status":503,"times":2,"retry_after":"30s"}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	once := int(r.json(t)["id"].(float64))
	r = p.admin(http.MethodPost, "/_fake/faults", `{"path":"/conversations","status":409,"code":"CHANNEL_MISMATCH","details":{"expected":"chatapp"}}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	always := int(r.json(t)["id"].(float64))

	r = p.admin(http.MethodGet, "/_fake/faults", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"items":[
	  {"id":`+strconv.Itoa(once)+`,"method":"GET","path":"/channels","status":503,"code":"","message":"","details":null,
	   "retry_after":"30s","latency":"0s","drop":false,"times":2,"remaining":2},
	  {"id":`+strconv.Itoa(always)+`,"method":"","path":"/conversations","status":409,"code":"CHANNEL_MISMATCH","message":"","details":{"expected":"chatapp"},
	   "retry_after":"0s","latency":"0s","drop":false,"times":0,"remaining":null}]}`, string(r.body))

	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).status)
	assert.Contains(t, string(p.admin(http.MethodGet, "/_fake/faults", "").body), `"remaining": 1`)
	assert.Equal(t, http.StatusServiceUnavailable, p.api("/v1/channels", seedKey).status)

	// The used-up rule is gone: 404; the other is removed once: 200 then 404.
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(once), ""), http.StatusNotFound, "not_found")
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(always), "").status)
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/"+strconv.Itoa(always), ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/999", ""), http.StatusNotFound, "not_found")
	assertAdminError(t, p.admin(http.MethodDelete, "/_fake/faults/0", ""), http.StatusBadRequest, "invalid_request")
	assert.JSONEq(t, `{"items":[]}`, string(p.admin(http.MethodGet, "/_fake/faults", "").body))
	assert.Contains(t, p.admin(http.MethodGet, "/_fake/", "").json(t)["endpoints"], "GET /_fake/faults")
	assert.Contains(t, p.admin(http.MethodGet, "/_fake/", "").json(t)["endpoints"], "GET /_fake/companies")
}

// A seed with "now" needs a frozen clock: on a real clock it is refused
// clearly (400 invalid_seed) and changes nothing, instead of shifting the
// real clock. Seed errors name the field.
func TestAdminSeedNowOnRealClock(t *testing.T) {
	p := start(t) // real clock
	before := p.admin(http.MethodGet, "/_fake/state/contacts", "").body
	r := p.admin(http.MethodPost, "/_fake/seed", twoCompanies)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	msg := r.json(t)["message"].(string)
	assert.Contains(t, msg, `seed: now: convofake runs on the real clock`)
	assert.Contains(t, msg, `--clock=frozen`, "the advice is a flag")
	for _, goCall := range []string{"WithClock", "NewManualClock", "WithSeed", "(...)"} {
		assert.NotContains(t, msg, goCall, "no Go call in an HTTP answer")
	}
	assert.Equal(t, string(before), string(p.admin(http.MethodGet, "/_fake/state/contacts", "").body), "nothing changed")
	clock := p.admin(http.MethodGet, "/_fake/clock", "").json(t)
	assert.Equal(t, false, clock["frozen"])
	assert.NotEqual(t, "2026-11-22T10:00:00.000Z", clock["now"])

	r = p.admin(http.MethodPost, "/_fake/seed", `{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
	  "conversations":[{"contact":"a","messages":[{"sender":"martian"}]}]}]}`)
	assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
	assert.Contains(t, r.json(t)["message"], `companies[0].conversations[0].messages[0].sender: unknown sender "martian"`)
}
