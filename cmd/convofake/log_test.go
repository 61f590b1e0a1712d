package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
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
