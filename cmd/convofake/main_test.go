package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/oascheck"
)

// testAdminToken is the admin token of the servers the tests start.
const testAdminToken = "test-admin-token-6f1d2c"

// seedKey is the API key of testdata/seed.json.
const seedKey = "seed-key"

// safetyTimeout bounds every wait on the server (start, stop): it is a
// guard against a hung test, never a timing assertion.
const safetyTimeout = 20 * time.Second

// syncBuffer is an io.Writer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and replaced) at each write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor waits, without polling, until the buffer contains sub or the
// safety timeout passes; it reports whether sub appeared.
func (s *syncBuffer) waitFor(sub string) bool {
	deadline := time.After(safetyTimeout)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), sub) {
			s.mu.Unlock()
			return true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a convofake started by run() on a random loopback port.
type proc struct {
	t      *testing.T
	addr   string // 127.0.0.1:port
	base   string // http://127.0.0.1:port
	stdout *syncBuffer
	stderr *syncBuffer
	client *http.Client
	cancel context.CancelFunc
	done   chan int
}

// start runs convofake with args after --addr 127.0.0.1:0 and the test admin
// token, waits until it listens, and stops it (asserting exit code 0) at the
// end of the test.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{t: t, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	all := append([]string{"--addr", "127.0.0.1:0", "--admin-token", testAdminToken}, args...)
	ready := make(chan string, 1)
	go func() { p.done <- run(ctx, all, p.stdout, p.stderr, func(addr string) { ready <- addr }) }()
	select {
	case p.addr = <-ready:
	case code := <-p.done:
		cancel()
		t.Fatalf("convofake exited with %d before listening; stderr:\n%s", code, p.stderr.String())
	case <-time.After(safetyTimeout):
		cancel()
		t.Fatal("convofake did not start")
	}
	p.base = "http://" + p.addr
	p.client = &http.Client{Timeout: safetyTimeout, Transport: oascheck.Transport(t, &http.Transport{})}
	t.Cleanup(func() {
		p.client.CloseIdleConnections()
		assert.Equal(t, exitOK, p.stop(), "exit code after cancel")
	})
	return p
}

// stop cancels the server's context and returns its exit code.
func (p *proc) stop() int {
	p.cancel()
	select {
	case code := <-p.done:
		p.done <- code // later calls see it too
		return code
	case <-time.After(safetyTimeout):
		p.t.Error("convofake did not stop after its context ended")
		return -1
	}
}

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

// do sends a request; auth is the whole Authorization value ("" for none).
func (p *proc) do(method, path, auth, body string, headers ...string) response {
	p.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.base+path, rd)
	require.NoError(p.t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := p.client.Do(req)
	require.NoError(p.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(p.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// api calls the fake's API with an API key.
func (p *proc) api(path, key string) response {
	p.t.Helper()
	return p.do(http.MethodGet, path, "Bearer "+key, "")
}

// admin calls the admin API with the admin token.
func (p *proc) admin(method, path, body string) response {
	p.t.Helper()
	return p.do(method, path, "Bearer "+testAdminToken, body)
}

// printed returns the NAME=value lines printed on stdout at start.
func (p *proc) printed() map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(p.stdout.String()))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

// runOnce runs convofake expecting it not to start; it returns the exit
// code and stderr.
func runOnce(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), safetyTimeout)
	defer cancel()
	code := run(ctx, args, &stdout, &stderr, func(addr string) {
		t.Errorf("convofake started on %s; it should have refused", addr)
		cancel()
	})
	return code, stderr.String()
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
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	body := r.json(t)
	assert.Equal(t, true, body["success"])
	items := body["data"].(map[string]any)["items"].([]any)
	assert.NotEmpty(t, items, "the demo data has channel accounts")

	r = p.api("/v1/conversations?status=all", "fake-api-key")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.NotEmpty(t, r.json(t)["data"].(map[string]any)["items"], "the demo data has conversations")

	// The /api/v1 alias is served too; a wrong key is 401.
	assert.Equal(t, http.StatusOK, p.api("/api/v1/channels", "fake-api-key").status)
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "wrong").status)
}

func TestRandomAdminTokenIsPrinted(t *testing.T) {
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0"}, &stdout, &stderr, func(a string) { ready <- a })
	}()
	var addr string
	select {
	case addr = <-ready:
	case <-time.After(safetyTimeout):
		t.Fatal("did not start")
	}
	p := &proc{t: t, stdout: &stdout}
	token := p.printed()["CONVOFAKE_ADMIN_TOKEN"]
	assert.Len(t, token, 48)

	client := &http.Client{Timeout: safetyTimeout, Transport: &http.Transport{}}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/_fake/clock", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	client.CloseIdleConnections()

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(safetyTimeout):
		t.Fatal("did not stop")
	}
	assert.NotContains(t, stderr.String(), token, "the admin token is never logged")
}

func TestSeedFileAndAPIKeyFlags(t *testing.T) {
	p := start(t, "--seed", "testdata/seed.json")
	assert.Equal(t, seedKey, p.printed()["CONVO_API_KEY"])
	assert.Contains(t, p.stdout.String(), "# clock: frozen at 2026-11-22T10:00:00.000Z", "a seed with now freezes the clock")
	r := p.api("/v1/conversations", seedKey)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.JSONEq(t, `{"success":true,"data":{"items":[{
		"id":"f0000000-0000-4000-8000-000000000001","contact_id":"c0000000-0000-4000-8000-000000000001",
		"channel":"chatapp","channel_account_id":"a0000000-0000-4000-8000-000000000001",
		"channel_identifier":"5511987654321","status":"open","assigned":false,"unread_count":2,
		"last_inbound_at":"2026-11-22T09:00:00.000Z","last_message_at":"2026-11-22T09:00:00.000Z",
		"created_at":"2026-11-22T08:00:00.000Z"}],"next_cursor":null},
		"timestamp":"2026-11-22T10:00:00.000Z"}`, string(r.body))

	q := start(t, "--seed", "testdata/seed.json", "--clock", "frozen:2027-01-02T03:04:05Z")
	clock := q.admin(http.MethodGet, "/_fake/clock", "")
	assert.JSONEq(t, `{"now":"2027-01-02T03:04:05.000Z","frozen":true}`, string(clock.body), "--clock overrides the seed's now")
}

// A seed file that is not JSON, or missing, exits 2 naming the file (a bad
// seed's field: TestStartErrorsExit2WithAHint).
func TestBadSeedFileExits2WithPathAndReason(t *testing.T) {
	syntax := filepath.Join(t.TempDir(), "syntax.json")
	require.NoError(t, os.WriteFile(syntax, []byte("{\n  \"companies\": [\n    {\"api_key\": }\n  ]\n}\n"), 0o600))
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--seed", syntax)
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, syntax)
	assert.Contains(t, stderr, "line 3")

	code, stderr = runOnce(t, "--addr", "127.0.0.1:0", "--seed", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "missing.json")
}

func TestShutdownOnContextCancelReturns0(t *testing.T) {
	p := start(t)
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", "fake-api-key").status)
	p.client.CloseIdleConnections()
	assert.Equal(t, exitOK, p.stop())
	assert.Contains(t, p.stderr.String(), "shutting down")
	_, err := p.client.Get(p.base + "/v1/channels")
	assert.Error(t, err, "nothing listens after shutdown")
}

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

func TestRateLimitFlag(t *testing.T) {
	// On a frozen clock the bucket never refills: the second call is 429.
	p := start(t, "--seed", "testdata/seed.json", "--rate-limit", "1")
	assert.Equal(t, http.StatusOK, p.api("/v1/channels", seedKey).status)
	r := p.api("/v1/channels", seedKey)
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "RATE_LIMITED", r.json(t)["message"].(map[string]any)["error"])

	q := start(t, "--seed", "testdata/seed.json", "--rate-limit", "0")
	for range 30 {
		require.Equal(t, http.StatusOK, q.api("/v1/channels", seedKey).status)
	}
}

// anomalyCount returns data.buckets.unanswered.count.
func anomalyCount(t *testing.T, p *proc, key string) float64 {
	t.Helper()
	r := p.api("/v1/conversations/anomalies", key)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	return r.json(t)["data"].(map[string]any)["buckets"].(map[string]any)["unanswered"].(map[string]any)["count"].(float64)
}

func TestAnomalyCacheFlag(t *testing.T) {
	// The contact wrote 3h59m ago: one minute short of the 4-hour threshold.
	seed := `{"now":"2026-11-22T10:00:00Z","companies":[{"api_key":"k",
		"channels":[{"ref":"a","channel":"chatapp"}],
		"contacts":[{"ref":"c","channel":"a","phone":"5511987654321"}],
		"conversations":[{"contact":"c","messages":[{"sender":"contact","text":"hi","ago":"3h59m"}]}]}]}`
	for _, tc := range []struct {
		flag string
		want float64 // after two minutes
	}{
		{"5m", 0},  // still the cached report
		{"0", 1},   // no cache
		{"90s", 1}, // expired
	} {
		t.Run(tc.flag, func(t *testing.T) {
			p := start(t, "--clock", "frozen", "--anomaly-cache", tc.flag)
			require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", seed).status)
			assert.Equal(t, float64(0), anomalyCount(t, p, "k"))
			require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/clock", `{"advance":"2m"}`).status)
			assert.Equal(t, tc.want, anomalyCount(t, p, "k"))
		})
	}
}

func TestAttachmentURLsPointAtTheListeningAddress(t *testing.T) {
	p := start(t, "--clock", "frozen")
	seed := `{"now":"2026-11-22T10:00:00Z","companies":[{"api_key":"k",
		"channels":[{"ref":"a","channel":"chatapp"}],
		"contacts":[{"ref":"c","channel":"a","phone":"5511987654321"}],
		"conversations":[{"contact":"c","messages":[{"id":"pic","sender":"contact","type":"document","ago":"1h",
			"media":{"status":"available","mime_type":"text/plain","filename":"note.txt","content":"hello"}}]}]}]}`
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/seed", seed).status)
	msg := p.admin(http.MethodGet, "/_fake/state/messages/pic", "").json(t)
	mediaID, _ := msg["media"].(map[string]any)["media_id"].(string)
	require.NotEmpty(t, mediaID, "%v", msg)

	r := p.api("/v1/attachments/"+mediaID, "k")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	data := r.json(t)["data"].(map[string]any)
	u := data["url"].(string)
	assert.True(t, strings.HasPrefix(u, p.base+"/_files/"), u)
	assert.Equal(t, "2026-11-22T10:15:00.000Z", data["expires_at"])

	file := p.do(http.MethodGet, strings.TrimPrefix(u, p.base), "", "")
	assert.Equal(t, http.StatusOK, file.status)
	assert.Equal(t, "hello", string(file.body))
	token := strings.TrimPrefix(u, p.base+"/_files/")
	assert.True(t, p.stderr.waitFor("path=/_files/[REDACTED] status=200"), p.stderr.String())
	assert.NotContains(t, p.stderr.String(), token, "the URL's token is not logged")
}
