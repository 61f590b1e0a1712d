package main

import (
	"bytes"
	"net/http"
	"time"

	"github.com/convoapi/convo-go/api"
)

// openAPIPath is where convofake serves the service's OpenAPI document, so
// that a user of another language can generate a client or a validator from
// the very server they test against. It needs no key: the document is public.
const openAPIPath = "/openapi.yaml"

// withOpenAPI answers GET and HEAD on openAPIPath with the document and
// passes every other request to next.
func withOpenAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != openAPIPath {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		// RFC 9512 registers application/yaml.
		w.Header().Set("Content-Type", "application/yaml")
		http.ServeContent(w, r, "openapi.yaml", time.Time{}, bytes.NewReader(api.OpenAPI()))
	})
}
