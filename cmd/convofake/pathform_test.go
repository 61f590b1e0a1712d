package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// One path rule, the fake's: a pattern is relative to the base URL, and a
// leading /v1 or /api/v1 means the same as without it. It holds alike in a
// fault rule, in the Go journal's filter and in the admin journal's filter.
func TestOnePathRuleInFaultsJournalAndAdmin(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	h := route(srv.Handler(), newAdmin(srv, testAdminToken, slog.New(slog.DiscardHandler)))
	call := func(method, target, auth string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, target, nil)
		req.Header.Set("Authorization", auth)
		h.ServeHTTP(rec, req)
		return rec
	}
	api := "Bearer " + fake.DefaultAPIKey

	r := call(http.MethodPost, "/_fake/faults", "Bearer "+testAdminToken)
	require.Equal(t, http.StatusBadRequest, r.Code, "a fault needs a body")
	srv.AddFault(fake.Fault{Method: http.MethodGet, Path: "/v1/channels", Status: http.StatusServiceUnavailable, Times: 1})
	assert.Equal(t, http.StatusServiceUnavailable, call(http.MethodGet, "/api/v1/channels", api).Code, "a /v1 rule matches /api/v1")
	assert.Equal(t, http.StatusOK, call(http.MethodGet, "/v1/channels", api).Code)
	assert.Equal(t, http.StatusOK, call(http.MethodGet, "/v1/conversations", api).Code)

	for _, tc := range []struct {
		method, pattern string
		want            []string // prefix + path of each match
	}{
		{"", "/channels", []string{"/api/v1/channels", "/v1/channels"}},
		{"GET", "/v1/channels", []string{"/api/v1/channels", "/v1/channels"}},
		{"get", "/api/v1/channels", []string{"/api/v1/channels", "/v1/channels"}},
		{"", "/api/v1/*", []string{"/api/v1/channels", "/v1/channels", "/v1/conversations"}},
		{"", "/*", []string{"/api/v1/channels", "/v1/channels", "/v1/conversations"}},
		{"POST", "", nil},
	} {
		var gotGo []string
		for _, req := range srv.RequestsMatching(tc.method, tc.pattern) {
			gotGo = append(gotGo, req.Prefix+req.Path)
		}
		assert.Equal(t, tc.want, gotGo, "Go: %s %s", tc.method, tc.pattern)

		rec := call(http.MethodGet, "/_fake/requests?method="+tc.method+"&path="+tc.pattern, "Bearer "+testAdminToken)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var admin struct {
			Count int `json:"count"`
			Items []struct {
				Prefix string `json:"prefix"`
				Path   string `json:"path"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &admin))
		var gotAdmin []string
		for _, it := range admin.Items {
			gotAdmin = append(gotAdmin, it.Prefix+it.Path)
		}
		assert.Equal(t, tc.want, gotAdmin, "admin: %s %s", tc.method, tc.pattern)
		assert.Equal(t, len(tc.want), admin.Count)
	}
}
