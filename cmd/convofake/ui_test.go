package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uiClock is the frozen clock of the page's tests. The page's browser
// tests, which need Chromium and chromedp, are in the test module
// internal/wiretest (convofake_ui_test.go), so that this module does not
// require chromedp; these check what needs no browser.
const uiClock = "frozen:2026-11-22T10:00:00Z"

// conversationOf returns the id of the default company's conversation
// whose contact has that name.
func conversationOf(t *testing.T, p *proc, name string) string {
	t.Helper()
	return testkit.ConversationOf(t, p.admin, name)
}

// TestUIAccess: the admin API answers 401 without the token on every path
// but the page's files, which hold no data; a foreign Host is refused.
func TestUIAccess(t *testing.T) {
	p := start(t)
	info := p.admin(http.MethodGet, "/_fake/", "").JSON(t)
	for _, ep := range info["endpoints"].([]any) {
		method, path, _ := strings.Cut(ep.(string), " ")
		path = strings.NewReplacer("{id}", "1").Replace(path)
		want := http.StatusUnauthorized
		if strings.HasPrefix(path, uiPrefix) {
			want = http.StatusOK
		}
		assert.Equal(t, want, p.do(method, path, "", "").Status, "%s without the token", ep)
	}
	for _, tc := range []struct {
		host string
		want int
	}{
		{"evil.example", http.StatusForbidden},
		{"evil.example:" + strings.Split(p.addr, ":")[1], http.StatusForbidden},
		{"localhost", http.StatusOK},
		{"127.0.0.1", http.StatusOK},
		{p.addr, http.StatusOK},
	} {
		for _, path := range []string{"/_fake/clock", uiPrefix} {
			assert.Equal(t, tc.want, withHost(t, p, path, tc.host), "Host %s on %s", tc.host, path)
		}
	}
	assert.Equal(t, p.base+"/_fake/ui/#token="+testAdminToken, p.printed()["CONVOFAKE_UI_URL"], "the printed page address")

	own := start(t, "--admin-addr", "127.0.0.1:0")
	adminURL := own.printed()["CONVOFAKE_ADMIN_URL"]
	assert.Equal(t, adminURL+"/ui/#token="+testAdminToken, own.printed()["CONVOFAKE_UI_URL"])
	assert.Equal(t, http.StatusNotFound, own.do(http.MethodGet, uiPrefix, "", "").Status, "not on the API's listener")
	resp, err := own.client.Get(strings.TrimSuffix(adminURL, "/_fake") + uiPrefix)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "on the admin listener")
}

// TestUIFiles: the page's files, without the token, with a strict policy.
func TestUIFiles(t *testing.T) {
	p := start(t)
	for _, tc := range []struct {
		method, path string
		status       int
		contentType  string
	}{
		{http.MethodGet, uiPrefix, http.StatusOK, "text/html; charset=utf-8"},
		{http.MethodGet, uiPrefix + "app.js", http.StatusOK, "text/javascript; charset=utf-8"},
		{http.MethodGet, uiPrefix + "app.css", http.StatusOK, "text/css; charset=utf-8"},
		{http.MethodHead, uiPrefix, http.StatusOK, "text/html; charset=utf-8"},
		{http.MethodGet, uiPrefix + "nope.js", http.StatusNotFound, ""},
		{http.MethodPost, uiPrefix, http.StatusMethodNotAllowed, "application/json"},
	} {
		r := p.do(tc.method, tc.path, "", "")
		assert.Equal(t, tc.status, r.Status, "%s %s", tc.method, tc.path)
		if tc.contentType != "" {
			assert.Equal(t, tc.contentType, r.Header.Get("Content-Type"), "%s %s", tc.method, tc.path)
		}
		if tc.status == http.StatusOK {
			assert.Contains(t, r.Header.Get("Content-Security-Policy"), "default-src 'self'")
			assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(p.base + "/_fake/ui")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	assert.Equal(t, uiPrefix, resp.Header.Get("Location"))
}

// withHost sends GET path with the admin token and that Host header.
func withHost(t *testing.T, p *proc, path, host string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.base+path, nil)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := p.client.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}
