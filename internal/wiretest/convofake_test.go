package wiretest

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// The tests here drive convofake as a user does, as a process: this module
// cannot reach into its package main.
const (
	testAdminToken = "test-admin-token-6f1d2c" // the admin token of the servers the tests start
	// safetyTimeout bounds every wait on the server (start, stop): it is a
	// guard against a hung test, never a timing assertion.
	safetyTimeout = 20 * time.Second
	uiPrefix      = "/_fake/ui/" // where convofake serves its page
)

// binDir holds the convofake binary the tests build, once per process.
var binDir string

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "wiretest-convofake-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// convofake builds cmd/convofake of the core in this repository (with the
// race detector when the tests have it), once.
var convofake = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "convofake")
	args := []string{"build", "-o", bin}
	if raceOn {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/convoapi/convo-go/cmd/convofake")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of convofake: %v\n%s", err, out)
	}
	return bin, nil
})

// proc is a convofake process on a random loopback port.
type proc struct {
	t      *testing.T
	addr   string // 127.0.0.1:port
	base   string // http://127.0.0.1:port
	stdout *testkit.Buffer
	stderr *testkit.Buffer
	client *http.Client // validates every exchange against the document
}

// start runs convofake with args after --addr 127.0.0.1:0 and the test
// admin token, waits until it has printed what to use, and stops it with
// an interrupt (asserting exit code 0) at the end of the test.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	bin, err := convofake()
	require.NoError(t, err)
	p := &proc{t: t, stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}}
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--admin-token", testAdminToken}, args...)...)
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.client.CloseIdleConnections()
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			assert.NoError(t, err, "convofake's exit after an interrupt; stderr:\n%s", p.stderr.String())
		case <-time.After(safetyTimeout):
			_ = cmd.Process.Kill()
			t.Error("convofake did not stop after an interrupt")
		}
	})
	p.client = &http.Client{Timeout: safetyTimeout, Transport: oascheck.Transport(t, &http.Transport{})}
	if !p.stdout.WaitFor("# try: ", safetyTimeout) { // the last line it prints once it listens
		t.Fatalf("convofake did not start; stderr:\n%s", p.stderr.String())
	}
	u, err := url.Parse(p.printed()["CONVO_BASE_URL"])
	require.NoError(t, err)
	p.addr, p.base = u.Host, u.Scheme+"://"+u.Host
	return p
}

// printed returns the NAME=value lines printed on stdout at start.
func (p *proc) printed() map[string]string { return testkit.Printed(p.stdout.String()) }

// do sends a request to the server; auth is the whole Authorization value
// ("" for none).
func (p *proc) do(method, path, auth, body string) answer {
	p.t.Helper()
	return testkit.Send(p.t, p.client, method, p.base+path, auth, body)
}

// api calls the fake's API with an API key.
func (p *proc) api(path, key string) answer {
	p.t.Helper()
	return p.do(http.MethodGet, path, "Bearer "+key, "")
}

// admin calls the admin API with the admin token.
func (p *proc) admin(method, path, body string) answer {
	p.t.Helper()
	return p.do(method, path, "Bearer "+testAdminToken, body)
}

func fakeAPIKey(p *proc) string { return p.printed()["CONVO_API_KEY"] }

// conversationOf returns the id of the default company's conversation
// whose contact has that name.
func conversationOf(t *testing.T, p *proc, name string) string {
	t.Helper()
	return testkit.ConversationOf(t, p.admin, name)
}

// inboxItems reads GET /_fake/state/conversations with the query: the
// items by "contact name/status".
func inboxItems(t *testing.T, p *proc, query string) map[string]map[string]any {
	t.Helper()
	return testkit.InboxItems(t, p.admin, query)
}

// anomalyCount returns data.buckets.unanswered.count.
func anomalyCount(t *testing.T, p *proc, key string) float64 {
	t.Helper()
	return testkit.UnansweredCount(t, p.api, key)
}

// The ids and key of cmd/convofake/testdata/seed.json.
const (
	seedKey = "seed-key"
	convID  = "f0000000-0000-4000-8000-000000000001"
)

// startSeeded starts convofake on a frozen clock, then replaces the data
// through the admin API with cmd/convofake/testdata/seed.json.
func startSeeded(t *testing.T, args ...string) *proc {
	t.Helper()
	p := start(t, append([]string{"--clock", "frozen"}, args...)...)
	seed, err := os.ReadFile(filepath.Join(coreDir, "cmd", "convofake", "testdata", "seed.json"))
	require.NoError(t, err)
	r := p.admin(http.MethodPost, "/_fake/seed", string(seed))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, true, r.JSON(t)["api_key_changed"], "the seed's key replaced the demo key")
	return p
}
