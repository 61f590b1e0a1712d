package fake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/oascheck"
)

// t0 is the manual clock's start in every test.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const ts0 = "2026-11-22T10:00:00.000Z"

func newServer(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	return fake.New(t, append([]fake.Option{fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(oascheck.Middleware(t))}, opts...)...)
}

// resp is a raw answer.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a generic map.
func (r resp) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// Data returns the data of a success envelope, re-encoded, after checking
// the envelope's exact shape.
func (r resp) Data(t *testing.T, status int) string {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.Body, &env))
	keys := []string{}
	for k := range env {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"success", "data", "timestamp"}, keys)
	assert.Equal(t, "true", string(env["success"]))
	var tsv string
	require.NoError(t, json.Unmarshal(env["timestamp"], &tsv))
	assert.Regexp(t, tsPattern, tsv)
	return string(env["data"])
}

var (
	tsPattern      = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	errorIDPattern = regexp.MustCompile(`^ERR-[0-9A-Z]{8}-[0-9A-Z]{4}$`)
)

type header = [2]string

func bearer(key string) header { return header{"Authorization", "Bearer " + key} }

// call sends a raw request to s, authenticated with the default key unless
// headers are given (pass header{} for none).
func call(t *testing.T, s *fake.Server, method, path string, body any, headers ...header) resp {
	t.Helper()
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rdr = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		rdr = bytes.NewReader(raw)
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = strings.TrimSuffix(s.URL(), "/v1") + path
	}
	req, err := http.NewRequest(method, url, rdr)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if headers == nil {
		headers = []header{bearer(s.APIKey())}
	}
	for _, h := range headers {
		if h[0] != "" {
			req.Header.Set(h[0], h[1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{res.StatusCode, res.Header, raw}
}

// get is call with GET on the /v1 prefix.
func get(t *testing.T, s *fake.Server, path string, headers ...header) resp {
	t.Helper()
	return call(t, s, http.MethodGet, "/v1"+path, nil, headers...)
}

// assertError checks the error envelope exactly: keys, statusCode equal to the
// HTTP status, timestamp form, /api/v1 path, method, message object, errorId
// form. details is the expected JSON of message.details ("" for absent).
func assertError(t *testing.T, r resp, status int, code convo.ErrorCode, message, path, method, details string) {
	t.Helper()
	require.Equal(t, status, r.Status, "body: %s", r.Body)
	assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"))
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.Body, &env), "body: %s", r.Body)
	keys := []string{}
	for k := range env {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"success", "statusCode", "timestamp", "path", "method", "message", "errorId"}, keys)
	var body struct {
		Success    bool   `json:"success"`
		StatusCode int    `json:"statusCode"`
		Timestamp  string `json:"timestamp"`
		Path       string `json:"path"`
		Method     string `json:"method"`
		ErrorID    string `json:"errorId"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	assert.False(t, body.Success)
	assert.Equal(t, status, body.StatusCode)
	assert.Regexp(t, tsPattern, body.Timestamp)
	assert.Equal(t, path, body.Path)
	assert.Equal(t, method, body.Method)
	assert.Regexp(t, errorIDPattern, body.ErrorID)
	var msg map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(env["message"], &msg), "message must be an object: %s", env["message"])
	if details == "" {
		assert.ElementsMatch(t, []string{"error", "message"}, keysOf(msg))
	} else {
		assert.ElementsMatch(t, []string{"error", "message", "details"}, keysOf(msg))
		assert.JSONEq(t, details, string(msg["details"]))
	}
	assert.JSONEq(t, jsonString(string(code)), string(msg["error"]))
	if message != "" {
		assert.JSONEq(t, jsonString(message), string(msg["message"]))
	}
}

func keysOf(m map[string]json.RawMessage) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// seedBasic gives the default company a chatapp and a botapp account, a
// webchat widget and one contact per account.
type basic struct {
	co                 *fake.Company
	chat, bot, widget  string
	ana, bob, visitor  string
	anaPhone, chatPNID string
}

func seedBasic(t *testing.T, s *fake.Server) basic {
	t.Helper()
	co := s.Company()
	b := basic{co: co, anaPhone: "5511987654321", chatPNID: "5511900000001"}
	b.chat = co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: b.chatPNID})
	b.bot = co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Help bot", ProviderIdentifier: "acme_bot"})
	b.widget = co.AddWebchatWidget("Website")
	b.ana = co.AddContact(fake.Contact{ChannelAccountID: b.chat, PhoneNumber: "+55 (11) 98765-4321", Name: "Ana", Tags: []string{"vip", "lead"}, CustomFields: map[string]string{"plan": "gold"}})
	b.bob = co.AddContact(fake.Contact{ChannelAccountID: b.bot, ChannelIdentifier: "bob-77", Name: "Bob"})
	b.visitor = co.AddContact(fake.Contact{ChannelAccountID: b.widget, ChannelIdentifier: "visitor-1", Name: "Visitor"})
	return b
}
