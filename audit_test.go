package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Audit findings: each test below failed before its fix (or pins a behaviour
// that was undocumented and untested).

// TestEveryExportedNameHasADocComment parses each public package (convo,
// fake, api) and fails on any exported type, function, method, constant,
// variable or struct field without a doc comment (a group's comment covers
// the names of the group).
func TestEveryExportedNameHasADocComment(t *testing.T) {
	for _, dir := range []string{".", "fake", "api"} {
		t.Run(dir, func(t *testing.T) { checkDocComments(t, dir) })
	}
}

func checkDocComments(t *testing.T, dir string) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/convoapi/convo-go/"+dir)
	require.NoError(t, err)
	var missing []string
	need := func(name, text string, pos token.Pos) {
		if ast.IsExported(name) && strings.TrimSpace(text) == "" {
			missing = append(missing, fset.Position(pos).String()+": "+name)
		}
	}
	if strings.TrimSpace(p.Doc) == "" {
		missing = append(missing, "package doc")
	}
	values := func(prefix string, vs []*doc.Value) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					text := v.Doc
					if vs.Doc != nil {
						text += vs.Doc.Text()
					}
					if vs.Comment != nil {
						text += vs.Comment.Text()
					}
					need(prefix+n.Name, text, n.Pos())
				}
			}
		}
	}
	values("", p.Consts)
	values("", p.Vars)
	for _, f := range p.Funcs {
		need(f.Name, f.Doc, f.Decl.Pos())
	}
	for _, typ := range p.Types {
		need(typ.Name, typ.Doc, typ.Decl.Pos())
		values("", typ.Consts)
		values("", typ.Vars)
		for _, f := range typ.Funcs {
			need(f.Name, f.Doc, f.Decl.Pos())
		}
		for _, m := range typ.Methods {
			need(typ.Name+"."+m.Name, m.Doc, m.Decl.Pos())
		}
		for _, spec := range typ.Decl.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !ast.IsExported(ts.Name.Name) {
				continue
			}
			for _, f := range st.Fields.List {
				text := ""
				if f.Doc != nil {
					text += f.Doc.Text()
				}
				if f.Comment != nil {
					text += f.Comment.Text()
				}
				for _, n := range f.Names {
					need(ts.Name.Name+"."+n.Name, text, n.Pos())
				}
			}
		}
	}
	for _, m := range missing {
		t.Errorf("exported name without a doc comment: %s", m)
	}
}

// Finding: a same-host redirect from https to plain http was followed, with the
// Authorization / x-api-key header, i.e. the key went out in clear text.
func TestAuditRedirectDowngradeToHTTPIsNotFollowed(t *testing.T) {
	for _, scheme := range []AuthScheme{AuthBearer, AuthXAPIKey} {
		t.Run(scheme.String(), func(t *testing.T) {
			env := newMock(t, WithAuthScheme(scheme))
			env.mock.RegisterResponder("GET", mockBase+"/channels",
				responder(302, "", "Location", "http://api.convo.test/v1/channels"))
			var plain atomic.Int64
			env.mock.RegisterResponder("GET", "http://api.convo.test/v1/channels", func(r *http.Request) (*http.Response, error) {
				plain.Add(1)
				return responder(200, okJSON(`{"items":[]}`))(r)
			})
			_, err := env.c.Channels.List(context.Background())
			assert.Zero(t, plain.Load(), "the key must not be sent over plain http")
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, 302, apiErr.StatusCode)
			assertNoKey(t, err)
		})
	}
	// A same-scheme, same-host redirect is still followed.
	env := newMock(t)
	env.mock.RegisterResponder("GET", mockBase+"/channels", responder(307, "", "Location", mockBase+"/channels2"))
	env.mock.RegisterResponder("GET", mockBase+"/channels2", responder(200, okJSON(`{"items":[{"id":"a"}]}`)))
	got, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, got, 1)
}

// Finding: printing a client (%v, %+v, %#v, slog.Any, a dereferenced Client)
// printed its unexported fields, the API key among them.
func TestAuditPrintingAClientDoesNotRevealTheKey(t *testing.T) {
	env := newMock(t)
	c := env.c
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("client", "c", c)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "c", c)
	for _, s := range []string{
		fmt.Sprint(c), fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c),
		fmt.Sprintf("%v", *c), fmt.Sprintf("%+v", *c), fmt.Sprintf("%#v", *c),
		fmt.Sprintf("%+v", struct{ C *Client }{c}), logs.String(),
	} {
		assert.NotContains(t, s, testKey)
	}
	assert.Contains(t, c.String(), mockBase)
	assert.Contains(t, c.String(), "[REDACTED]")
}

// Finding: a product token or a key with a control character was accepted at
// construction and made every call fail; the key is never quoted in the error.
func TestAuditHeaderValuesCheckedAtConstruction(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
	}{
		{"user agent with CRLF", []Option{WithAPIKey(testKey), WithUserAgent("app/1\r\nX-Evil: 1")}},
		{"user agent with NUL", []Option{WithAPIKey(testKey), WithUserAgent("app\x00")}},
		{"key with NUL", []Option{WithAPIKey(testKey + "\x00")}},
		{"key with DEL", []Option{WithAPIKey(testKey + "\x7f")}},
		{"key with LF", []Option{WithAPIKey(testKey + "\n")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(append(tt.opts, WithBaseURL(mockBase))...)
			require.Error(t, err)
			assertNoKey(t, err)
		})
	}
	_, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithUserAgent("app/1.0 (+https://example.com)\tx"))
	require.NoError(t, err)
}

// Finding: an unparsable base URL's error quoted the whole URL, credentials
// included.
func TestAuditBaseURLParseErrorHidesCredentials(t *testing.T) {
	_, err := NewClient(WithAPIKey(testKey), WithBaseURL("https://user:hunter2secret@api .convo.test/v1"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2secret")
	_, err = NewClient(WithAPIKey(testKey), WithBaseURL("https://user:hunter2secret@api.convo.test/v1"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2secret")
}

// Finding: Client.Do with a non-pointer out, or a body that JSON would not
// carry as meant (an io.Reader became "{}", a []byte a base64 string), sent the
// request and silently lost data.
func TestAuditDoRefusesUnusableOutAndBody(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterNoResponder(responder(200, okJSON(`{"message":"ok"}`)))
	var out struct{ Message string }
	var nilPtr *struct{ Message string }
	for name, call := range map[string]func() error{
		"out by value":  func() error { return env.c.Do(context.Background(), "GET", "/x", nil, nil, out) },
		"out nil ptr":   func() error { return env.c.Do(context.Background(), "GET", "/x", nil, nil, nilPtr) },
		"out map value": func() error { return env.c.Do(context.Background(), "GET", "/x", nil, nil, map[string]any{}) },
		"body io.Reader": func() error {
			return env.c.Do(context.Background(), "POST", "/x", nil, strings.NewReader(`{"a":1}`), &out)
		},
		"body []byte": func() error { return env.c.Do(context.Background(), "POST", "/x", nil, []byte(`{"a":1}`), &out) },
	} {
		err := call()
		assert.Error(t, err, name)
	}
	assert.Zero(t, env.mock.GetTotalCallCount(), "refused before any request")

	// json.RawMessage is sent as is.
	var body string
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		return responder(200, okJSON(`{"message":"ok"}`))(r)
	})
	require.NoError(t, env.c.Do(context.Background(), "POST", "/x", nil, json.RawMessage(`{"a":1}`), &out))
	assert.Equal(t, `{"a":1}`, body)
	assert.Equal(t, "ok", out.Message)
}

// Finding: retryablehttp drains at most 4 KiB of a response it retries and then
// closes it, so a proxy's error page larger than that (a 503 HTML page) cost a
// new TCP connection on every retry. And when retries run out, the last body
// is intact for the typed error.
func TestAuditRetriedLargeBodiesKeepTheConnection(t *testing.T) {
	page := "<html>" + strings.Repeat("service unavailable, please retry ", 300) + "</html>" // ~10 KiB
	var conns, n atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		if r.URL.Path == "/v1/always" || i%2 == 1 {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(503)
			_, _ = io.WriteString(w, page)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okJSON(`{"message":"ok"}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithRetryWait(0, 0),
		WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	for range 20 {
		require.NoError(t, c.Do(context.Background(), "GET", "/flaky", nil, nil, nil))
	}
	err = c.Do(context.Background(), "GET", "/always", nil, nil, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.True(t, strings.HasPrefix(string(apiErr.Body), "<html>service unavailable"), "the last body is intact")
	assert.ErrorIs(t, err, ErrMalformedResponse)
	assert.Equal(t, int64(1), conns.Load(), "one connection throughout")
}

// The body of a retried response larger than the drain limit still reaches
// the caller's typed error whole (read through, not truncated).
func TestAuditExhaustedRetriesKeepAHugeLastBody(t *testing.T) {
	big := strings.Repeat("x", 8<<20)
	env := newMock(t, WithRetryWait(0, 0), WithMaxResponseBytes(16<<20))
	env.mock.RegisterNoResponder(responder(502, big))
	err := env.c.Do(context.Background(), "GET", "/x", nil, nil, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.StatusCode)
	assert.Equal(t, 4, env.mock.GetTotalCallCount())
	assert.Len(t, apiErr.Body, excerptLimit+3, "bounded excerpt of the body")
	assert.ErrorIs(t, err, ErrMalformedResponse, "read whole: not reported too large")
}

// Finding: a time with a sub-millisecond part was truncated by the D18 layout,
// so Since = 10:00:00.0005 selected an item at 10:00:00.000, before it. It is
// now rounded up to the next millisecond (exact for the service's millisecond
// timestamps) and converted to UTC.
func TestAuditQueryTimesRoundUpToTheMillisecond(t *testing.T) {
	env := newMock(t)
	var queries []string
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		queries = append(queries, r.URL.Query().Get("since")+" "+r.URL.Query().Get("until"))
		return responder(200, okJSON(`{"items":[],"next_cursor":null}`))(r)
	})
	minus3 := time.FixedZone("UTC-3", -3*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 7, 0, 0, 500_000, minus3), "2026-11-22T10:00:00.001Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 123_000_000, time.UTC), "2026-11-22T10:00:00.123Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 123_000_001, time.UTC), "2026-11-22T10:00:00.124Z"},
		{time.Date(2026, 11, 22, 23, 59, 59, 999_999_999, time.UTC), "2026-11-23T00:00:00.000Z"},
		{time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), "2026-11-22T10:00:00.000Z"},
	}
	for _, tt := range tests {
		queries = nil
		_, err := env.c.Conversations.List(context.Background(), &ListConversationsParams{Since: tt.in, Until: tt.in})
		require.NoError(t, err)
		_, err = env.c.Messages.List(context.Background(), "c1", &ListMessagesParams{Since: tt.in})
		require.NoError(t, err)
		assert.Equal(t, []string{tt.want + " " + tt.want, tt.want + " "}, queries, tt.in)
	}
}

// Every path parameter reaches the server as one segment, whatever it holds,
// over a real connection.
func TestAuditPathParametersOnTheWire(t *testing.T) {
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
func TestAuditHTTPClientTimeoutIsADeadline(t *testing.T) {
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
func TestAuditNoGoroutineOutlivesACall(t *testing.T) {
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

// The service window is half-open: at exactly session_window_hours after the
// last inbound message it has closed (a template is then required). Erring
// this way never makes a free-form send fail at the boundary.
func TestAuditServiceWindowEdge(t *testing.T) {
	a := ChannelAccount{Capabilities: Capabilities{SessionWindowHours: new(int), RequiresTemplateOutsideWindow: true}}
	*a.Capabilities.SessionWindowHours = 24
	last := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	assert.True(t, a.InServiceWindow(last, last))
	assert.True(t, a.InServiceWindow(last, last.Add(24*time.Hour-time.Nanosecond)))
	assert.False(t, a.InServiceWindow(last, last.Add(24*time.Hour)))
	assert.True(t, a.RequiresTemplate(last, last.Add(24*time.Hour)))
	assert.False(t, a.RequiresTemplate(last, last.Add(time.Hour)))
	// Another zone for now: same instant, same answer.
	assert.False(t, a.InServiceWindow(last, last.Add(24*time.Hour).In(time.FixedZone("X", 5*3600))))
}

// CheckText counts Unicode code points, not bytes and not grapheme clusters:
// a thumbs-up with a skin tone is two, a decomposed "é" is two.
func TestAuditCheckTextCountsCodePoints(t *testing.T) {
	a := ChannelAccount{Capabilities: Capabilities{MaxTextLength: 2}}
	assert.NoError(t, a.CheckText("éé"))                   // 4 bytes, 2 code points
	assert.NoError(t, a.CheckText("\U0001F44D\U0001F3FD")) // one grapheme, 2 code points
	var le *LengthError
	require.ErrorAs(t, a.CheckText("e\u0301e"), &le) // 2 graphemes, 3 code points
	assert.Equal(t, 3, le.Length)
}

// The file host never sees the caller's cookies, whatever the jar holds.
func TestAuditDownloadSendsNoCookies(t *testing.T) {
	var fileHeaders http.Header
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fileHeaders = r.Header.Clone()
		_, _ = io.WriteString(w, "data")
	}))
	defer files.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, okJSON(`{"media_id":"m1","url":"`+files.URL+`/f?sig=1","expires_at":"2999-01-01T00:00:00.000Z"}`))
	}))
	defer api.Close()
	jar, _ := cookiejar.New(nil)
	fu, _ := url.Parse(files.URL)
	jar.SetCookies(fu, []*http.Cookie{{Name: "session", Value: "s3cr3t"}})
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL(api.URL+"/v1"), WithAuthScheme(AuthXAPIKey),
		WithHTTPClient(&http.Client{Jar: jar}))
	require.NoError(t, err)
	var b strings.Builder
	n, err := c.Attachments.Download(context.Background(),
		Message{MessageID: "x", Media: &Media{MediaID: "m1", MediaStatus: MediaAvailable}}, &b)
	require.NoError(t, err)
	assert.Equal(t, int64(4), n)
	assert.Empty(t, fileHeaders.Values("Cookie"))
	assert.Empty(t, fileHeaders.Values("X-Api-Key"))
	assert.Empty(t, fileHeaders.Values("Authorization"))
}

// Finding: a 204 No Content (or an answer to HEAD) from an endpoint reached
// through Do was reported as a malformed response, although D12 accepts any
// 2xx and such answers have no body by definition.
func TestAuditNoContentIsASuccess(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterResponder("DELETE", mockBase+"/chatapp/templates/t1", httpmock.NewBytesResponder(204, nil))
	env.mock.RegisterResponder("HEAD", mockBase+"/channels", httpmock.NewBytesResponder(200, nil))
	env.mock.RegisterResponder("GET", mockBase+"/empty", httpmock.NewBytesResponder(200, nil))
	out := map[string]any{"kept": true}
	require.NoError(t, env.c.Do(context.Background(), "DELETE", "/chatapp/templates/t1", nil, nil, &out))
	assert.Equal(t, map[string]any{"kept": true}, out)
	require.NoError(t, env.c.Do(context.Background(), "HEAD", "/channels", nil, nil, nil))
	// An empty 200 to GET is still not the envelope.
	err := env.c.Do(context.Background(), "GET", "/empty", nil, nil, nil)
	assert.ErrorIs(t, err, ErrMalformedResponse)
}

// Findings on the attempt log: the path was logged decoded (an id "a/b" read
// as two segments), a redirect hop counted as a new attempt, and a transport
// error's text was logged whole, though a wrapping transport may quote the
// URL with its query values (personal data).
func TestAuditAttemptLogPathAttemptAndError(t *testing.T) {
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

// Finding: ranging over an All iterator built with a nil context panicked
// (every other entry point reports an error).
func TestAuditIteratorWithNilContext(t *testing.T) {
	env := newMock(t)
	var nilCtx context.Context
	n := 0
	for _, err := range env.c.Messages.All(nilCtx, "c1", nil) {
		require.Error(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	assert.Zero(t, env.mock.GetTotalCallCount())
}

// Finding: a base URL whose prefix holds an escaped character lost its
// escaping (/a%2Fb/v1 became /a/b/v1, another path).
func TestAuditBaseURLKeepsItsEscaping(t *testing.T) {
	c, err := NewClient(WithAPIKey(testKey), WithBaseURL("https://api.convo.test/tenant%2F7/v1/"))
	require.NoError(t, err)
	assert.Equal(t, "https://api.convo.test/tenant%2F7/v1", c.BaseURL())
	c, err = NewClient(WithAPIKey(testKey), WithBaseURL("https://api.convo.test/v1"))
	require.NoError(t, err)
	assert.Equal(t, "https://api.convo.test/v1", c.BaseURL())
}

// Timestamps decode from the D18 layout and any RFC 3339 variant; a null is
// distinct from the zero time.
func TestAuditTimestampVariants(t *testing.T) {
	want := time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC)
	for in, w := range map[string]time.Time{
		"2026-11-22T10:04:05.123Z":            want.Add(123 * time.Millisecond),
		"2026-11-22T10:04:05Z":                want,
		"2026-11-22T07:04:05-03:00":           want,
		"2026-11-22T10:04:05.123456789Z":      want.Add(123456789),
		"2026-11-22T12:04:05.5+02:00":         want.Add(500 * time.Millisecond),
		"2026-11-22T10:04:05.000000000+00:00": want,
	} {
		var m Message
		require.NoError(t, json.Unmarshal([]byte(`{"sent_at":"`+in+`","read_at":null}`), &m), in)
		require.NotNil(t, m.SentAt, in)
		assert.True(t, w.Equal(*m.SentAt), in)
		assert.Nil(t, m.ReadAt, "null is not the zero time")
		assert.Nil(t, m.DeliveredAt, "absent is not the zero time")
	}
}

// Every service has a runnable godoc example (issue 3).
func TestAuditEveryServiceHasAnExample(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	examples := map[string]bool{}
	services := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasPrefix(d.Name.Name, "Example") {
					examples[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok && !strings.HasSuffix(name, "_test.go") &&
						strings.HasSuffix(ts.Name.Name, "Service") && ast.IsExported(ts.Name.Name) {
						services[ts.Name.Name] = true
					}
				}
			}
		}
	}
	require.Len(t, services, 7)
	for s := range services {
		found := false
		for ex := range examples {
			found = found || strings.HasPrefix(ex, "Example"+s+"_")
		}
		assert.True(t, found, "no Example for %s", s)
	}
	assert.True(t, examples["ExampleClient_Do"], "no Example for Client.Do")
}

// Finding: a 429 from a proxy (no envelope, D11) was not errors.Is
// ErrRateLimited, so the documented way to detect rate limiting missed it;
// likewise a bare 401 and ErrUnauthorized. Other statuses stay code-only.
func TestAuditBareStatusMatchesItsOnlyCode(t *testing.T) {
	env := newMock(t, WithMaxRetries(0))
	env.mock.RegisterResponder("GET", mockBase+"/channels",
		responder(429, "<html>Too Many Requests</html>", "Retry-After", "7", "Content-Type", "text/html"))
	_, err := env.c.Channels.List(context.Background())
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.Code)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.ErrorIs(t, err, ErrMalformedResponse)
	assert.NotErrorIs(t, err, ErrUnauthorized)
	assert.Equal(t, 7*time.Second, apiErr.RetryAfter)

	assert.ErrorIs(t, &Error{StatusCode: 401}, ErrUnauthorized)
	assert.NotErrorIs(t, &Error{StatusCode: 401}, ErrRateLimited)
	assert.NotErrorIs(t, &Error{StatusCode: 404}, ErrContactNotFound)
	assert.NotErrorIs(t, &Error{StatusCode: 429, Code: "SOMETHING_ELSE"}, ErrRateLimited)
}

// closeCounter is a transport that counts CloseIdleConnections calls.
type closeCounter struct {
	http.RoundTripper
	closes atomic.Int64
}

func (c *closeCounter) CloseIdleConnections() { c.closes.Add(1) }

// retryablehttp calls CloseIdleConnections whenever it gives up (retries run
// out, a context ends during a backoff, a non-retryable failure): the pool
// must survive all of these; only Client.CloseIdleConnections reaches it.
func TestAuditGivingUpDoesNotFlushThePool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := httpmock.NewMockTransport()
		tr := &closeCounter{RoundTripper: mock}
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithHTTPClient(&http.Client{Transport: tr}),
			WithRetryWait(time.Second, time.Second))
		require.NoError(t, err)
		mock.RegisterResponder("GET", mockBase+"/storm", responder(429, errJSON(429, "RATE_LIMITED", "slow")))
		mock.RegisterResponder("GET", mockBase+"/slow", responder(429, errJSON(429, "RATE_LIMITED", "slow"), "Retry-After", "5"))
		mock.RegisterResponder("POST", mockBase+"/down", connRefused)
		mock.RegisterResponder("GET", mockBase+"/gone", connRefused)

		require.ErrorIs(t, c.Do(context.Background(), "GET", "/storm", nil, nil, nil), ErrRateLimited)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		require.ErrorIs(t, c.Do(ctx, "GET", "/slow", nil, nil, nil), context.Canceled)
		require.Error(t, c.Do(context.Background(), "POST", "/down", nil, nil, nil))
		require.Error(t, c.Do(context.Background(), "GET", "/gone", nil, nil, nil))
		assert.Zero(t, tr.closes.Load(), "the pool was flushed")

		c.CloseIdleConnections()
		assert.Equal(t, int64(1), tr.closes.Load())
	})
}

// Finding: WithRetryWait(0, max) waited between max/2 and max before every
// retry (min·2ⁿ = 0 was taken for an overflow); min·2ⁿ is 0, as documented
// and as in retryablehttp.
func TestAuditZeroMinimumWaitMeansNoWait(t *testing.T) {
	for n := range 70 {
		assert.Zero(t, jitteredBackoff(0, 8*time.Second, n), n)
		d := jitteredBackoff(time.Second, 8*time.Second, n)
		assert.LessOrEqual(t, d, 8*time.Second, n)
		assert.Greater(t, d, time.Duration(0), n)
	}
	assert.Equal(t, time.Duration(1<<62), baseBackoff(1, 1<<62, 62))
	assert.Equal(t, 3*time.Second, baseBackoff(time.Second, 3*time.Second, 2))
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t, WithRetryWait(0, 8*time.Second))
		env.mock.RegisterNoResponder(sequence(responder(503, errJSON(503, "UNAVAILABLE", "busy")), responder(200, okJSON(`{"items":[]}`))))
		start := time.Now()
		_, err := env.c.Channels.List(context.Background())
		require.NoError(t, err)
		assert.Zero(t, time.Since(start))
	})
}

// Finding: a zero Client (not built with NewClient) panicked on Do.
func TestAuditZeroClientFailsCleanly(t *testing.T) {
	var c Client
	assert.Error(t, c.Do(context.Background(), "GET", "/channels", nil, nil, nil))
	assert.NotEmpty(t, c.String())
}

// A transport failure that coincides with the end of the context reads on one
// line and matches both the context error and the failure.
func TestAuditTransportErrorWithContextIsOneLine(t *testing.T) {
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
func TestAuditKeyInATransportErrorIsRedacted(t *testing.T) {
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

// Typed endpoints always answer with the envelope: a 204 there is still a
// malformed answer, not an empty result.
func TestAuditNoContentOnATypedEndpointIsAnError(t *testing.T) {
	env := newMock(t, WithMaxRetries(0))
	env.mock.RegisterNoResponder(httpmock.NewBytesResponder(204, nil))
	_, err := env.c.Messages.List(context.Background(), "c1", nil)
	assert.ErrorIs(t, err, ErrMalformedResponse)
}

// Finding: a base URL with an empty query ("…/v1?", a copy-paste slip) was
// accepted as is, and every call went to {base}?/channels — the path ended up
// in the query string.
func TestAuditBaseURLWithAnEmptyQuery(t *testing.T) {
	for _, raw := range []string{"https://api.convo.test/v1?", "https://api.convo.test/v1/?", "https://api.convo.test/v1#"} {
		env := newMock(t, WithBaseURL(raw))
		assert.Equal(t, mockBase, env.c.BaseURL(), raw)
		var path string
		env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
			path = r.URL.Path
			return responder(200, okJSON(`{"items":[]}`))(r)
		})
		_, err := env.c.Channels.List(context.Background())
		require.NoError(t, err, raw)
		assert.Equal(t, "/v1/channels", path, raw)
	}
}

// Concurrent calls that are retried, logged and fail keep their own state
// (attempt counts, planned waits): run under -race.
func TestAuditConcurrentRetriedCalls(t *testing.T) {
	env := newMock(t, WithRetryWait(0, time.Millisecond))
	var mu sync.Mutex
	seen := map[string]int{}
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		if n == 1 {
			return responder(429, errJSON(429, "RATE_LIMITED", "slow"), "Retry-After", "0")(r)
		}
		if strings.HasSuffix(r.URL.Path, "/bad/messages") {
			return responder(404, errJSON(404, "CONVERSATION_NOT_FOUND", "Conversation not found"))(r)
		}
		return responder(200, okJSON(`{"items":[],"next_cursor":null}`))(r)
	})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			id := fmt.Sprintf("c%d", i)
			if i%4 == 0 {
				id = fmt.Sprintf("c%d/bad", i)
			}
			_, err := env.c.Messages.List(context.Background(), id, nil)
			if i%4 == 0 {
				assert.ErrorIs(t, err, ErrConversationNotFound)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 80, env.mock.GetTotalCallCount())
	assert.Equal(t, 40, strings.Count(env.logs.String(), "attempt=2"))
}

// cutServer answers its first request (per path) with a body cut short: the
// headers promise 1000 bytes, 10 arrive, then the connection closes.
func cutServer(t *testing.T, cuts int) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if int(n.Add(1)) <= cuts {
			conn, bufrw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = bufrw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"success\":")
			_ = bufrw.Flush()
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okJSON(`{"items":[{"id":"a"}],"message":"ok"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// Finding: a connection cut while the body was being read (after the status
// line) was never retried, even for a GET: retryablehttp hands the response
// over before the body is read, so the failure escaped the retry policy that
// covers every other transport error. It is now retried like one, from the
// same budget; a POST still is not.
func TestAuditBodyCutMidwayIsRetriedForSafeMethods(t *testing.T) {
	t.Run("GET is retried", func(t *testing.T) {
		srv, n := cutServer(t, 2)
		logs := &syncBuffer{}
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithRetryWait(0, 0),
			WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		require.NoError(t, err)
		got, err := c.Channels.List(context.Background())
		require.NoError(t, err)
		assert.Len(t, got, 1)
		assert.Equal(t, int64(3), n.Load())
		assert.Equal(t, 2, strings.Count(logs.String(), "reading the body failed"))
		assert.Contains(t, logs.String(), "attempt=3")
		assert.NotContains(t, logs.String(), testKey)
	})
	t.Run("budget shared with retryablehttp", func(t *testing.T) {
		srv, n := cutServer(t, 100)
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithRetryWait(0, 0), WithMaxRetries(2))
		require.NoError(t, err)
		_, err = c.Channels.List(context.Background())
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Equal(t, int64(3), n.Load(), "1 attempt + 2 retries")
	})
	t.Run("POST is not retried", func(t *testing.T) {
		srv, n := cutServer(t, 1)
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(srv.URL+"/v1"), WithRetryWait(0, 0))
		require.NoError(t, err)
		_, err = c.Contacts.Create(context.Background(), &CreateContactParams{PhoneNumber: "5511987654321", Name: "Ana"})
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, int64(1), n.Load())
	})
}
