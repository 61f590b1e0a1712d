package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// The exported seed loads back into the same state: exporting again gives
// the same document.
func TestAdminExportSeedRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"--clock", uiClock},
		{"--seed", "testdata/seed.json", "--api-key", seedKey},
	} {
		p := start(t, args...)
		first := p.admin(http.MethodGet, "/_fake/state/seed", "")
		require.Equal(t, http.StatusOK, first.Status, "%s", first.Body)
		seed := first.JSON(t)
		assert.NotEmpty(t, seed["now"], "%v: a frozen clock's now", args)
		r := p.admin(http.MethodPost, "/_fake/seed", string(first.Body))
		require.Equal(t, http.StatusOK, r.Status, "%v: %s", args, r.Body)
		assert.Equal(t, false, r.JSON(t)["api_key_changed"])
		again := p.admin(http.MethodGet, "/_fake/state/seed", "")
		assert.JSONEq(t, string(first.Body), string(again.Body), "%v", args)
	}
}

func TestAdminExportSeedRealClock(t *testing.T) {
	p := start(t, "--clock", "real")
	seed := p.admin(http.MethodGet, "/_fake/state/seed", "").JSON(t)
	assert.NotContains(t, seed, "now", "a real clock has no now to export")
	companies := seed["companies"].([]any)
	require.Len(t, companies, 1)
	co := companies[0].(map[string]any)
	assert.Len(t, co["channels"], 4, "three accounts and the webchat widget")
	assert.Len(t, co["conversations"], 11, "every conversation, the one without messages included")
}

// Through the binary: a convofake started from another's GET /_fake/seed
// answers the API reads as the first does (cursor signatures aside: each
// server signs its own).
func TestAdminExportSeedLoadsIntoANewServer(t *testing.T) {
	a := start(t, "--clock", uiClock)
	seed := a.admin(http.MethodGet, "/_fake/seed", "")
	require.Equal(t, http.StatusOK, seed.Status)
	path := filepath.Join(t.TempDir(), "export.json")
	require.NoError(t, os.WriteFile(path, seed.Body, 0o600))
	b := start(t, "--seed", path)

	sig := regexp.MustCompile(`("next_cursor":"[A-Za-z0-9_-]+)\.[A-Za-z0-9_-]+"`)
	same := func(path string) map[string]any {
		t.Helper()
		ra, rb := a.api(path, fake.DefaultAPIKey), b.api(path, fake.DefaultAPIKey)
		require.Equal(t, http.StatusOK, ra.Status, "%s: %s", path, ra.Body)
		assert.Equal(t, string(sig.ReplaceAll(ra.Body, []byte(`$1"`))), string(sig.ReplaceAll(rb.Body, []byte(`$1"`))), path)
		return ra.JSON(t)["data"].(map[string]any)
	}
	same("/v1/channels")
	same("/v1/conversations/anomalies?include=unassigned,automation_only")
	for _, item := range same("/v1/conversations?status=all&limit=100")["items"].([]any) {
		same("/v1/conversations/" + item.(map[string]any)["id"].(string) + "/messages?limit=100")
	}
}

// GET /_fake/seed answers compact JSON, like the state file; the other
// admin answers stay indented.
func TestAdminExportSeedIsCompact(t *testing.T) {
	p := start(t, "--clock", uiClock)
	for _, path := range []string{"/_fake/seed", "/_fake/state/seed"} {
		r := p.admin(http.MethodGet, path, "")
		require.Equal(t, http.StatusOK, r.Status)
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, r.Body))
		assert.Equal(t, compact.String()+"\n", string(r.Body), path)
	}
	assert.Contains(t, string(p.admin(http.MethodGet, "/_fake/clock", "").Body), "\n  \"", "other answers are indented")
}
