package fake_test

import (
	"net/http"
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
	s, b := newBasic(t, fake.WithReadableIDs())
	conv := b.co.AddConversation(fake.Conversation{ID: "abc/def", ContactID: b.ana}) // WithReadableIDs
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
			r := call(t, s, http.MethodGet, tc.path, nil)
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
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
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

// Query strings (docs/behaviour.md, Strict input): a parameter given twice
// is INVALID_PARAM naming it, whichever value comes first, never a silent
// first-wins; a malformed escape is INVALID_PARAM after authentication; a
// ";" is part of a value, as on the service's stack.
func TestQueryStrings(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	r := callRaw(t, s, "GET", "/v1/conversations?limit=%zz", nil)
	assertError(t, r, 401, "UNAUTHORIZED", "Invalid or missing API key.", "/api/v1/conversations", "GET", "")
	twice := func(param string) string {
		return param + " is given more than once; give it once (a list is one comma-separated value)"
	}
	tests := []struct{ query, msg string }{
		{"/conversations?limit=1&limit=500", twice("limit")},
		{"/conversations?limit=500&limit=1", twice("limit")},
		{"/conversations?status=open&status=bogus", twice("status")},
		{"/conversations?status=open&status=open", twice("status")},
		{"/conversations/anomalies?include=unassigned&include=automation_only", twice("include")},
		{"/conversations/anomalies?include=unassigned&include=bogus", twice("include")},
		{"/chatapp/contacts/lookup?phone_number=5511987654321&phone_number=1", twice("phone_number")},
		{"/channels?x=1;y&x=2", twice("x")},
		{"/conversations?limit=%zz", "The query string is malformed."},
		{"/conversations?status=open;resolved", "status must be one of open, resolved, archived, all"},
		// ";" does not split the value, which is then not a phone (letters)
		{"/chatapp/contacts/lookup?phone_number=5511987654321;x", "phone_number must be a country code plus digits; only spaces and + - ( ) . may separate them"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			assertError(t, get(t, s, tc.query), 400, "INVALID_PARAM", tc.msg, errPath("/v1"+tc.query), "GET", "")
		})
	}
	assert.Equal(t, http.StatusOK, get(t, s, "/conversations/anomalies?include=unassigned,automation_only").Status)
	reqs := s.RequestsMatching("GET", "/conversations")
	assert.Equal(t, []string{"open;resolved"}, reqs[len(reqs)-1].Query["status"])
}

// Routing (docs/behaviour.md, The fake): HEAD is served wherever GET is;
// other methods are 405 with Allow, in the envelope, no 401 first; the path
// is exact: a trailing slash, an encoded slash and an empty segment are
// other paths (404), and so is anything outside /v1 and /api/v1.
func TestMethodsAndPaths(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"HEAD", "/v1/channels", 200, "", ""},
		{"POST", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"OPTIONS", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"OPTIONS", "/v1/chatapp/contacts", 405, "METHOD_NOT_ALLOWED", "POST"},
		{"GET", "/v1/chatapp/contacts", 405, "METHOD_NOT_ALLOWED", "POST"},
		{"PUT", "/v1/chatapp/contacts/tags", 405, "METHOD_NOT_ALLOWED", "DELETE"},
		{"PURGE", "/v1/conversations", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"get", "/v1/channels", 405, "METHOD_NOT_ALLOWED", "GET, HEAD"},
		{"GET", "/v1/nope?x=1", 404, "NOT_FOUND", ""},
		{"GET", "/api/v1/conversations/x", 404, "NOT_FOUND", ""},
		{"GET", "/", 404, "NOT_FOUND", ""},
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
			r := call(t, s, tc.method, tc.path, nil)
			require.Equal(t, tc.status, r.Status, "%s", r.Body)
			assert.Equal(t, tc.allow, r.Header.Get("Allow"))
			if tc.code != "" {
				assertError(t, r, tc.status, convo.ErrorCode(tc.code), "", errPath(tc.path), tc.method, "")
			}
		})
	}
}
