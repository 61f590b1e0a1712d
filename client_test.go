package convo

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientConstructionErrors(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvBaseURL, "")
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"no key", []Option{WithBaseURL(mockBase)}, "no API key"},
		{"blank key", []Option{WithAPIKey("  "), WithBaseURL(mockBase)}, "no API key"},
		{"key with newline", []Option{WithAPIKey("a\nb"), WithBaseURL(mockBase)}, "line break"},
		{"no base URL", []Option{WithAPIKey(testKey)}, "no base URL"},
		{"base without /v1", []Option{WithAPIKey(testKey), WithBaseURL("https://api.convo.test")}, "must end with /v1"},
		{"base with /v2", []Option{WithAPIKey(testKey), WithBaseURL("https://api.convo.test/v2")}, "must end with /v1"},
		{"bad scheme", []Option{WithAPIKey(testKey), WithBaseURL("ftp://api.convo.test/v1")}, "scheme"},
		{"no host", []Option{WithAPIKey(testKey), WithBaseURL("https:///v1")}, "no host"},
		{"query in base", []Option{WithAPIKey(testKey), WithBaseURL("https://api.convo.test/v1?x=1")}, "query"},
		{"credentials in base", []Option{WithAPIKey(testKey), WithBaseURL("https://u:hunter2secret@api.convo.test/v1")}, "credentials"},
		{"unparsable base with credentials", []Option{WithAPIKey(testKey), WithBaseURL("https://u:hunter2secret@api .convo.test/v1")}, "invalid base URL"},
		{"plain http to remote host", []Option{WithAPIKey(testKey), WithBaseURL("http://api.convo.test/v1")}, "WithInsecureHTTP"},
		{"negative retries", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithMaxRetries(-1)}, "negative"},
		{"retry wait min > max", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithRetryWait(2*time.Second, time.Second)}, "min <= max"},
		{"nil http client", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithHTTPClient(nil)}, "nil client"},
		{"unknown auth scheme", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithAuthScheme(AuthScheme(9))}, "unknown scheme"},
		{"zero body cap", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithMaxResponseBytes(0)}, "positive"},
		// Header values are checked here, not on every call; the key is never quoted.
		{"user agent with CRLF", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithUserAgent("app/1\r\nX-Evil: 1")}, "control character"},
		{"user agent with NUL", []Option{WithAPIKey(testKey), WithBaseURL(mockBase), WithUserAgent("app\x00")}, "control character"},
		{"key with NUL", []Option{WithAPIKey(testKey + "\x00"), WithBaseURL(mockBase)}, "control character"},
		{"key with DEL", []Option{WithAPIKey(testKey + "\x7f"), WithBaseURL(mockBase)}, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "hunter2secret", "credentials of the base URL are never quoted")
			assertNoKey(t, err)
		})
	}
}

func TestNewClientAccepts(t *testing.T) {
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvBaseURL, "")
	tests := []struct {
		name, base, want string
		opts             []Option
	}{
		{"https", "https://api.convo.test/v1", "https://api.convo.test/v1", nil},
		{"trailing slash", "https://api.convo.test/v1/", "https://api.convo.test/v1", nil},
		{"prefix path", "https://gw.convo.test/api/convo/v1", "https://gw.convo.test/api/convo/v1", nil},
		{"loopback http", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", nil},
		{"ipv6 loopback http", "http://[::1]:8080/v1", "http://[::1]:8080/v1", nil},
		{"localhost http", "http://localhost:8080/v1", "http://localhost:8080/v1", nil},
		{"insecure opt-in", "http://convo.internal/v1", "http://convo.internal/v1", []Option{WithInsecureHTTP()}},
		{"escaped prefix kept", "https://api.convo.test/tenant%2F7/v1/", "https://api.convo.test/tenant%2F7/v1", nil},
		{"empty query dropped", "https://api.convo.test/v1?", mockBase, nil},
		{"empty query after slash dropped", "https://api.convo.test/v1/?", mockBase, nil},
		{"empty fragment dropped", "https://api.convo.test/v1#", mockBase, nil},
		{"user agent with a tab", mockBase, mockBase, []Option{WithUserAgent("app/1.0 (+https://example.com)\tx")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(append([]Option{WithAPIKey(testKey), WithBaseURL(tt.base)}, tt.opts...)...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.BaseURL())
		})
	}
}

// A base URL with an empty query ("…/v1?", a copy-paste slip) once sent every
// call to {base}?/channels: the path ended up in the query string.
func TestBaseURLWithAnEmptyQueryKeepsThePath(t *testing.T) {
	env := newMock(t, WithBaseURL("https://api.convo.test/v1?"))
	var path string
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		path = r.URL.Path
		return responder(200, okJSON(`{"items":[]}`))(r)
	})
	_, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "/v1/channels", path)
}

func TestNewClientFromEnvironment(t *testing.T) {
	t.Setenv(EnvAPIKey, testKey)
	t.Setenv(EnvBaseURL, mockBase)
	c, err := NewClient()
	require.NoError(t, err)
	assert.Equal(t, mockBase, c.BaseURL())
	assert.Equal(t, testKey, c.apiKey)

	// Options win over the environment.
	c, err = NewClient(WithAPIKey("other"), WithBaseURL("https://other.convo.test/v1"))
	require.NoError(t, err)
	assert.Equal(t, "https://other.convo.test/v1", c.BaseURL())
	assert.Equal(t, "other", c.apiKey)
}

func TestAuthSchemes(t *testing.T) {
	tests := []struct {
		name       string
		opts       []Option
		header     string
		value      string
		noneHeader string
	}{
		{"default bearer", nil, "Authorization", "Bearer " + testKey, "x-api-key"},
		{"bearer", []Option{WithAuthScheme(AuthBearer)}, "Authorization", "Bearer " + testKey, "x-api-key"},
		{"apikey", []Option{WithAuthScheme(AuthAPIKey)}, "Authorization", "ApiKey " + testKey, "x-api-key"},
		{"x-api-key", []Option{WithAuthScheme(AuthXAPIKey)}, "x-api-key", testKey, "Authorization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newMock(t, tt.opts...)
			var got *http.Request
			env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
				got = r
				return responder(200, okJSON(`{"id":"c1","phone_number":"5511987654321","name":"Ana","email":null,"gender":null,"tag_names":""}`))(r)
			})
			_, err := env.c.Contacts.Lookup(context.Background(), &LookupContactParams{PhoneNumber: "5511987654321"})
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Equal(t, tt.value, got.Header.Get(tt.header))
			assert.Empty(t, got.Header.Get(tt.noneHeader))
			assert.NotContains(t, got.URL.RawQuery, testKey, "the key must never travel in the query string")
			assert.Equal(t, "application/json", got.Header.Get("Accept"))
			assert.True(t, strings.HasPrefix(got.Header.Get("User-Agent"), "convo-go/"+Version+" go/"))
		})
	}
}

func TestUserAgentAppends(t *testing.T) {
	env := newMock(t, WithUserAgent("acme-sync/2.1"))
	var ua string
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		ua = r.Header.Get("User-Agent")
		return responder(200, okJSON(`{"items":[]}`))(r)
	})
	_, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Regexp(t, `^convo-go/\d+\.\d+\.\d+ go/go1\.\S+ acme-sync/2\.1$`, ua)
}

func TestRedirectToAnotherHostIsNotFollowed(t *testing.T) {
	var sawKey bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawKey = r.Header.Get("x-api-key") != "" || r.Header.Get("Authorization") != ""
		w.WriteHeader(200)
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	}))
	defer api.Close()
	for _, scheme := range []AuthScheme{AuthBearer, AuthXAPIKey} {
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(api.URL+"/v1"), WithAuthScheme(scheme))
		require.NoError(t, err)
		_, err = c.Channels.List(context.Background())
		var apiErr *Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusFound, apiErr.StatusCode)
		assert.False(t, sawKey, "the key reached another host through a redirect")
		assertNoKey(t, err)
	}
}

// A same-host redirect from https to plain http is not followed: it would
// send the key in clear text. A same-scheme, same-host redirect is.
func TestRedirectDowngradeToHTTPIsNotFollowed(t *testing.T) {
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
	env := newMock(t)
	env.mock.RegisterResponder("GET", mockBase+"/channels", responder(307, "", "Location", mockBase+"/channels2"))
	env.mock.RegisterResponder("GET", mockBase+"/channels2", responder(200, okJSON(`{"items":[{"id":"a"}]}`)))
	got, err := env.c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, got, 1)
}

// Printing a client (%v, %+v, %#v, slog, a dereferenced Client) shows its
// base URL, never its key.
func TestPrintingAClientDoesNotRevealTheKey(t *testing.T) {
	c := newMock(t).c
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
	assert.True(t, strings.HasPrefix(fmt.Sprint(c), "convo.Client{"))
	assert.Contains(t, c.String(), mockBase)
	assert.Contains(t, c.String(), "[REDACTED]")
}

// A zero Client (not built with NewClient) fails cleanly instead of panicking.
func TestZeroClientFailsCleanly(t *testing.T) {
	var c Client
	assert.Error(t, c.Do(context.Background(), "GET", "/channels", nil, nil, nil))
	assert.NotEmpty(t, c.String())
}
