package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRootPointsTheWay: GET / (and HEAD /) needs no key and answers a short
// envelope pointing to the base URL, the OpenAPI document and the admin API,
// its timestamp and Date on the fake's clock (frozen here), as the API's.
func TestRootPointsTheWay(t *testing.T) {
	p := start(t, "--clock", "frozen:2026-11-22T10:00:00Z")
	resp, err := p.client.Get(p.base + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var got struct {
		Success bool `json:"success"`
		Data    struct {
			Name    string `json:"name"`
			BaseURL string `json:"base_url"`
			OpenAPI string `json:"openapi"`
			Admin   string `json:"admin"`
		} `json:"data"`
		Timestamp string `json:"timestamp"`
	}
	require.NoError(t, json.Unmarshal(body, &got), "%s", body)
	assert.True(t, got.Success)
	assert.Equal(t, "convofake", got.Data.Name)
	assert.Equal(t, p.base+"/v1", got.Data.BaseURL)
	assert.Equal(t, p.base+"/openapi.yaml", got.Data.OpenAPI)
	assert.Equal(t, p.base+"/_fake/", got.Data.Admin)
	assert.Equal(t, "2026-11-22T10:00:00.000Z", got.Timestamp, "the fake's clock, not the machine's")
	assert.Equal(t, "Sun, 22 Nov 2026 10:00:00 GMT", resp.Header.Get("Date"))

	head, err := p.client.Head(p.base + "/")
	require.NoError(t, err)
	head.Body.Close()
	assert.Equal(t, http.StatusOK, head.StatusCode)
}

func TestRootMethodsAndAdminPlace(t *testing.T) {
	cases := []struct {
		name, method, admin string
		status              int
		allow               string
	}{
		{"post", http.MethodPost, "http://x/_fake", http.StatusMethodNotAllowed, "GET, HEAD"},
		{"admin off", http.MethodGet, "", http.StatusOK, ""},
		{"admin elsewhere", http.MethodGet, "http://127.0.0.1:9/_fake", http.StatusOK, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
			h := withRoot(next, func() string { return "http://x" }, func() string { return tc.admin }, time.Now)
			rec := httptestRecorder(h, tc.method, "/")
			assert.Equal(t, tc.status, rec.Code)
			assert.Equal(t, tc.allow, rec.Header().Get("Allow"))
			if tc.status != http.StatusOK {
				return
			}
			var got struct {
				Data map[string]any `json:"data"`
			}
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
			if tc.admin == "" {
				assert.Nil(t, got.Data["admin"])
				assert.Contains(t, got.Data["note"], "admin API is off")
			} else {
				assert.Equal(t, tc.admin+"/", got.Data["admin"])
			}
		})
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	assert.Equal(t, http.StatusTeapot, httptestRecorder(withRoot(next, func() string { return "http://x" }, func() string { return "" }, time.Now), http.MethodGet, "/v1").Code)
}

func httptestRecorder(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}
