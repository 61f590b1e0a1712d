package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/api"
)

// TestServesTheOpenAPIDocument is the README's curl: a running convofake
// serves the document without a key, byte for byte api/openapi.yaml (which
// the test module internal/wiretest loads and validates as OpenAPI 3.0.3,
// and routes convofake's exchanges through).
func TestServesTheOpenAPIDocument(t *testing.T) {
	p := start(t)
	resp, err := p.client.Get(p.base + "/openapi.yaml")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
	assert.Equal(t, api.OpenAPI(), body)
}

func TestOpenAPIRouteMethods(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := withOpenAPI(next)
	cases := []struct {
		method, path string
		status       int
		allow        string
		hasBody      bool
	}{
		{http.MethodGet, "/openapi.yaml", http.StatusOK, "", true},
		{http.MethodHead, "/openapi.yaml", http.StatusOK, "", false},
		{http.MethodPost, "/openapi.yaml", http.StatusMethodNotAllowed, "GET, HEAD", true},
		{http.MethodGet, "/v1/openapi.yaml", http.StatusTeapot, "", false}, // the API's own 404 decides
		{http.MethodGet, "/v1/channels", http.StatusTeapot, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, tc.allow, rec.Header().Get("Allow"))
			assert.Equal(t, tc.hasBody, rec.Body.Len() > 0)
		})
	}
}
