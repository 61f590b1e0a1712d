package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// A seed that changes the default company's key says so in the answer and
// in the log, naming the company, never the key.
func TestAdminSeedThatChangesTheKeySaysSo(t *testing.T) {
	for _, tc := range []struct {
		name    string
		seed    string
		changed bool
		key     string // the key that works afterwards
	}{
		{"own key", `{"companies":[{"api_key":"brand-new-key"}]}`, true, "brand-new-key"},
		{"no key", `{"companies":[{"channels":[{"channel":"botapp"}]}]}`, false, fake.DefaultAPIKey},
		{"the same key", `{"companies":[{"api_key":"` + fake.DefaultAPIKey + `"}]}`, false, fake.DefaultAPIKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, "--clock", "frozen")
			company := p.admin(http.MethodGet, "/_fake/", "").json(t)["company_id"].(string)
			r := p.admin(http.MethodPost, "/_fake/seed", tc.seed)
			require.Equal(t, http.StatusOK, r.status, "%s", r.body)
			body := r.json(t)
			assert.Equal(t, tc.changed, body["api_key_changed"])
			assert.NotContains(t, string(r.body), "brand-new-key", "the answer never shows a key")
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", tc.key).status)
			if !tc.changed {
				assert.NotContains(t, body, "notice")
				assert.NotContains(t, p.stderr.String(), "API key of the default company changed")
				return
			}
			notice := body["notice"].(string)
			for _, want := range []string{"companies[0].api_key", company, "CONVO_API_KEY", "401", "POST /_fake/reset"} {
				assert.Contains(t, notice, want)
			}
			assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", fake.DefaultAPIKey).status)
			line := "seed: the API key of the default company changed"
			require.True(t, p.stderr.waitFor(line), p.stderr.String())
			assert.Contains(t, p.stderr.String(), "company="+company)
			assert.NotContains(t, p.stderr.String(), "brand-new-key", "the log never shows a key")

			// Reset brings the start key back, and says so.
			r = p.admin(http.MethodPost, "/_fake/reset", "")
			assert.Equal(t, true, r.json(t)["api_key_changed"])
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).status)
		})
	}
}

// A seed whose companies share a key is refused naming the companies,
// never the key, and changes nothing.
func TestAdminSeedErrorsNameTheCompanyNotTheKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed string
		want string
	}{
		{"two companies, one key", `{"companies":[{"api_key":"secret-twin"},{"api_key":"secret-twin"}]}`,
			"seed: companies[1].api_key: the same API key as companies[0]"},
		{"the current key on another company", `{"companies":[{},{"api_key":"` + fake.DefaultAPIKey + `"}]}`,
			"seed: companies[1].api_key: the same API key as companies[0]"},
		{"third company", `{"companies":[{"api_key":"a-key"},{"api_key":"b-key"},{"api_key":"b-key"}]}`,
			"seed: companies[2].api_key: the same API key as companies[1]"},
		{"missing key", `{"companies":[{"api_key":"a-key"},{}]}`,
			"seed: companies[1].api_key: missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t)
			r := p.admin(http.MethodPost, "/_fake/seed", tc.seed)
			assertAdminError(t, r, http.StatusBadRequest, "invalid_seed")
			assert.Contains(t, r.json(t)["message"], tc.want)
			for _, key := range []string{"secret-twin", fake.DefaultAPIKey, "b-key"} {
				assert.NotContains(t, string(r.body), key)
			}
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).status, "nothing changed")
		})
	}
}

func TestRedactSecrets(t *testing.T) {
	for _, tc := range []struct {
		text    string
		secrets []string
		want    string
	}{
		{`api key "k1" is already used`, []string{"k1"}, `api key "[REDACTED]" is already used`},
		{`key "a\"b" taken`, []string{`a"b`}, `key "[REDACTED]" taken`},
		{"nothing here", []string{"", "zz"}, "nothing here"},
		{"k1 and k2", []string{"k1", "k2"}, "[REDACTED] and [REDACTED]"},
	} {
		assert.Equal(t, tc.want, redactSecrets(tc.text, tc.secrets...), tc.text)
	}
}

func TestKeyLikeName(t *testing.T) {
	for _, name := range []string{
		"api_key", "apiKey", "API-KEY", "X-Api-Key", "key", "token", "access_token", "refreshToken",
		"authorization", "Proxy-Authorization", "password", "db_password", "passwd", "secret",
		"client_secret", "private_key", "Cookie", "Set-Cookie", "auth", "credentials",
	} {
		assert.True(t, keyLikeName(name), name)
	}
	for _, name := range []string{
		"phone_number", "phone_number_id", "custom_fields", "keyboard", "monkey", "name", "tokens_used",
		"Content-Type", "text", "author",
	} {
		assert.False(t, keyLikeName(name), name)
	}
}

// Bodies in the admin journal: key-like fields at any depth are redacted;
// the order of fields and everything else stay.
func TestBodyJSONRedacts(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", ``, `null`},
		{"plain", `{"b":1,"a":"x"}`, `{"b":1,"a":"x"}`},
		{"top level", `{"api_key":"k","text":"hi"}`, `{"api_key":"[REDACTED]","text":"hi"}`},
		{"any depth", `{"a":[{"b":{"Token":"t","keep":2}}],"password":{"x":[1,2]}}`,
			`{"a":[{"b":{"Token":"[REDACTED]","keep":2}}],"password":"[REDACTED]"}`},
		{"null stays null", `{"secret":null}`, `{"secret":null}`},
		{"numbers and bools", `{"n":1.50,"t":true,"f":false,"z":null,"apiKey":12345}`,
			`{"n":1.50,"t":true,"f":false,"z":null,"apiKey":"[REDACTED]"}`},
		{"array at the top", `[{"key":"k"},"v"]`, `[{"key":"[REDACTED]"},"v"]`},
		{"not JSON", `api_key=[REDACTED]&x=1`, ``},
		{"no HTML escaping", `{"text":"<b>&</b>"}`, `{"text":"<b>&</b>"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := bodyJSON([]byte(tc.in))
			if tc.name == "not JSON" {
				var s string
				require.NoError(t, json.Unmarshal(got, &s))
				assert.Equal(t, tc.in, s)
				return
			}
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func TestRedactValues(t *testing.T) {
	got := redactValues(map[string][]string{
		"Authorization": {"Bearer [REDACTED]", "Basic dXNlcjpwdw=="},
		"X-Auth-Token":  {"abc"},
		"Cookie":        {"session=1"},
		"Accept":        {"application/json"},
	})
	assert.Equal(t, map[string][]string{
		"Authorization": {"Bearer [REDACTED]", "Basic [REDACTED]"},
		"X-Auth-Token":  {"[REDACTED]"},
		"Cookie":        {"[REDACTED]"},
		"Accept":        {"application/json"},
	}, got)
}

// Bad admin bodies are explained in JSON's terms, never Go's.
func TestAdminBodyErrorsSpeakJSON(t *testing.T) {
	p := start(t, "--clock", "frozen")
	for _, tc := range []struct {
		path, body, want string
	}{
		{"/_fake/reset", `{"empty":"yes"}`, "empty: want a JSON boolean, got a JSON string"},
		{"/_fake/clock", `{"advance":90}`, "advance: want a JSON string, got a JSON number"},
		{"/_fake/faults", `{"status":"500"}`, "status: want a JSON number, got a JSON string"},
		{"/_fake/faults", `{"status":500,"colour":"red"}`, `unknown field "colour"`},
		{"/_fake/faults", `{"status":500,`, "the JSON ends too early"},
		{"/_fake/faults", `{"status":5x}`, "not valid JSON at byte"},
		{"/_fake/clock", `[]`, "want a JSON object, got a JSON array"},
		{"/_fake/faults", `{"status":500,"path":"[oops"}`, `path: "[oops" is not a valid pattern: * matches`},
	} {
		r := p.admin(http.MethodPost, tc.path, tc.body)
		assertAdminError(t, r, http.StatusBadRequest, "invalid_request")
		msg := r.json(t)["message"].(string)
		assert.Contains(t, msg, tc.want, tc.body)
		for _, goWord := range []string{"Go struct", "main.", "json: ", "path.Match", "unmarshal"} {
			assert.NotContains(t, msg, goWord, tc.body)
		}
	}
}
