package fake_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// t0 is the manual clock's start in every test.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const ts0 = "2026-11-22T10:00:00.000Z"

func newServer(t *testing.T, opts ...fake.Option) *fake.Server {
	t.Helper()
	return fake.New(t, append([]fake.Option{fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(testkit.Middleware(t))}, opts...)...)
}

// uid is a UUID that reads as name (at most 12 bytes), for tests that
// give conversations readable ids: the service's ids are UUIDs
// (docs/behaviour.md, The fake). Names keep their order: uid("c1") <
// uid("c10") < uid("c2"); readable(uid(name)) is name.
func uid(name string) string {
	h := hex.EncodeToString([]byte(name))
	if len(h) > 24 {
		panic("uid: name longer than 12 bytes: " + name)
	}
	h += strings.Repeat("0", 24-len(h))
	return h[:8] + "-" + h[8:12] + "-4000-8000-" + h[12:]
}

// readable is the name of a uid, or id itself when it is not one.
func readable(id string) string {
	if len(id) != 36 || id[13:24] != "-4000-8000-" {
		return id
	}
	b, err := hex.DecodeString(id[:8] + id[9:13] + id[24:])
	if err != nil {
		return id
	}
	return string(bytes.TrimRight(b, "\x00"))
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
	assert.ElementsMatch(t, []string{"success", "data", "timestamp"}, keysOf(env))
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
// headers are given (pass header{} for none), with a JSON Content-Type when
// there is a body.
func call(t *testing.T, s *fake.Server, method, path string, body any, headers ...header) resp {
	t.Helper()
	if headers == nil {
		headers = []header{bearer(s.APIKey())}
	}
	if body != nil {
		headers = append([]header{{"Content-Type", "application/json"}}, headers...)
	}
	return callRaw(t, s, method, path, body, headers...)
}

// callRaw is call without defaults: the headers are exactly those given (a
// name starting with "+" adds one more line of that header). A
// string body is sent as is, another is JSON-encoded; a path starting with
// http is a whole URL.
func callRaw(t *testing.T, s *fake.Server, method, path string, body any, headers ...header) resp {
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
	for _, h := range headers {
		if name, again := strings.CutPrefix(h[0], "+"); again {
			req.Header.Add(name, h[1]) // a second line of the same header
		} else if h[0] != "" {
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

// errPath is the path an error answer names for a request to path: the
// /api/v1 form, without the query.
func errPath(path string) string {
	path, _, _ = strings.Cut(path, "?")
	if strings.HasPrefix(path, "/v1") {
		return "/api" + path
	}
	return path
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
	env := r.JSON(t)
	assert.ElementsMatch(t, []string{"success", "statusCode", "timestamp", "path", "method", "message", "errorId"}, keysOf(env))
	assert.Equal(t, false, env["success"])
	assert.Equal(t, float64(status), env["statusCode"])
	assert.Regexp(t, tsPattern, env["timestamp"])
	assert.Equal(t, path, env["path"])
	assert.Equal(t, method, env["method"])
	assert.Regexp(t, errorIDPattern, env["errorId"])
	msg, ok := env["message"].(map[string]any)
	require.True(t, ok, "message must be an object: %s", r.Body)
	want := []string{"error", "message"}
	if details != "" {
		want = append(want, "details")
		raw, _ := json.Marshal(msg["details"])
		assert.JSONEq(t, details, string(raw))
	}
	assert.ElementsMatch(t, want, keysOf(msg))
	assert.Equal(t, string(code), msg["error"])
	if message != "" {
		assert.Equal(t, message, msg["message"])
	}
}

// keysOf returns the keys of m, in no order.
func keysOf[V any](m map[string]V) []string { return slices.Collect(maps.Keys(m)) }

// seedBasic gives the default company a chatapp and a botapp account, a
// webchat widget and one contact per account.
type basic struct {
	co                 *fake.Company
	chat, bot, widget  string
	ana, bob, visitor  string
	anaPhone, chatPNID string
}

// newBasic is newServer then seedBasic.
func newBasic(t *testing.T, opts ...fake.Option) (*fake.Server, basic) {
	t.Helper()
	s := newServer(t, opts...)
	return s, seedBasic(t, s)
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

func mustContact(t *testing.T, s *fake.Server, id string) fake.Contact {
	t.Helper()
	c, ok := s.Contact(id)
	require.True(t, ok)
	return c
}
