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

// One path string, "/channels", works alike in a Go fault rule, in the Go
// journal and its filter, and in the admin API's journal and its filter.
func TestOnePathStringInFaultsJournalAndAdmin(t *testing.T) {
	const path = "/channels"
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	h := route(srv.Handler(), newAdmin(srv, testAdminToken, slog.New(slog.DiscardHandler)))
	call := func(target, auth string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", auth)
		h.ServeHTTP(rec, req)
		return rec
	}

	srv.AddFault(fake.Fault{Method: http.MethodGet, Path: path, Status: http.StatusServiceUnavailable, Times: 1})
	assert.Equal(t, http.StatusServiceUnavailable, call("/v1"+path, "Bearer "+fake.DefaultAPIKey).Code, "the fault rule matched")
	assert.Equal(t, http.StatusOK, call("/api/v1"+path, "Bearer "+fake.DefaultAPIKey).Code)

	got := srv.RequestsMatching(http.MethodGet, path)
	require.Len(t, got, 2, "the Go journal's filter")
	assert.Equal(t, []string{path, path}, []string{got[0].Path, got[1].Path})
	assert.Equal(t, []string{"/v1", "/api/v1"}, []string{got[0].Prefix, got[1].Prefix})

	rec := call("/_fake/requests?path="+path, "Bearer "+testAdminToken)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var admin struct {
		Items []struct {
			Prefix string `json:"prefix"`
			Path   string `json:"path"`
			Status int    `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &admin))
	require.Len(t, admin.Items, 2, "the admin journal's filter")
	for i, it := range admin.Items {
		assert.Equal(t, path, it.Path)
		assert.Equal(t, got[i].Prefix, it.Prefix)
		assert.Equal(t, got[i].Status, it.Status)
	}
}
