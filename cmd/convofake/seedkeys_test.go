package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			company := p.admin(http.MethodGet, "/_fake/", "").JSON(t)["company_id"].(string)
			r := p.admin(http.MethodPost, "/_fake/seed", tc.seed)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			body := r.JSON(t)
			assert.Equal(t, tc.changed, body["api_key_changed"])
			assert.NotContains(t, string(r.Body), "brand-new-key", "the answer never shows a key")
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", tc.key).Status)
			if !tc.changed {
				assert.NotContains(t, body, "notice")
				assert.NotContains(t, p.stderr.String(), "API key of the default company changed")
				return
			}
			notice := body["notice"].(string)
			for _, want := range []string{"companies[0].api_key", company, "CONVO_API_KEY", "401", "POST /_fake/reset"} {
				assert.Contains(t, notice, want)
			}
			assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", fake.DefaultAPIKey).Status)
			line := "seed: the API key of the default company changed"
			require.True(t, p.stderr.WaitFor(line, safetyTimeout), p.stderr.String())
			assert.Contains(t, p.stderr.String(), "company="+company)
			assert.NotContains(t, p.stderr.String(), "brand-new-key", "the log never shows a key")

			// Reset brings the start key back, and says so.
			r = p.admin(http.MethodPost, "/_fake/reset", "")
			assert.Equal(t, true, r.JSON(t)["api_key_changed"])
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).Status)
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
			assert.Contains(t, r.JSON(t)["message"], tc.want)
			for _, key := range []string{"secret-twin", fake.DefaultAPIKey, "b-key"} {
				assert.NotContains(t, string(r.Body), key)
			}
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", fake.DefaultAPIKey).Status, "nothing changed")
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

// Which key the server starts with, and what it says about it.
func TestAPIKeyPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    string
		comment bool // "# api key: companies[0].api_key of --seed ..."
	}{
		{"default", nil, fake.DefaultAPIKey, false},
		{"flag", []string{"--api-key", "flag-key"}, "flag-key", false},
		{"seed", []string{"--seed", "testdata/seed.json"}, seedKey, true},
		{"flag wins over seed", []string{"--seed", "testdata/seed.json", "--api-key", "flag-key"}, "flag-key", false},
		{"flag equal to the default still wins", []string{"--seed", "testdata/seed.json", "--api-key", fake.DefaultAPIKey}, fake.DefaultAPIKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.args...)
			assert.Equal(t, tc.want, p.printed()["CONVO_API_KEY"])
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", tc.want).Status)
			assert.Equal(t, tc.comment, strings.Contains(p.stdout.String(), "# api key: companies[0].api_key of --seed testdata/seed.json (--api-key overrides it)"))
			assert.NotContains(t, p.stderr.String(), tc.want, "the log never shows a key")
		})
	}
}
