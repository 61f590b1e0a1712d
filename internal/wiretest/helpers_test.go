package wiretest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// The core module's directories, from this one (the tests run in it).
const (
	coreDir = "../.."
	fakeDir = "../../fake"
)

// t0 is the manual clock's start in the fake's tests.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newServer starts a fake on a manual clock whose every exchange is
// validated against the document.
func newServer(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	return fake.New(t, append([]fake.Option{fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(oascheck.Middleware(t))}, opts...)...)
}

// answer is an answer read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.body, &m), "body: %s", a.body)
	return m
}

// get sends GET /v1+path to the fake with its API key.
func get(t *testing.T, s *fake.Server, path string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL()+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.APIKey())
	return do(t, s.HTTPClient(), req)
}

// do sends req with c and reads the answer.
func do(t *testing.T, c *http.Client, req *http.Request) answer {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

// send is do of a new request: auth is the whole Authorization value ("" for
// none), a body is sent as application/json.
func send(t *testing.T, c *http.Client, method, url, auth, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(t, c, req)
}
