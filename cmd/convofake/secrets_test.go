package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The API key and the admin token come from their flag, else their file,
// else their environment variable; a file's surrounding spaces and newline
// go.
func TestSecretsFromFlagFileOrEnvironment(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	keyFile, tokenFile := write("key", "file-key\n"), write("token", "  file-token \n")
	for _, tc := range []struct {
		name             string
		env              map[string]string
		args             []string
		key, keyFrom     string
		token, tokenFrom string
	}{
		{"nothing", nil, nil, "", "", "", ""},
		{"environment", map[string]string{envAPIKey: "env-key", envAdminToken: "env-token"}, nil,
			"env-key", "$" + envAPIKey, "env-token", "$" + envAdminToken},
		{"files", map[string]string{envAPIKey: "env-key"}, []string{"--api-key-file", keyFile, "--admin-token-file", tokenFile},
			"file-key", "--api-key-file " + keyFile, "file-token", "--admin-token-file " + tokenFile},
		{"flags win over the environment", map[string]string{envAPIKey: "env-key", envAdminToken: "env-token"},
			[]string{"--api-key", "flag-key", "--admin-token", "flag-token"}, "flag-key", "", "flag-token", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envAPIKey, tc.env[envAPIKey])
			t.Setenv(envAdminToken, tc.env[envAdminToken])
			cfg, err := parseFlags(tc.args, io.Discard)
			require.NoError(t, err)
			assert.Equal(t, tc.key, cfg.apiKey)
			assert.Equal(t, tc.key != "", cfg.apiKeySet)
			assert.Equal(t, tc.keyFrom, cfg.apiKeyFrom)
			assert.Equal(t, tc.token, cfg.adminToken)
			assert.Equal(t, tc.tokenFrom, cfg.adminTokenFrom)
		})
	}
}

func TestSecretFileErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n \n"), 0o600))
	two := filepath.Join(dir, "two")
	require.NoError(t, os.WriteFile(two, []byte("a\nb\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--api-key", "k", "--api-key-file", two}, "--api-key and --api-key-file: give one"},
		{[]string{"--admin-token", "k", "--admin-token-file", two}, "--admin-token and --admin-token-file: give one"},
		{[]string{"--api-key-file", empty}, "the file is empty"},
		{[]string{"--api-key-file", two}, "more than one line"},
		{[]string{"--admin-token-file", filepath.Join(dir, "missing")}, "--admin-token-file: open"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stderr := runOnce(t, append([]string{"--addr", "127.0.0.1:0"}, tc.args...)...)
			assert.Equal(t, exitNoStart, code)
			assert.Contains(t, stderr, tc.want)
			assert.NotContains(t, stderr, "a\nb", "a secret file's content is never printed")
		})
	}
}

// A secret given in the environment works and is not echoed at start (the
// caller has it already; stdout often lands in a CI log).
func TestSecretsFromTheEnvironmentAreNotPrinted(t *testing.T) {
	t.Setenv(envAPIKey, "env-key-8c1f")
	t.Setenv(envAdminToken, "env-token-77d2")
	p := startArgs(t, "--addr", "127.0.0.1:0")
	assert.NotContains(t, p.stdout.String(), "env-key-8c1f")
	assert.NotContains(t, p.stdout.String(), "env-token-77d2")
	assert.Contains(t, p.stdout.String(), "# CONVO_API_KEY: the key of $CONVOFAKE_API_KEY (not printed)")
	assert.Contains(t, p.stdout.String(), "# CONVOFAKE_ADMIN_TOKEN: the token of $CONVOFAKE_ADMIN_TOKEN (not printed)")
	assert.Contains(t, p.stdout.String(), "\n# it was in convofake's environment (a shell that sourced an earlier output of convofake has it): "+
		"a shell that sources this output needs the same value, or unset CONVOFAKE_ADMIN_TOKEN and restart convofake", "why a sourced output may lack the token")
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "env-key-8c1f").Status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/_fake/clock", "Bearer env-token-77d2", "").Status)
	p.client.CloseIdleConnections()
	assert.Equal(t, exitOK, p.stop())
	assert.NotContains(t, p.stderr.String(), "env-key-8c1f")
}
