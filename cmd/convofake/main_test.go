package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runMainEnv, set to 1, makes this test binary run convofake's main with
// its arguments instead of the tests: the benchmarks start convofake as a
// process of its own with it (startProcess).
const runMainEnv = "CONVOFAKE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

func TestRandomAdminTokenIsPrinted(t *testing.T) {
	p := startArgs(t, "--addr", "127.0.0.1:0")
	token := p.printed()["CONVOFAKE_ADMIN_TOKEN"]
	assert.Len(t, token, 48)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/_fake/clock", "Bearer "+token, "").Status)
	p.client.CloseIdleConnections()
	assert.Equal(t, exitOK, p.stop())
	assert.NotContains(t, p.stderr.String(), token, "the admin token is never logged")
}

// The Date header states the fake's time, as the envelope's timestamp does:
// on a frozen clock years away from the machine's, a client measuring a
// Retry-After date against it waits what the service meant.
func TestDateHeaderIsTheFakesClock(t *testing.T) {
	for _, at := range []string{"2001-01-01T09:00:00Z", "2099-12-31T23:00:00Z"} {
		t.Run(at, func(t *testing.T) {
			p := start(t, "--clock", "frozen:"+at)
			want, err := time.Parse(time.RFC3339, at)
			require.NoError(t, err)
			for _, path := range []string{"/v1/channels", "/v1/no-such-path"} {
				r := p.api(path, p.printed()["CONVO_API_KEY"])
				date, err := http.ParseTime(r.Header.Get("Date"))
				require.NoError(t, err, path)
				assert.True(t, want.Equal(date), "%s: Date %s, the fake's clock %s", path, date, want)
				assert.Equal(t, at[:19]+".000Z", r.JSON(t)["timestamp"], path)
			}
		})
	}
}

func TestRequestLogNeverShowsSecretsOrQueries(t *testing.T) {
	p := start(t, "--api-key", "very-secret-key")
	assert.Equal(t, http.StatusOK, p.api("/v1/conversations?phone=%2B5511987654321&status=all", "very-secret-key").Status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/v1/channels", "", "", "x-api-key", "very-secret-key").Status)
	assert.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake/clock", "").Status)
	assert.Equal(t, http.StatusUnauthorized, p.do(http.MethodGet, "/_fake/clock", "Bearer nope", "").Status)

	for _, line := range []string{
		"msg=request method=GET path=/v1/conversations status=200 duration=",
		"msg=request method=GET path=/v1/channels status=200 duration=",
		"msg=request method=GET path=/_fake/clock status=200 duration=",
		"msg=request method=GET path=/_fake/clock status=401 duration=",
	} {
		assert.True(t, p.stderr.WaitFor(line, safetyTimeout), "%s in:\n%s", line, p.stderr.String())
	}
	logs := p.stderr.String()
	for _, secret := range []string{"very-secret-key", testAdminToken, "5511987654321", "status=all", "phone"} {
		assert.NotContains(t, logs, secret)
	}
}

func TestJSONLogFormat(t *testing.T) {
	p := start(t, "--log-format", "json")
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "fake-api-key").Status)
	require.True(t, p.stderr.WaitFor(`"path":"/v1/channels"`, safetyTimeout), p.stderr.String())
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
