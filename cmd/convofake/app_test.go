package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every start error exits 2 and says what to try, in flag terms; a seed file
// that is not JSON, missing or faulty is named, with the place of the fault.
func TestStartErrorsExit2WithAHint(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	dup := filepath.Join(t.TempDir(), "dup.json")
	require.NoError(t, os.WriteFile(dup, []byte(`{"companies":[{"api_key":"twin-key-1"},{"api_key":"twin-key-1"}]}`), 0o600))
	other := filepath.Join(t.TempDir(), "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"companies":[{"api_key":"first-key"},{"api_key":"twin-key-1"}]}`), 0o600))
	syntax := filepath.Join(t.TempDir(), "syntax.json")
	require.NoError(t, os.WriteFile(syntax, []byte("{\n  \"companies\": [\n    {\"api_key\": }\n  ]\n}\n"), 0o600))
	missing := filepath.Join(t.TempDir(), "missing.json")

	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		notWant string
	}{
		{"port in use", []string{"--addr", taken.Addr().String()},
			[]string{"--addr " + taken.Addr().String(), "address already in use", "try --addr 127.0.0.1:0"}, ""},
		{"admin port in use", []string{"--addr", "127.0.0.1:0", "--admin-addr", taken.Addr().String()},
			[]string{"--admin-addr", "try --admin-addr 127.0.0.1:0"}, ""},
		{"not host:port", []string{"--addr", "nonsense"}, []string{"--addr nonsense", "give host:port"}, ""},
		{"seed not JSON", []string{"--addr", "127.0.0.1:0", "--seed", syntax}, []string{syntax, "line 3"}, ""},
		{"seed missing", []string{"--addr", "127.0.0.1:0", "--seed", missing}, []string{missing}, ""},
		{"bad seed", []string{"--addr", "127.0.0.1:0", "--seed", "testdata/bad-seed.json"},
			[]string{"testdata/bad-seed.json", "companies[0].conversations[0].messages[0]", `unknown sender "martian"`}, ""},
		{"seed keys shared", []string{"--addr", "127.0.0.1:0", "--seed", dup},
			[]string{"companies[1].api_key: the same API key as companies[0]"}, "twin-key-1"},
		{"--api-key taken by another company", []string{"--addr", "127.0.0.1:0", "--seed", other, "--api-key", "twin-key-1"},
			[]string{"companies[1].api_key: the same API key as companies[0]"}, "twin-key-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runOnce(t, tc.args...)
			assert.Equal(t, exitNoStart, code, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			if tc.notWant != "" {
				assert.NotContains(t, stderr, tc.notWant, "a key is never printed")
			}
		})
	}
}

// With the admin API off (a container's --addr :8080), the API answers and
// /_fake/ says how to turn the admin API on, token or not. No listener:
// the handlers run in memory.
func TestAdminOffBeyondLoopback(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	a := &app{cfg: &config{addr: ":8080"}, logger: logger, srv: srv, place: adminOff,
		adm: newAdmin(srv, testAdminToken, logger)}
	api, adminOnly := a.handlers()
	assert.Nil(t, adminOnly)

	for _, auth := range []string{"", "Bearer " + testAdminToken} {
		r := serve(api, http.MethodGet, "/_fake/clock", auth)
		assertAdminError(t, r, http.StatusNotFound, "admin_not_served")
		assert.Contains(t, r.JSON(t)["message"], "--admin-addr 127.0.0.1:<port>")
		assert.Contains(t, r.JSON(t)["message"], "--admin-on-public")
	}
	assert.Equal(t, http.StatusOK, serve(api, http.MethodGet, "/v1/channels", "Bearer "+fake.DefaultAPIKey).Status, "the API is served")

	var out strings.Builder
	a.apiLn = stubListener{"[::]:8080"}
	a.printWhatToUse(&out)
	assert.Contains(t, out.String(), "CONVO_BASE_URL=http://127.0.0.1:8080/v1")
	assert.Contains(t, out.String(), "# admin API: off")
	assert.NotContains(t, out.String(), "CONVOFAKE_ADMIN_URL")
	assert.NotContains(t, out.String(), testAdminToken)
}

// stubListener is a net.Listener that only has an address.
type stubListener struct{ addr string }

func (l stubListener) Accept() (net.Conn, error) { return nil, io.EOF }

func (l stubListener) Close() error { return nil }

func (l stubListener) Addr() net.Addr {
	ta, _ := net.ResolveTCPAddr("tcp", l.addr)
	return ta
}

// --admin-addr: the admin API on its own listener, and only there.
func TestAdminOnItsOwnAddress(t *testing.T) {
	p := start(t, "--admin-addr", "127.0.0.1:0")
	adminURL := p.printed()["CONVOFAKE_ADMIN_URL"]
	require.NotEmpty(t, adminURL)
	assert.NotEqual(t, p.base+"/_fake", adminURL)
	assert.True(t, strings.HasPrefix(adminURL, "http://127.0.0.1:"), adminURL)

	get := func(url, auth string) response {
		// Not p.client, which validates: the admin-only address answers /v1 outside the API contract.
		return testkit.Send(t, http.DefaultClient, http.MethodGet, url, auth, "")
	}
	assert.Equal(t, http.StatusOK, get(adminURL+"/clock", "Bearer "+testAdminToken).Status)
	assertAdminError(t, get(p.base+"/_fake/clock", "Bearer "+testAdminToken), http.StatusNotFound, "admin_not_served")
	adminBase := strings.TrimSuffix(adminURL, "/_fake")
	assertAdminError(t, get(adminBase+"/v1/channels", "Bearer "+fake.DefaultAPIKey), http.StatusNotFound, "admin_not_served")
	assert.Equal(t, http.StatusOK, get(p.base+"/v1/channels", "Bearer "+fake.DefaultAPIKey).Status)
}

func TestStartWithDemoDataPrintsWhatToUse(t *testing.T) {
	p := start(t)
	env := p.printed()
	assert.Equal(t, p.base+"/v1", env["CONVO_BASE_URL"])
	assert.Equal(t, "fake-api-key", env["CONVO_API_KEY"])
	assert.Equal(t, p.base+"/_fake", env["CONVOFAKE_ADMIN_URL"])
	assert.Equal(t, testAdminToken, env["CONVOFAKE_ADMIN_TOKEN"])
	assert.Contains(t, p.stdout.String(), "# clock: real")

	r := p.api("/v1/channels", "fake-api-key")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	body := r.JSON(t)
	assert.Equal(t, true, body["success"])
	items := body["data"].(map[string]any)["items"].([]any)
	assert.NotEmpty(t, items, "the demo data has channel accounts")

	r = p.api("/v1/conversations?status=all", "fake-api-key")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.NotEmpty(t, r.JSON(t)["data"].(map[string]any)["items"], "the demo data has conversations")

	// The /api/v1 alias is served too.
	assert.Equal(t, http.StatusOK, p.api("/api/v1/channels", "fake-api-key").Status)
}

func TestShutdownOnContextCancelReturns0(t *testing.T) {
	p := start(t)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "fake-api-key").Status)
	p.client.CloseIdleConnections()
	assert.Equal(t, exitOK, p.stop())
	assert.Contains(t, p.stderr.String(), "shutting down")
	_, err := p.client.Get(p.base + "/v1/channels")
	assert.Error(t, err, "nothing listens after shutdown")
}

func TestAttachmentURLsPointAtTheListeningAddress(t *testing.T) {
	p := start(t, "--clock", "frozen")
	seed := `{"now":"2026-11-22T10:00:00Z","companies":[{"api_key":"k",
		"channels":[{"ref":"a","channel":"chatapp"}],
		"contacts":[{"ref":"c","channel":"a","phone":"5511987654321"}],
		"conversations":[{"contact":"c","messages":[{"id":"pic","sender":"contact","type":"document","ago":"1h",
			"media":{"status":"available","mime_type":"text/plain","filename":"note.txt","content":"hello"}}]}]}]}`
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", seed).Status)
	msg := p.admin(http.MethodGet, "/_fake/state/messages/pic", "").JSON(t)
	mediaID, _ := msg["media"].(map[string]any)["media_id"].(string)
	require.NotEmpty(t, mediaID, "%v", msg)

	r := p.api("/v1/attachments/"+mediaID, "k")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	data := r.JSON(t)["data"].(map[string]any)
	u := data["url"].(string)
	assert.True(t, strings.HasPrefix(u, p.base+"/_files/"), u)
	assert.Equal(t, "2026-11-22T10:15:00.000Z", data["expires_at"])

	file := p.do(http.MethodGet, strings.TrimPrefix(u, p.base), "", "")
	assert.Equal(t, http.StatusOK, file.Status)
	assert.Equal(t, "hello", string(file.Body))
	token := strings.TrimPrefix(u, p.base+"/_files/")
	assert.True(t, p.stderr.WaitFor("path=/_files/[REDACTED] status=200", safetyTimeout), p.stderr.String())
	assert.NotContains(t, p.stderr.String(), token, "the URL's token is not logged")
}
