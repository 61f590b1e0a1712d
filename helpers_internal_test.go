package convo

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/testkit"
)

// testKey is distinctive so that any leak into an error or a log is caught.
const testKey = "sk_test_SECRET_7f3a9c1e5b"

const mockBase = "https://api.convo.test/v1"

type mockEnv struct {
	c    *Client
	mock *httpmock.MockTransport
	logs *testkit.Buffer
}

// newMock builds a client whose retrying client's inner transport is an
// httpmock transport. Every attempt is logged at debug level into logs, and a
// cleanup asserts that the key never reached the log.
func newMock(t *testing.T, opts ...Option) *mockEnv {
	t.Helper()
	mock := httpmock.NewMockTransport()
	logs := &testkit.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	base := []Option{
		WithAPIKey(testKey),
		WithBaseURL(mockBase),
		WithHTTPClient(&http.Client{Transport: testkit.RequestTransport(t, mock)}),
		WithLogger(logger),
	}
	c, err := NewClient(append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NotContains(t, logs.String(), testKey, "the API key leaked into the log")
	})
	return &mockEnv{c: c, mock: mock, logs: logs}
}

// assertNoKey checks that an error's text never carries the API key.
func assertNoKey(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		assert.NotContains(t, err.Error(), testKey, "the API key leaked into an error")
		assert.NotContains(t, fmt.Sprintf("%+v", err), testKey)
	}
}

// errJSON is an error body (ErrorEnvelope of api/openapi.yaml).
func errJSON(status int, code, msg string) string {
	return fmt.Sprintf(`{"success":false,"statusCode":%d,"timestamp":"2026-11-22T10:04:05.123Z",`+
		`"path":"/api/v1/conversations","method":"GET","message":{"error":%q,"message":%q},"errorId":"ERR-K3J9X2QA-7ZP1"}`,
		status, code, msg)
}

// okJSON wraps data in the success envelope.
func okJSON(data string) string {
	return `{"success":true,"data":` + data + `,"timestamp":"2026-11-22T10:04:05.123Z"}`
}

// responder answers with the given status, body and headers.
func responder(status int, body string, headers ...string) httpmock.Responder {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	return httpmock.NewStringResponder(status, body).HeaderSet(h)
}

// sequence answers with each responder in turn, repeating the last one.
func sequence(rs ...httpmock.Responder) httpmock.Responder {
	var mu sync.Mutex
	i := 0
	return func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		r := rs[min(i, len(rs)-1)]
		i++
		mu.Unlock()
		return r(req)
	}
}
