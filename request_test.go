package convo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneConnectionForAThousandCalls proves that bodies are drained and closed
// on every path (success, 4xx, retried 429, exhausted 429) so the single
// keep-alive connection is reused throughout.
func TestOneConnectionForAThousandCalls(t *testing.T) {
	var conns, requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/missing":
			w.WriteHeader(404)
			_, _ = io.WriteString(w, errJSON(404, "CONTACT_NOT_FOUND", "Contact not found"))
		case r.URL.Path == "/v1/storm":
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, errJSON(429, "RATE_LIMITED", "Too many requests"))
		case r.URL.Path == "/v1/flaky" && n%2 == 0:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, errJSON(429, "RATE_LIMITED", "Too many requests"))
		case r.URL.Path == "/v1/html":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			_, _ = io.WriteString(w, "<html>"+strings.Repeat("bad gateway ", 100)+"</html>")
		default:
			_, _ = io.WriteString(w, okJSON(`{"message":"ok"}`))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	logs := &syncBuffer{}
	// A transport of its own: http.DefaultTransport's idle pool is shared
	// with every other test, and another test's server closing can flush it
	// (a second connection would then be counted).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithMaxRetries(3), WithRetryWait(0, 0),
		WithHTTPClient(&http.Client{Transport: tr}),
		WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	paths := []string{"/ok", "/missing", "/flaky", "/ok", "/storm", "/html", "/flaky"}
	ctx := context.Background()
	for i := range 1000 {
		p := paths[i%len(paths)]
		err := c.Do(ctx, "GET", p, nil, nil, nil)
		switch p {
		case "/ok", "/flaky":
			require.NoError(t, err, "call %d %s", i, p)
		default:
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr, "call %d %s", i, p)
			assertNoKey(t, err)
		}
	}
	assert.Equal(t, int64(1), conns.Load(), "every call must reuse the one keep-alive connection")
	assert.Greater(t, requests.Load(), int64(1000), "429s were retried")
	assert.NotContains(t, logs.String(), testKey)
}

func TestAttemptLogRecords(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(sequence(
		responder(429, errJSON(429, "RATE_LIMITED", "slow down"), "Retry-After", "0"),
		responder(200, okJSON(`{"id":"c1","phone_number":"5511987654321","name":"Ana","tag_names":"vip"}`)),
	))
	_, err := env.c.Contacts.Lookup(context.Background(), &LookupContactParams{PhoneNumberID: "pnid-77", PhoneNumber: "5511987654321"})
	require.NoError(t, err)
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(env.logs.String()), "\n") {
		rec := map[string]any{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			rec[k] = v
		}
		records = append(records, rec)
	}
	require.Len(t, records, 2, "one record per attempt")
	for i, rec := range records {
		assert.Equal(t, "DEBUG", rec["level"])
		assert.Equal(t, "GET", rec["method"])
		assert.Equal(t, "/v1/chatapp/contacts/lookup", rec["path"])
		assert.Equal(t, fmt.Sprint(i+1), rec["attempt"])
		assert.Contains(t, rec, "duration")
	}
	assert.Equal(t, "429", records[0]["status"])
	assert.Equal(t, "200", records[1]["status"])
	out := env.logs.String()
	assert.NotContains(t, out, "5511987654321", "query values are personal data")
	assert.NotContains(t, out, "pnid-77")
	assert.NotContains(t, out, testKey)
}

func TestNoLoggerNoOutput(t *testing.T) {
	// Without WithLogger nothing is written anywhere (retryablehttp's default
	// logger would write to stderr); a logger above debug gets nothing either.
	logs := &syncBuffer{}
	env := newMock(t, WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	env.mock.RegisterNoResponder(responder(200, okJSON(`{"items":[]}`)))
	_, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Empty(t, logs.String())
	assert.Nil(t, env.c.rc.Logger)
}

func TestDo(t *testing.T) {
	type tplQuery struct {
		Lang  string `url:"lang"`
		Page  int    `url:"page,omitempty"`
		Empty string `url:"empty,omitempty"`
	}
	tests := []struct {
		name      string
		method    string
		path      string
		query     any
		body      any
		wantURL   string
		wantBody  string
		wantCType string
	}{
		{"get with struct query", "get", "/chatapp/templates", tplQuery{Lang: "pt_BR", Page: 2}, nil,
			mockBase + "/chatapp/templates?lang=pt_BR&page=2", "", ""},
		{"get with url.Values", "GET", "/chatapp/tags", url.Values{"q": {"a b"}}, nil,
			mockBase + "/chatapp/tags?q=a+b", "", ""},
		{"nil pointer query", "GET", "/chatapp/tags", (*tplQuery)(nil), nil, mockBase + "/chatapp/tags", "", ""},
		{"post with body", "POST", "/messages", nil, map[string]any{"channel_id": "ch1", "text": "hi"},
			mockBase + "/messages", `{"channel_id":"ch1","text":"hi"}`, "application/json"},
		{"raw JSON body", "PUT", "/x/" + url.PathEscape("a/b"), nil, json.RawMessage(`{"k":1}`),
			mockBase + "/x/a%2Fb", `{"k":1}`, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newMock(t)
			var gotURL, gotBody, gotCType, gotMethod string
			env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
				gotURL, gotMethod, gotCType = r.URL.String(), r.Method, r.Header.Get("Content-Type")
				if r.Body != nil {
					b, _ := io.ReadAll(r.Body)
					gotBody = string(b)
				}
				return responder(201, okJSON(`{"id":"m1"}`))(r)
			})
			var out struct{ ID string }
			require.NoError(t, env.c.Do(context.Background(), tt.method, tt.path, tt.query, tt.body, &out))
			assert.Equal(t, strings.ToUpper(tt.method), gotMethod)
			assert.Equal(t, tt.wantURL, gotURL)
			assert.Equal(t, tt.wantBody, gotBody)
			assert.Equal(t, tt.wantCType, gotCType)
			assert.Equal(t, "m1", out.ID)
		})
	}
}

func TestDoRejectsPathsBeforeAnyRequest(t *testing.T) {
	env := newMock(t)
	for _, p := range []string{"", "channels", "https://evil.test/v1/x", "//evil.test/x", "/a?b=c", "/a#f", "/../admin", "/a/./b"} {
		err := env.c.Do(context.Background(), "GET", p, nil, nil, nil)
		assert.Error(t, err, p)
	}
	assert.Error(t, env.c.Do(context.Background(), "", "/x", nil, nil, nil))
	assert.Error(t, env.c.Do(context.Background(), "GET", "/x", 42, nil, nil), "a query that is neither values nor a struct")
	assert.Error(t, env.c.Do(context.Background(), "POST", "/x", nil, make(chan int), nil), "a body that cannot be JSON")
	assert.Zero(t, env.mock.GetTotalCallCount())
}

func TestPathSegmentEscaping(t *testing.T) {
	tests := map[string]string{
		"abc":          "abc",
		"../channels":  "..%2Fchannels",
		"..":           "%2E%2E",
		".":            "%2E",
		"a b?c#d":      "a%20b%3Fc%23d",
		"x/y":          "x%2Fy",
		"3f1c-uuid-ok": "3f1c-uuid-ok",
	}
	for in, want := range tests {
		assert.Equal(t, want, pathSegment(in), in)
	}

	env := newMock(t)
	var raw string
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		raw = r.URL.EscapedPath()
		return responder(200, okJSON(`{"items":[],"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}`))(r)
	})
	_, err := env.c.Messages.List(context.Background(), "../../channels", nil)
	require.NoError(t, err)
	assert.Equal(t, "/v1/conversations/..%2F..%2Fchannels/messages", raw)
}

func TestNilContext(t *testing.T) {
	env := newMock(t)
	//lint:ignore SA1012 the nil context is the point of the test
	err := env.c.Do(nil, "GET", "/x", nil, nil, nil) //nolint:staticcheck
	assert.Error(t, err)
}

func TestConcurrentUse(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(responder(200, okJSON(`{"items":[{"id":"a"}]}`)))
	done := make(chan error, 50)
	for range 50 {
		go func() {
			_, err := env.c.Channels.List(context.Background())
			done <- err
		}()
	}
	for range 50 {
		require.NoError(t, <-done)
	}
	assert.Equal(t, 50, env.mock.GetTotalCallCount())
	_ = time.Second
}
