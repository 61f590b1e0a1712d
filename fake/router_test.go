package fake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The router matches the escaped path: an id holding an encoded "/" is one
// segment and reaches its endpoint, which answers with its own 404 code.
func TestEscapedIDReachesItsEndpoint(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ID: "abc/def", Contact: b.ana})
	b.co.Inbound(conv, "hello", t0.Add(-time.Hour))
	tests := []struct {
		name, path string
		status     int
		code       convo.ErrorCode
	}{
		{"unknown id with a slash", "/v1/conversations/abc%2Fxyz/messages", 404, "CONVERSATION_NOT_FOUND"},
		{"lower-case escape", "/v1/conversations/abc%2fxyz/messages", 404, "CONVERSATION_NOT_FOUND"},
		{"seeded id with a slash", "/v1/conversations/abc%2Fdef/messages", 200, ""},
		{"media id with a slash", "/api/v1/attachments/a%2Fb", 404, "MEDIA_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := callRaw(t, s, http.MethodGet, tc.path, nil, bearer(s.APIKey()))
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			if tc.code != "" {
				assert.Equal(t, string(tc.code), r.JSON(t)["message"].(map[string]any)["error"])
			}
		})
	}
}

// HEAD answers wherever GET does, with the same status and headers and no
// body, errors included.
func TestHeadMirrorsGet(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{Contact: b.ana})
	b.co.Inbound(conv, "hello", t0.Add(-time.Hour))
	for _, p := range []string{
		"/v1/channels", "/api/v1/conversations", "/v1/conversations/" + conv + "/messages",
		"/v1/conversations/anomalies", "/v1/conversations/nope/messages",
		"/v1/chatapp/contacts/lookup?phone_number=5511987654321",
	} {
		t.Run(p, func(t *testing.T) {
			g := callRaw(t, s, http.MethodGet, p, nil, bearer(s.APIKey()))
			h := callRaw(t, s, http.MethodHead, p, nil, bearer(s.APIKey()))
			assert.Equal(t, g.Status, h.Status)
			assert.Equal(t, g.Header.Get("Content-Type"), h.Header.Get("Content-Type"))
			if g.Status == http.StatusOK { // an error body names its method, HEAD or GET
				assert.Equal(t, g.Header.Get("Content-Length"), h.Header.Get("Content-Length"))
			}
			assert.Empty(t, h.Body)
		})
	}
}

// A query parameter given twice is INVALID_PARAM naming it, whichever value
// comes first: never a silent first-wins.
func TestRepeatedQueryParameters(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	tests := []struct{ query, param string }{
		{"/conversations?limit=1&limit=500", "limit"},
		{"/conversations?limit=500&limit=1", "limit"},
		{"/conversations?status=open&status=bogus", "status"},
		{"/conversations?status=open&status=open", "status"},
		{"/conversations/anomalies?include=unassigned&include=automation_only", "include"},
		{"/conversations/anomalies?include=unassigned&include=bogus", "include"},
		{"/chatapp/contacts/lookup?phone_number=5511987654321&phone_number=1", "phone_number"},
		{"/channels?x=1;y&x=2", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, s, tc.query)
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			msg := r.JSON(t)["message"].(map[string]any)
			assert.Equal(t, "INVALID_PARAM", msg["error"])
			assert.Contains(t, msg["message"], tc.param+" is given more than once")
		})
	}
	assert.Equal(t, http.StatusOK, get(t, s, "/conversations/anomalies?include=unassigned,automation_only").Status)
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

// Routing (doc.go): HEAD is served wherever GET is; other methods are 405
// with Allow, in the envelope, no 401 first; the path is exact: a trailing
// slash, an encoded slash and an empty segment are other paths (404).
func TestAuditMethodsAndPaths(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"HEAD", "/v1/channels", 200, "", ""},
		{"OPTIONS", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"OPTIONS", "/v1/chatapp/contacts", 405, "METHOD_NOT_ALLOWED", "POST"},
		{"PURGE", "/v1/conversations", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"get", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"GET", "/v1/channels/", 404, "NOT_FOUND", ""},
		{"GET", "/v1/channels%2F", 404, "NOT_FOUND", ""},
		{"GET", "/v1/channels%2f", 404, "NOT_FOUND", ""},
		{"GET", "/api/v1/conversations/", 404, "NOT_FOUND", ""},
		{"GET", "/v1//channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/./channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/x/../channels", 404, "NOT_FOUND", ""},
		{"GET", "/v1/conversations//messages", 404, "NOT_FOUND", ""},
		{"GET", "/v1", 404, "NOT_FOUND", ""},
		{"GET", "/v2/channels", 404, "NOT_FOUND", ""},
		{"GET", "/api/v1x/channels", 404, "NOT_FOUND", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := callRaw(t, s, tc.method, tc.path, nil, bearer(s.APIKey()))
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			assert.Equal(t, tc.allow, r.Header.Get("Allow"))
			if tc.code != "" {
				assertError(t, r, tc.status, convo.ErrorCode(tc.code), "", strings.Replace(strings.Replace(tc.path, "/v1", "/api/v1", 1), "/api/api/", "/api/", 1), tc.method, "")
			}
		})
	}
}

// Query strings (doc.go): a malformed escape is 400 INVALID_PARAM after
// authentication; a ";" is part of a value, as on the service's stack.
func TestAuditMalformedQueryStrings(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	r := callRaw(t, s, "GET", "/v1/conversations?limit=%zz", nil, bearer(s.APIKey()))
	assertError(t, r, 400, "INVALID_PARAM", "The query string is malformed.", "/api/v1/conversations", "GET", "")
	r = callRaw(t, s, "GET", "/v1/conversations?limit=%zz", nil)
	assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/conversations", "GET", "")
	r = get(t, s, "/conversations?status=open;resolved")
	assertError(t, r, 400, "INVALID_PARAM", "status must be one of open, resolved, archived, all", "/api/v1/conversations", "GET", "")
	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321;x")
	assert.Equal(t, 200, r.Status, "the digits of 5511987654321;x are a phone: %s", r.Body)
	reqs := s.Requests()
	assert.Equal(t, []string{"open;resolved"}, reqs[len(reqs)-2].Query["status"])
}
