package fake

import (
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fastRoute answers as the mux does wherever it answers at all: the same
// endpoint and the same decoded id, for every method and a spread of paths
// (clean or not, escaped or not, under either prefix or none); and it
// answers the plain paths of every endpoint itself.
func TestFastRouteAgreesWithTheMux(t *testing.T) {
	paths := []string{
		"/v1/channels", "/api/v1/channels", "/channels", "/v1/channels/", "/v1/channels/x", "/v1//channels",
		"/v1/conversations", "/v1/conversations/", "/v1/conversations/anomalies", "/api/v1/conversations/anomalies/",
		"/v1/conversations/c-1/messages", "/api/v1/conversations/c-1/messages", "/v1/conversations/anomalies/messages",
		"/v1/conversations//messages", "/v1/conversations/a/b/messages", "/v1/conversations/c-1/messages/",
		"/v1/conversations/c-1/messagesx", "/v1/conversations/abc%2Fdef/messages", "/v1/conversations/%7Bid%7D/messages",
		"/v1/conversations/{id}/messages", "/v1/attachments/m-1", "/v1/attachments/", "/v1/attachments/m-1/x",
		"/v1/chatapp/contacts", "/v1/chatapp/contacts/lookup", "/v1/chatapp/contacts/custom-fields",
		"/v1/chatapp/contacts/tags", "/v1/chatapp/sequences/cancel", "/v1/ch%61nnels", "/_files/tok", "/",
		"/v1", "/v1/", "/api/v1", "/v2/channels", "/v1/./channels", "/v1/conversations/../channels",
	}
	methods := []string{"GET", "HEAD", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "get"}
	for _, p := range paths {
		for _, m := range methods {
			r := httptest.NewRequest(m, "http://h"+p, nil)
			escaped := r.URL.EscapedPath()
			ep, arg, ok := fastRoute(m, escaped)
			if !ok || !isClean(escaped) {
				continue // route asks the mux (or answers 404 first)
			}
			h, pattern := router.Handler(r)
			want, isEP := h.(*endpoint)
			if assert.True(t, isEP && pattern != "", "%s %s: the mux finds no endpoint", m, p) {
				assert.Same(t, want, ep, "%s %s", m, p)
				_, rel := splitPrefix(escaped)
				if want.wildcard >= 0 {
					assert.Equal(t, strings.Split(rel, "/")[want.wildcard], arg, "%s %s", m, p)
				} else {
					assert.Empty(t, arg, "%s %s", m, p)
				}
			}
		}
	}
	for _, ep := range endpoints {
		p := "/v1" + ep.path
		if ep.wildcard >= 0 {
			p = "/v1" + strings.Replace(ep.path, "{id}", "id-1", 1)
		}
		got, _, ok := fastRoute(ep.method, p)
		assert.True(t, ok, "%s %s", ep.method, p)
		assert.Same(t, ep, got, "%s %s", ep.method, p)
	}
}

// isClean's quick answer is path.Clean's: a path is clean when cleaning
// leaves it as it is (a trailing slash kept).
func TestIsClean(t *testing.T) {
	for _, p := range []string{
		"/", "", "*", "v1/channels", "/v1/channels", "/v1/channels/", "/v1//channels", "//", "/v1/./x", "/v1/../x",
		"/v1/x/.", "/v1/x/..", "/v1/.hidden", "/v1/x.y", "/v1/x/..y", "/v1/x/.../y", "/.", "/..", "/a%2F..%2Fb",
	} {
		clean := path.Clean(p)
		if strings.HasSuffix(p, "/") && clean != "/" {
			clean += "/"
		}
		assert.Equal(t, clean == p, isClean(p), "%q", p)
	}
}
