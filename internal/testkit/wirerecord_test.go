package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cannedAnswer answers every request in memory with the same answer.
type cannedAnswer struct {
	status int
	body   string
}

func (c *cannedAnswer) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(c.body))}, nil
}

func canned(status int, body string) http.RoundTripper { return &cannedAnswer{status, body} }

// echo answers every request with its body, as JSON.
type echo struct{}

func (echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(b)
}

// Without CONVO_WIRE_RECORD, nothing is wrapped.
func TestOffWithoutTheVariable(t *testing.T) {
	t.Setenv(EnvDir, "")
	assert.Equal(t, echo{}, Middleware(t)(echo{}), "the handler as it is")
	next := canned(200, "{}")
	assert.Equal(t, next, Transport(t, next))
	assert.Equal(t, next, RequestTransport(t, next))
}

// Each side records the request and the answer as the code under test saw
// them, the test's name and the package's directory; the code under test
// reads the same bodies as without recording.
func TestRecordsEachSide(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	t.Run("sides", func(t *testing.T) {
		srv := httptest.NewServer(Middleware(t)(echo{}))
		defer srv.Close()
		resp, err := http.Post(srv.URL+"/v1/chatapp/contacts?x=1", "application/json", strings.NewReader(`{"name":"Ana"}`))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.JSONEq(t, `{"name":"Ana"}`, string(b), "the handler read the whole body")

		c := &http.Client{Transport: Transport(t, canned(200, `{"ok":true}`))}
		resp, err = c.Get("http://127.0.0.1:1/api/v1/channels")
		require.NoError(t, err)
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.JSONEq(t, `{"ok":true}`, string(b), "the caller reads the whole answer")

		c = &http.Client{Transport: RequestTransport(t, canned(500, `not the contract`))}
		resp, err = c.Get("http://127.0.0.1:1/v1/conversations")
		require.NoError(t, err)
		resp.Body.Close()

		resp, err = http.Get(srv.URL + "/_files/abc") // outside the API: bodies are left out
		require.NoError(t, err)
		resp.Body.Close()
	})
	records, err := Read(dir)
	require.NoError(t, err)
	require.Len(t, records, 4)
	for _, r := range records {
		assert.Equal(t, "internal/testkit", r.Package)
		assert.Equal(t, "TestRecordsEachSide/sides", r.Test)
		assert.True(t, r.Complete)
	}
	server, client, sdk, files := records[0], records[1], records[2], records[3]
	assert.Equal(t, Record{Package: "internal/testkit", Test: "TestRecordsEachSide/sides", Side: SideServer, Method: "POST",
		URL: "/v1/chatapp/contacts?x=1", Header: server.Header, Body: []byte(`{"name":"Ana"}`), Complete: true,
		Status: http.StatusCreated, AnswerHeader: server.AnswerHeader, Answer: []byte(`{"name":"Ana"}`), Answers: true}, server)
	assert.Equal(t, "application/json", server.Header.Get("Content-Type"))
	assert.Equal(t, "application/json", server.AnswerHeader.Get("Content-Type"))

	assert.Equal(t, SideClient, client.Side)
	assert.Equal(t, "http://127.0.0.1:1/api/v1/channels", client.URL)
	assert.Equal(t, 200, client.Status)
	assert.Equal(t, `{"ok":true}`, string(client.Answer))
	assert.True(t, client.Answers)

	assert.Equal(t, SideSDKRequests, sdk.Side)
	assert.Equal(t, 500, sdk.Status)
	assert.Empty(t, sdk.Answer, "a canned answer is not read")
	assert.False(t, sdk.Answers)

	assert.Equal(t, "/_files/abc", files.URL)
	assert.Empty(t, files.Answer, "outside the API")
}

// A connection a handler drops (it panics) is recorded with no answer.
func TestDroppedConnection(t *testing.T) {
	var got []Record
	h := Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }), func(r Record) { got = append(got, r) })
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/channels", nil))
	})
	require.Len(t, got, 1)
	assert.Equal(t, 0, got[0].Status)
}

// An answer longer than MaxCapture is not whole: the client side records
// it as no answer (it cannot be judged); the caller still reads all of it.
func TestLongAnswer(t *testing.T) {
	long := strings.Repeat("x", MaxCapture+10)
	var got []Record
	c := &http.Client{Transport: RoundTripper(canned(200, long), true, func(r Record) { got = append(got, r) })}
	resp, err := c.Get("http://127.0.0.1:1/v1/channels")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Len(t, b, len(long))
	require.Len(t, got, 1)
	assert.Equal(t, 0, got[0].Status)
}
