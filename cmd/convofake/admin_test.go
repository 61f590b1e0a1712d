package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminRequiresToken(t *testing.T) {
	p := start(t)
	for _, ep := range []struct{ method, path, body string }{
		{http.MethodGet, "/_fake/", ""},
		{http.MethodGet, "/_fake", ""},
		{http.MethodPost, "/_fake/reset", ""},
		{http.MethodPost, "/_fake/seed", `{"companies":[]}`},
		{http.MethodGet, "/_fake/clock", ""},
		{http.MethodPost, "/_fake/clock", `{"advance":"1h"}`},
		{http.MethodPost, "/_fake/faults", `{"status":500}`},
		{http.MethodDelete, "/_fake/faults", ""},
		{http.MethodDelete, "/_fake/faults/1", ""},
		{http.MethodGet, "/_fake/requests", ""},
		{http.MethodDelete, "/_fake/requests", ""},
		{http.MethodGet, "/_fake/state/contacts", ""},
		{http.MethodGet, "/_fake/state/conversations/x", ""},
		{http.MethodGet, "/_fake/no-such-endpoint", ""},
	} {
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + testAdminToken + "x", "Basic " + testAdminToken, testAdminToken, "Bearer fake-api-key"} {
			r := p.do(ep.method, ep.path, auth, ep.body)
			assertAdminError(t, r, http.StatusUnauthorized, "unauthorized")
			assert.Equal(t, `Bearer realm="convofake admin"`, r.Header.Get("WWW-Authenticate"))
		}
	}
	// Nothing was changed by the refused calls: the demo data is there.
	assert.NotEmpty(t, p.admin(http.MethodGet, "/_fake/state/contacts", "").JSON(t)["items"])

	// With the token: the index, unknown routes and methods in the admin shape.
	r := p.admin(http.MethodGet, "/_fake/", "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Contains(t, r.JSON(t)["endpoints"], "POST /_fake/faults")
	assert.Equal(t, http.StatusOK, p.admin(http.MethodGet, "/_fake", "").Status)
	assertAdminError(t, p.admin(http.MethodGet, "/_fake/no-such-endpoint", ""), http.StatusNotFound, "not_found")
	r = p.admin(http.MethodPut, "/_fake/clock", `{}`)
	assertAdminError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
	assert.Equal(t, "GET, POST", r.Header.Get("Allow"))
}

// Bad admin bodies are explained in JSON's terms, never Go's.
func TestAdminBodyErrorsSpeakJSON(t *testing.T) {
	p := start(t, "--clock", "frozen")
	for _, tc := range []struct {
		path, body, want string
	}{
		{"/_fake/reset", `{"empty":"yes"}`, "empty: want a JSON boolean, got a JSON string"},
		{"/_fake/clock", `{"advance":90}`, "advance: want a JSON string, got a JSON number"},
		{"/_fake/faults", `{"status":"500"}`, "status: want a JSON number, got a JSON string"},
		{"/_fake/faults", `{"status":500,"colour":"red"}`, `unknown field "colour"`},
		{"/_fake/faults", `{"status":500,`, "the JSON ends too early"},
		{"/_fake/faults", `{"status":5x}`, "not valid JSON at byte"},
		{"/_fake/clock", `[]`, "want a JSON object, got a JSON array"},
		{"/_fake/faults", `{"status":500,"path":"[oops"}`, `path: "[oops" is not a valid pattern: * matches`},
	} {
		r := p.admin(http.MethodPost, tc.path, tc.body)
		assertAdminError(t, r, http.StatusBadRequest, "invalid_request")
		msg := r.JSON(t)["message"].(string)
		assert.Contains(t, msg, tc.want, tc.body)
		for _, goWord := range []string{"Go struct", "main.", "json: ", "path.Match", "unmarshal"} {
			assert.NotContains(t, msg, goWord, tc.body)
		}
	}
}
