package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.Equal(t, http.StatusOK, first.status, "%s", first.body)
		seed := first.json(t)
		assert.NotEmpty(t, seed["now"], "%v: a frozen clock's now", args)
		r := p.admin(http.MethodPost, "/_fake/seed", string(first.body))
		require.Equal(t, http.StatusOK, r.status, "%v: %s", args, r.body)
		assert.Equal(t, false, r.json(t)["api_key_changed"])
		again := p.admin(http.MethodGet, "/_fake/state/seed", "")
		assert.JSONEq(t, string(first.body), string(again.body), "%v", args)
	}
}

func TestAdminExportSeedRealClock(t *testing.T) {
	p := start(t, "--clock", "real")
	seed := p.admin(http.MethodGet, "/_fake/state/seed", "").json(t)
	assert.NotContains(t, seed, "now", "a real clock has no now to export")
	companies := seed["companies"].([]any)
	require.Len(t, companies, 1)
	co := companies[0].(map[string]any)
	assert.Len(t, co["channels"], 4, "three accounts and the webchat widget")
	assert.Len(t, co["conversations"], 11, "every conversation, the one without messages included")
}
