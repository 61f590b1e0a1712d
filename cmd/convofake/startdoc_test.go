package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startDoc is a seed document as a save writes one (every id and time
// given), with a now, a key on its first company and a second company.
const startDoc = `{"now":"2026-11-22T10:00:00Z","companies":[
 {"id":"d0000000-0000-4000-8000-000000000001","api_key":"doc-key",
  "channels":[{"id":"a0000000-0000-4000-8000-000000000001","channel":"chatapp","display_name":"Support","provider_identifier":"5511940000001"}],
  "contacts":[{"id":"c0000000-0000-4000-8000-000000000001","channel":"a0000000-0000-4000-8000-000000000001","phone":"5511900000001","name":"Ana","created_at":"2026-11-22T08:00:00Z"}],
  "conversations":[{"id":"f0000000-0000-4000-8000-000000000001","contact":"c0000000-0000-4000-8000-000000000001","created_at":"2026-11-22T08:00:00Z",
   "messages":[{"id":"e0000000-0000-4000-8000-000000000001","sender":"contact","text":"hi","at":"2026-11-22T09:00:00Z"}]}]},
 {"id":"d0000000-0000-4000-8000-000000000002","api_key":"second-key",
  "channels":[{"id":"a0000000-0000-4000-8000-000000000002","channel":"botapp","display_name":"Bot"}]}]}`

// Reset brings back what a start from a file loaded, the changes the
// flags made to it included: the server keeps the file's document and
// makes them again (fake.WithSeedDocument), where it once kept a copy it
// encoded from the seed as changed.
func TestResetBringsBackTheStartFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flags  []string
		key    string
		now    string // the clock after the reset; "" for a real clock
		asSeed bool   // --seed FILE, not --state FILE
	}{
		{"state", nil, "doc-key", "2026-11-22T10:00:00.000Z", false},
		{"state, --clock real", []string{"--clock", "real"}, "doc-key", "", false},
		{"state, --api-key, --clock frozen", []string{"--api-key", "flag-key", "--clock", "frozen:2030-01-02T03:04:05Z"}, "flag-key", "2030-01-02T03:04:05.000Z", false},
		{"seed, --api-key", []string{"--api-key", "flag-key"}, "flag-key", "2026-11-22T10:00:00.000Z", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "start.json")
			require.NoError(t, os.WriteFile(path, []byte(startDoc), 0o600))
			from := "--state"
			if tc.asSeed {
				from = "--seed"
			}
			p := start(t, append([]string{from, path}, tc.flags...)...)
			want := exported(t, p)

			for _, body := range []string{`{"empty":true}`, ""} {
				require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/reset", body).Status)
			}
			assert.Equal(t, want, exported(t, p), "the server as it started")
			assert.Equal(t, http.StatusOK, p.api("/v1/channels", tc.key).Status)
			clock := p.admin(http.MethodGet, "/_fake/clock", "").JSON(t)
			assert.Equal(t, tc.now != "", clock["frozen"])
			if tc.now != "" {
				assert.Equal(t, tc.now, clock["now"])
			}

			// Each company goes back to its part of the file.
			for _, co := range want["companies"].([]any) {
				id := co.(map[string]any)["id"].(string)
				for _, body := range []string{`{"empty":true}`, ""} {
					r := p.admin(http.MethodPost, "/_fake/reset?company="+id, body)
					require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
				}
			}
			assert.Equal(t, want, exported(t, p), "each company as it started")
		})
	}
}

// exported is GET /_fake/seed without its now, which a real clock moves.
func exported(t *testing.T, p *proc) map[string]any {
	t.Helper()
	r := p.admin(http.MethodGet, "/_fake/seed", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var v map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &v))
	delete(v, "now")
	return v
}
