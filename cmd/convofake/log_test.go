package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequestLogNeverShowsSecretsOrQueries(t *testing.T) {
	p := start(t, "--api-key", "very-secret-key")
	assert.Equal(t, http.StatusOK, p.api("/v1/conversations?phone=%2B5511987654321&status=all", "very-secret-key").status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/v1/channels", "", "", "x-api-key", "very-secret-key").status)
	assert.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake/clock", "").status)
	assert.Equal(t, http.StatusUnauthorized, p.do(http.MethodGet, "/_fake/clock", "Bearer nope", "").status)

	for _, line := range []string{
		"msg=request method=GET path=/v1/conversations status=200 duration=",
		"msg=request method=GET path=/v1/channels status=200 duration=",
		"msg=request method=GET path=/_fake/clock status=200 duration=",
		"msg=request method=GET path=/_fake/clock status=401 duration=",
	} {
		assert.True(t, p.stderr.waitFor(line), "%s in:\n%s", line, p.stderr.String())
	}
	logs := p.stderr.String()
	for _, secret := range []string{"very-secret-key", testAdminToken, "5511987654321", "status=all", "phone"} {
		assert.NotContains(t, logs, secret)
	}
}

func TestJSONLogFormat(t *testing.T) {
	p := start(t, "--log-format", "json")
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "fake-api-key").status)
	require.True(t, p.stderr.waitFor(`"path":"/v1/channels"`), p.stderr.String())
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["msg"] == "request" {
			found = true
			assert.Equal(t, "GET", m["method"])
			assert.Equal(t, "/v1/channels", m["path"])
			assert.Equal(t, float64(200), m["status"])
			assert.Contains(t, m, "duration")
		}
	}
	assert.True(t, found, "a request line")
}
