package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GET /_fake/requests: the API keys never appear, nor key-like query
// parameters, headers and JSON body fields.
func TestAdminJournalRedactsKeys(t *testing.T) {
	p := startSeeded(t)
	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests", "").Status)

	assert.Equal(t, http.StatusOK, p.api("/v1/conversations?phone=5511987654321&access_token=tok-777", seedKey).Status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/api/v1/channels", "ApiKey "+seedKey, "").Status)
	assert.Equal(t, http.StatusOK, p.do(http.MethodGet, "/v1/channels", "", "", "X-Api-Key", seedKey).Status)
	r := p.do(http.MethodPatch, "/v1/chatapp/contacts/custom-fields", "Bearer "+seedKey,
		`{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold","api_token":"tok-999"},"api_key":"`+seedKey+`"}`)
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, http.StatusUnauthorized, p.api("/v1/channels", "not-the-key").Status)

	r = p.admin(http.MethodGet, "/_fake/requests", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.NotContains(t, string(r.Body), seedKey, "the API key never appears")
	assert.NotContains(t, string(r.Body), "not-the-key", "nor a wrong one")
	assert.NotContains(t, string(r.Body), testAdminToken, "admin calls are not journaled")
	assert.NotContains(t, string(r.Body), "tok-")

	var j struct {
		Count int `json:"count"`
		Items []struct {
			Time    string              `json:"time"`
			Method  string              `json:"method"`
			Prefix  string              `json:"prefix"`
			Path    string              `json:"path"`
			Query   map[string][]string `json:"query"`
			Headers map[string][]string `json:"headers"`
			Body    json.RawMessage     `json:"body"`
			Status  int                 `json:"status"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &j))
	require.Equal(t, 5, j.Count)
	require.Len(t, j.Items, 5)

	it := j.Items[0]
	assert.Equal(t, "2026-11-22T10:00:00.000Z", it.Time)
	assert.Equal(t, "GET", it.Method)
	assert.Equal(t, "/v1", it.Prefix)
	assert.Equal(t, "/conversations", it.Path, "relative to the base URL, as fault rules take it")
	assert.Equal(t, map[string][]string{"phone": {"5511987654321"}, "access_token": {"[REDACTED]"}}, it.Query)
	assert.Equal(t, []string{"Bearer [REDACTED]"}, it.Headers["Authorization"])
	assert.JSONEq(t, `null`, string(it.Body))
	assert.Equal(t, 200, it.Status)

	assert.Equal(t, "/api/v1", j.Items[1].Prefix)
	assert.Equal(t, "/channels", j.Items[1].Path)
	assert.Equal(t, []string{"ApiKey [REDACTED]"}, j.Items[1].Headers["Authorization"])
	assert.Equal(t, []string{"[REDACTED]"}, j.Items[2].Headers["X-Api-Key"])
	assert.Equal(t, "PATCH", j.Items[3].Method)
	assert.JSONEq(t, `{"phone_number_id":"5511940000001","phone_number":"5511987654321","custom_fields":{"plan":"gold","api_token":"[REDACTED]"},"api_key":"[REDACTED]"}`, string(j.Items[3].Body))
	assert.Equal(t, 401, j.Items[4].Status)

	// Filters: TestOnePathRuleInFaultsJournalAndAdmin.
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/requests?path=[", ""), http.StatusBadRequest, "invalid_request")

	require.Equal(t, http.StatusOK, p.admin(http.MethodDelete, "/_fake/requests", "").Status)
	assert.JSONEq(t, `{"count":0,"items":[]}`, string(p.admin(http.MethodGet, "/_fake/requests", "").Body))
}

// One path rule, the fake's: a pattern is relative to the base URL, and a
// leading /v1 or /api/v1 means the same as without it. It holds alike in a
// fault rule, in the Go journal's filter and in the admin journal's filter.
func TestOnePathRuleInFaultsJournalAndAdmin(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	h := route(srv.Handler(), newAdmin(srv, testAdminToken, slog.New(slog.DiscardHandler)))
	api := "Bearer " + fake.DefaultAPIKey

	r := serve(h, http.MethodPost, "/_fake/faults", "Bearer "+testAdminToken)
	require.Equal(t, http.StatusBadRequest, r.Status, "a fault needs a body")
	srv.AddFault(fake.Fault{Method: http.MethodGet, Path: "/v1/channels", Status: http.StatusServiceUnavailable, Times: 1})
	assert.Equal(t, http.StatusServiceUnavailable, serve(h, http.MethodGet, "/api/v1/channels", api).Status, "a /v1 rule matches /api/v1")
	assert.Equal(t, http.StatusOK, serve(h, http.MethodGet, "/v1/channels", api).Status)
	assert.Equal(t, http.StatusOK, serve(h, http.MethodGet, "/v1/conversations", api).Status)

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

		rec := serve(h, http.MethodGet, "/_fake/requests?method="+tc.method+"&path="+tc.pattern, "Bearer "+testAdminToken)
		require.Equal(t, http.StatusOK, rec.Status, "%s", rec.Body)
		var admin struct {
			Count int `json:"count"`
			Items []struct {
				Prefix string `json:"prefix"`
				Path   string `json:"path"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal(rec.Body, &admin))
		var gotAdmin []string
		for _, it := range admin.Items {
			gotAdmin = append(gotAdmin, it.Prefix+it.Path)
		}
		assert.Equal(t, tc.want, gotAdmin, "admin: %s %s", tc.method, tc.pattern)
		assert.Equal(t, len(tc.want), admin.Count)
	}
}
