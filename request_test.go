package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/jarcoal/httpmock"
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

	logs := &testkit.Buffer{}
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
	// One connection serves every call; a retried answer's body is drained
	// for at most 100 ms before its connection is given up, which a machine
	// loaded enough (the race detector on a shared runner) can exceed now
	// and then: allow that, but not one connection per call or anything near.
	assert.LessOrEqual(t, conns.Load()*100, requests.Load(), "calls must reuse keep-alive connections (%d connections for %d requests)", conns.Load(), requests.Load())
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
	logs := &testkit.Buffer{}
	env := newMock(t, WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	env.mock.RegisterNoResponder(responder(200, okJSON(`{"items":[]}`)))
	_, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Empty(t, logs.String())
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

func TestDoRefusesBeforeAnyRequest(t *testing.T) {
	env := newMock(t)
	for _, p := range []string{"", "channels", "https://evil.test/v1/x", "//evil.test/x", "/a?b=c", "/a#f", "/../admin", "/a/./b"} {
		err := env.c.Do(context.Background(), "GET", p, nil, nil, nil)
		assert.Error(t, err, p)
	}
	assert.Error(t, env.c.Do(context.Background(), "", "/x", nil, nil, nil))
	assert.Error(t, env.c.Do(context.Background(), "GET", "/x", 42, nil, nil), "a query that is neither values nor a struct")
	assert.Error(t, env.c.Do(context.Background(), "POST", "/x", nil, make(chan int), nil), "a body that cannot be JSON")
	// An out that is not a usable pointer, or a body JSON would not carry as
	// meant (an io.Reader would become "{}", a []byte a base64 string).
	var out struct{ Message string }
	var nilPtr *struct{ Message string }
	for name, args := range map[string][2]any{
		"out by value": {nil, out}, "out nil ptr": {nil, nilPtr}, "out map value": {nil, map[string]any{}},
		"body io.Reader": {strings.NewReader(`{"a":1}`), &out}, "body []byte": {[]byte(`{"a":1}`), &out},
	} {
		assert.Error(t, env.c.Do(context.Background(), "POST", "/x", nil, args[0], args[1]), name)
	}
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
}

func TestNilContext(t *testing.T) {
	env := newMock(t)
	//lint:ignore SA1012 the nil context is the point of the test
	err := env.c.Do(nil, "GET", "/x", nil, nil, nil) //nolint:staticcheck
	assert.Error(t, err)
}

// Every path parameter reaches the server as one segment, whatever it holds,
// over a real connection.
func TestPathParametersOnTheWire(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.RequestURI)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okJSON(`{"items":[],"next_cursor":null}`))
	}))
	defer srv.Close()
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	ids := []string{"a/b", "..", ".", "../channels", "%2F", "50%", "?x=1", "#frag", "ünïcødé", "a b", "a%zz", "x;y", "-_.~"}
	for _, id := range ids {
		mu.Lock()
		seen = nil
		mu.Unlock()
		_, err := c.Messages.List(context.Background(), id, nil)
		require.NoError(t, err, id)
		_, err = c.Attachments.Get(context.Background(), id)
		require.NoError(t, err, id)
		mu.Lock()
		require.Len(t, seen, 2, id)
		for i, prefix := range []string{"/v1/conversations/", "/v1/attachments/"} {
			uri := seen[i]
			require.True(t, strings.HasPrefix(uri, prefix), "%q: %s", id, uri)
			rest := strings.TrimPrefix(uri, prefix)
			seg, _, _ := strings.Cut(rest, "/")
			assert.NotContains(t, rest, "?", id)
			got, err := url.PathUnescape(seg)
			require.NoError(t, err)
			assert.Equal(t, id, got, "%q arrived as %s", id, uri)
		}
		mu.Unlock()
	}
}

// A per-attempt timeout set on the caller's http.Client is a deadline error:
// errors.Is(err, context.DeadlineExceeded) holds through the *TransportError.
func TestHTTPClientTimeoutIsADeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithRetryWait(0, 0), WithMaxRetries(1),
		WithHTTPClient(&http.Client{Timeout: 30 * time.Millisecond}))
	require.NoError(t, err)
	_, err = c.Channels.List(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "/channels", te.Path)
	assert.True(t, te.Timeout())
	assertNoKey(t, err)

	// A refused connection is not a timeout.
	c, err = NewClient(WithAPIKey(testKey), WithBaseURL("http://127.0.0.1:1/v1"), WithMaxRetries(0))
	require.NoError(t, err)
	_, err = c.Channels.List(context.Background())
	require.ErrorAs(t, err, &te)
	assert.False(t, te.Timeout())
}

// No goroutine outlives a call: run successes, retried 429s, exhausted
// retries, cancellations and iterators inside a synctest bubble, which fails
// if any goroutine started there is still blocked when the test ends.
func TestNoGoroutineOutlivesACall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t, WithRetryWait(time.Second, 2*time.Second))
		env.mock.RegisterResponder("GET", mockBase+"/channels", sequence(
			responder(429, errJSON(429, "RATE_LIMITED", "slow"), "Retry-After", "1"),
			responder(200, okJSON(`{"items":[]}`)),
		))
		env.mock.RegisterResponder("GET", mockBase+"/conversations/c1/messages", func(r *http.Request) (*http.Response, error) {
			if r.URL.Query().Get("cursor") == "" {
				return responder(200, okJSON(`{"items":[{"message_id":"m1"},{"message_id":"m2"}],"next_cursor":"p2"}`))(r)
			}
			return responder(200, okJSON(`{"items":[{"message_id":"m3"}],"next_cursor":null}`))(r)
		})
		env.mock.RegisterResponder("POST", mockBase+"/chatapp/sequences/cancel",
			responder(503, errJSON(503, "UNAVAILABLE", "busy")))
		env.mock.RegisterResponder("GET", mockBase+"/attachments/m", responder(429, errJSON(429, "RATE_LIMITED", "slow")))
		ctx := context.Background()
		_, err := env.c.Channels.List(ctx)
		require.NoError(t, err)
		_, err = env.c.Attachments.Get(ctx, "m") // exhausted
		require.ErrorIs(t, err, ErrRateLimited)
		_, err = env.c.Sequences.Cancel(ctx, &CancelSequenceParams{PhoneNumber: "5511987654321"})
		require.Error(t, err)
		for _, err := range env.c.Messages.All(ctx, "c1", nil) {
			require.NoError(t, err)
			break
		}
		n := 0
		for _, err := range env.c.Messages.All(ctx, "c1", nil) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 3, n)
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(500*time.Millisecond, cancel)
		_, err = env.c.Attachments.Get(cctx, "m")
		require.ErrorIs(t, err, context.Canceled)
		synctest.Wait()
	})
}

// A 204 No Content, or an answer to HEAD, reached through Do is a success:
// any 2xx is, and such answers have no body. An empty 200 to GET, or a 204 on
// a typed endpoint (which always answers with the envelope), is malformed.
func TestNoContent(t *testing.T) {
	env := newMock(t, WithMaxRetries(0))
	env.mock.RegisterResponder("DELETE", mockBase+"/chatapp/templates/t1", httpmock.NewBytesResponder(204, nil))
	env.mock.RegisterResponder("HEAD", mockBase+"/channels", httpmock.NewBytesResponder(200, nil))
	env.mock.RegisterResponder("GET", mockBase+"/empty", httpmock.NewBytesResponder(200, nil))
	env.mock.RegisterResponder("GET", mockBase+"/conversations/c1/messages", httpmock.NewBytesResponder(204, nil))
	out := map[string]any{"kept": true}
	require.NoError(t, env.c.Do(context.Background(), "DELETE", "/chatapp/templates/t1", nil, nil, &out))
	assert.Equal(t, map[string]any{"kept": true}, out)
	require.NoError(t, env.c.Do(context.Background(), "HEAD", "/channels", nil, nil, nil))
	assert.ErrorIs(t, env.c.Do(context.Background(), "GET", "/empty", nil, nil, nil), ErrMalformedResponse)
	_, err := env.c.Messages.List(context.Background(), "c1", nil)
	assert.ErrorIs(t, err, ErrMalformedResponse)
}

// The attempt log shows the path escaped (an id "a/b" is one segment), counts
// a redirect hop as the same attempt, and never logs a transport error's
// query values (a wrapping transport may quote the URL: personal data).
func TestAttemptLogPathAttemptAndError(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterResponder("GET", mockBase+"/conversations/a%2Fb/messages",
		responder(307, "", "Location", mockBase+"/conversations/moved/messages"))
	env.mock.RegisterResponder("GET", mockBase+"/conversations/moved/messages",
		responder(200, okJSON(`{"items":[],"next_cursor":null}`)))
	_, err := env.c.Messages.List(context.Background(), "a/b", nil)
	require.NoError(t, err)
	logs := env.logs.String()
	assert.Contains(t, logs, "path=/v1/conversations/a%2Fb/messages")
	assert.Equal(t, 2, strings.Count(logs, "attempt=1"), "a redirect hop is the same attempt")
	assert.NotContains(t, logs, "attempt=2")

	env = newMock(t, WithMaxRetries(0))
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: "Get", URL: r.URL.String(), Err: errors.New("proxy refused")}
	})
	_, err = env.c.Contacts.Lookup(context.Background(), &LookupContactParams{PhoneNumber: "5511987654321"})
	require.Error(t, err)
	assert.Contains(t, env.logs.String(), "proxy refused")
	assert.NotContains(t, env.logs.String(), "5511987654321")
	assert.NotContains(t, err.Error(), "5511987654321")
}

// A transport failure that coincides with the end of the context reads on one
// line and matches both the context error and the failure.
func TestTransportErrorWithContextIsOneLine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	failure := errors.New("connection reset by peer")
	// A transport of its own, not httpmock: httpmock runs a responder in a
	// goroutine and may answer with the context's error alone once the
	// context ends, which made this test flaky under -count=5 -shuffle.
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithMaxRetries(0),
		WithHTTPClient(&http.Client{Transport: failingTransport(func() error { cancel(); return failure })}))
	require.NoError(t, err)
	_, err = c.Channels.List(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, failure)
	assert.NotContains(t, err.Error(), "\n")
	assert.Equal(t, "convo: GET /channels: context canceled: connection reset by peer", err.Error())
}

// failingTransport fails every round trip, synchronously, with what fail
// returns.
type failingTransport func() error

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f() }

// A transport that quotes the key in its error (a misbehaving middleware)
// does not get it into the attempt log nor the returned error.
func TestKeyInATransportErrorIsRedacted(t *testing.T) {
	env := newMock(t, WithMaxRetries(1), WithRetryWait(0, 0))
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("middleware refused header " + r.Header.Get("Authorization"))
	})
	_, err := env.c.Channels.List(context.Background())
	require.Error(t, err)
	assertNoKey(t, err)
	assert.Contains(t, env.logs.String(), "middleware refused header Bearer [REDACTED]")
	// newMock's cleanup asserts the key is absent from the log.
}

// Do keeps the signature it had before options: callers without options
// compile unchanged.
func TestDoKeepsItsOldSignature(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(responder(200, okJSON(`{"items":[]}`)))
	var do func(context.Context, string, string, any, any, any, ...Option) error = env.c.Do
	require.NoError(t, do(context.Background(), "GET", "/channels", nil, nil, nil))
	require.NoError(t, env.c.Do(context.Background(), "GET", "/channels", nil, nil, nil))
}

// FuzzResponses feeds arbitrary statuses and bodies through the whole pipeline
// of a typed call: nothing may panic, every failure is typed, and error texts
// stay bounded and free of the key. The seeds run in every `go test`; explore
// with: go test -run '^$' -fuzz FuzzResponses -fuzztime 30s .
func FuzzResponses(f *testing.F) {
	f.Add(200, okJSON(`{"items":[{"message_id":"m","media":{"media_id":null,"media_status":"unknown"}}],"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}`))
	f.Add(404, errJSON(404, "CONVERSATION_NOT_FOUND", "Conversation not found"))
	f.Add(502, "<html>bad gateway</html>")
	f.Add(200, `{"success":true,"data":{"items":"not a list"}}`)
	f.Add(200, `{"success":true,"data":null}`)
	f.Add(400, `{"success":false,"message":{"error":"INVALID_BUCKET","details":[1]}}`)
	f.Add(200, `{"success":false}`)
	f.Add(204, ``)
	f.Add(429, `{"success":false,"statusCode":429,"message":{"error":"RATE_LIMITED","message":"`+testKey+`"}}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		mock := httpmock.NewMockTransport()
		mock.RegisterNoResponder(httpmock.NewStringResponder(status, body))
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithHTTPClient(&http.Client{Transport: mock}), WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.Messages.List(context.Background(), "conv", nil)
		if err == nil {
			if page == nil {
				t.Fatal("nil page without error")
			}
			return
		}
		var apiErr *Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		if apiErr.StatusCode != status && status/100 != 2 {
			t.Fatalf("status %d reported as %d", status, apiErr.StatusCode)
		}
		msg := err.Error()
		if strings.Contains(msg, testKey) {
			t.Fatal("key in error text")
		}
		if len(apiErr.Body) > excerptLimit+3 {
			t.Fatalf("excerpt of %d bytes", len(apiErr.Body))
		}
		if apiErr.Code == CodeInvalidBucket {
			apiErr.InvalidBucket() // must not panic on any details
		}
	})
}
