package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// A log line never holds a key, not even one a client put in the path as an
// id, as sent or percent-escaped; nor the token of an attachment URL.
func TestLogLinesHoldNoKey(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	key := srv.APIKey()
	other := srv.AddCompany("other-company-key").APIKey()
	var buf bytes.Buffer
	h := logRequests(slog.New(slog.NewTextHandler(&buf, nil)), srv, srv.Handler())
	for _, target := range []string{
		"/v1/conversations/" + key + "/messages",
		"/v1/conversations/%6Fther-company-key/messages",
		"/v1/conversations/x" + other + "y/messages",
		"/_files/secret-token",
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}
	out := buf.String()
	for _, k := range []string{key, other, "secret-token"} {
		assert.NotContains(t, out, k)
	}
	assert.Contains(t, out, "path=/v1/conversations/[REDACTED]/messages")
	assert.Contains(t, out, "path=/v1/conversations/x[REDACTED]y/messages")
	assert.Contains(t, out, "path=/_files/[REDACTED]")
}

// Every company's key, escaped once or twice over in every form of
// internal/testkit and sent as an id in the path, is in no log line, in
// either log format.
func TestLogLinesHoldNoKeyInAnyForm(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	for _, k := range testkit.Keys {
		srv.AddCompany(k)
	}
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		h := logRequests(newLogger(format, &buf), srv, srv.Handler())
		lines := 0
		for _, key := range testkit.Keys {
			for _, e1 := range testkit.Escapings {
				for _, form := range append([]string{e1(key)}, mapValues(testkit.Escapings, func(e2 func(string) string) string { return e2(e1(key)) })...) {
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/conversations/"+url.PathEscape(form)+"/messages", nil))
					lines++
				}
			}
		}
		out := buf.String()
		require.Equal(t, lines, strings.Count(out, "\n"))
		for _, key := range testkit.Keys {
			for name, f := range testkit.Escapings {
				assert.NotContains(t, out, f(key), "%s log: the %s form of a key", format, name)
			}
		}
		assert.Equal(t, lines, strings.Count(out, "[REDACTED]"), "%s log: one redaction per line", format)
	}
}

// mapValues applies f to every value of m.
func mapValues[K comparable, V, R any](m map[K]V, f func(V) R) []R {
	out := make([]R, 0, len(m))
	for _, v := range m {
		out = append(out, f(v))
	}
	return out
}
