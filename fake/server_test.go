package fake_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestURLEndsInV1AndIsLoopback(t *testing.T) {
	s := newServer(t)
	assert.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"), s.URL())
	assert.True(t, strings.HasSuffix(s.URL(), "/v1"), s.URL())
	assert.Equal(t, fake.DefaultAPIKey, s.APIKey())
	s2 := newServer(t, fake.WithAPIKey("k2"))
	assert.Equal(t, "k2", s2.APIKey())
}

func TestRoutingErrorsUseEnvelope(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name, method, path string
		status             int
		code, errPath      string
		allow              string
	}{
		{"unknown route on v1", "GET", "/v1/nope?x=1", 404, "NOT_FOUND", "/api/v1/nope", ""},
		{"unknown route on api/v1", "GET", "/api/v1/conversations/x", 404, "NOT_FOUND", "/api/v1/conversations/x", ""},
		{"outside the API", "GET", "/", 404, "NOT_FOUND", "/", ""},
		{"wrong method", "POST", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "/api/v1/channels", "GET, HEAD"},
		{"wrong method on contacts", "GET", "/v1/chatapp/contacts", 405, "METHOD_NOT_ALLOWED", "/api/v1/chatapp/contacts", "POST"},
		{"wrong method without key", "PUT", "/v1/chatapp/contacts/tags", 405, "METHOD_NOT_ALLOWED", "/api/v1/chatapp/contacts/tags", "DELETE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, nil)
			assertError(t, r, tc.status, convo.ErrorCode(tc.code), "", tc.errPath, tc.method, "")
			assert.Equal(t, tc.allow, r.Header.Get("Allow"))
		})
	}
}

func TestMalformedBodies(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	tests := []struct {
		name, contentType, body, msg string
	}{
		{"not JSON", "application/json", `{"phone_number":`, "The request body must be a JSON object"},
		{"JSON array", "application/json", `[1,2]`, "The request body must be a JSON object"},
		{"JSON string", "application/json", `"x"`, "The request body must be a JSON object"},
		{"form content type", "application/x-www-form-urlencoded", `phone_number=1`, "Content-Type must be application/json"},
		{"no content type", "", `{"phone_number":"5511987654321"}`, "Content-Type must be application/json"},
		{"wrong field type", "application/json", `{"phone_number":5511987654321,"phone_number_id":"x","name":"A"}`, "phone_number must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", s.URL()+"/chatapp/contacts", strings.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+s.APIKey())
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			raw := readAll(t, res)
			assertError(t, resp{res.StatusCode, res.Header, raw}, 400, "INVALID_PARAM", tc.msg, "/api/v1/chatapp/contacts", "POST", "")
		})
	}
	_ = b
}

// A mounted handler without WithPublicURL names the local address the
// request came in on (a recorder has none: localhost), never the Host.
func TestHandlerMountedURLs(t *testing.T) {
	s, err := fake.NewHandler(fake.WithClock(fake.NewManualClock(t0)))
	require.NoError(t, err)
	assert.Equal(t, "", s.URL())
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	m := co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	req := httptest.NewRequest("GET", "http://mounted.example:8080/api/v1/attachments/"+s.MediaID(m), nil)
	req.Header.Set("x-api-key", s.APIKey())
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	require.Equal(t, 200, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"url":"http://localhost/_files/`)
	assert.NotContains(t, rec.Body.String(), "mounted.example")

	s2, err := fake.NewHandler(fake.WithPublicURL("https://fake.example.com/convo/"))
	require.NoError(t, err)
	co2 := s2.Company()
	acc2 := co2.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct2 := co2.AddContact(fake.Contact{ChannelAccountID: acc2, PhoneNumber: "5511911112222"})
	m2 := co2.AddMessage(co2.AddConversation(fake.Conversation{ContactID: ct2}), fake.Message{Media: &fake.Media{MimeType: "image/png"}})
	req = httptest.NewRequest("GET", "/v1/attachments/"+s2.MediaID(m2), nil)
	req.Header.Set("x-api-key", s2.APIKey())
	rec = httptest.NewRecorder()
	s2.Handler().ServeHTTP(rec, req)
	assert.Contains(t, rec.Body.String(), `"url":"https://fake.example.com/convo/_files/`)
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return b
}

func TestWithLoggerLogsRequests(t *testing.T) {
	var buf bytes.Buffer
	s := newServer(t, fake.WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	get(t, s, "/channels")
	assert.Contains(t, buf.String(), "path=/v1/channels")
	assert.NotContains(t, buf.String(), s.APIKey())
}
