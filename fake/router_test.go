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
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ID: "abc/def", ContactID: b.ana})
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
