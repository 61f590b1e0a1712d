package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHostAllowed(t *testing.T) {
	for _, tc := range []struct {
		host  string
		names []string
		anyIP bool
		want  bool
	}{
		{"127.0.0.1:8080", nil, false, true},
		{"127.0.0.1", nil, false, true},
		{"[::1]:8080", nil, false, true},
		{"localhost:8080", nil, false, true},
		{"LOCALHOST", nil, false, true},
		{"evil.example:8080", nil, false, false},
		{"127.0.0.1.nip.io:8080", nil, false, false},
		{"192.168.1.5:8080", nil, false, false},
		{"192.168.1.5:8080", []string{"192.168.1.5"}, false, true},
		{"192.168.1.5:8080", nil, true, true},
		{"fake.internal:8080", []string{"fake.internal"}, false, true},
		{"fake.internal:8080", nil, true, false},
		{"", nil, false, false},
	} {
		assert.Equal(t, tc.want, hostAllowed(tc.host, tc.names, tc.anyIP), "%q %v %v", tc.host, tc.names, tc.anyIP)
	}
}

func TestListenHosts(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		names []string
		anyIP bool
	}{
		{[]string{"127.0.0.1:8080", ""}, []string{"127.0.0.1"}, false},
		{[]string{":8080", ""}, nil, true},
		{[]string{"0.0.0.0:8080", "http://fake.internal:9000/base"}, []string{"fake.internal"}, true},
		{[]string{"[::]:8080", "https://[2001:db8::1]"}, []string{"2001:db8::1"}, true},
		{[]string{"myhost:8080"}, []string{"myhost"}, false},
	} {
		names, anyIP := listenHosts(tc.addrs...)
		assert.Equal(t, tc.names, names, "%v", tc.addrs)
		assert.Equal(t, tc.anyIP, anyIP, "%v", tc.addrs)
	}
}

// apiWithHost sends GET path to the API listener with the default key and
// that Host header.
func apiWithHost(t *testing.T, p *proc, path, host string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.base+path, nil)
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+fake.DefaultAPIKey)
	return testkit.Do(t, p.client, req)
}

// The API listener bound to loopback answers only the names of this
// server (loopback, the listening host, --public-url), as the admin
// listener does: another name (DNS rebinding) is 403 in the API's
// envelope, naming --public-url, with a Date on the fake's clock as its
// timestamp is.
func TestHostGuard(t *testing.T) {
	p := start(t, "--public-url", "http://host.docker.internal:8080", "--clock", "frozen:2026-11-22T10:00:00Z")
	port := strings.Split(p.addr, ":")[1]
	for _, tc := range []struct {
		host string
		want int
	}{
		{"rebind.example", http.StatusForbidden},
		{"rebind.example:" + port, http.StatusForbidden},
		{"127.0.0.1.rebind.example:" + port, http.StatusForbidden},
		{p.addr, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"host.docker.internal:8080", http.StatusOK},
	} {
		for _, path := range []string{"/v1/channels", "/api/v1/channels", "/", "/openapi.yaml"} {
			r := apiWithHost(t, p, path, tc.host)
			assert.Equal(t, tc.want, r.Status, "Host %s on %s: %s", tc.host, path, r.Body)
			if tc.want != http.StatusForbidden {
				continue
			}
			var env struct {
				Success    bool   `json:"success"`
				StatusCode int    `json:"statusCode"`
				Path       string `json:"path"`
				Message    struct {
					Error   string `json:"error"`
					Message string `json:"message"`
				} `json:"message"`
				ErrorID string `json:"errorId"`
			}
			require.NoError(t, json.Unmarshal(r.Body, &env), "%s", r.Body)
			assert.Equal(t, codeHostNotAllowed, env.Message.Error)
			assert.Contains(t, env.Message.Message, "--public-url http://"+tc.host)
			assert.Equal(t, http.StatusForbidden, env.StatusCode)
			assert.NotEmpty(t, env.ErrorID)
			assert.Equal(t, "Sun, 22 Nov 2026 10:00:00 GMT", r.Header.Get("Date"), "the fake's clock, not the machine's")
		}
	}
	assert.EqualValues(t, 8, p.admin(http.MethodGet, "/_fake/requests?path=/channels", "").JSON(t)["count"], "the 8 served; the refused never reach the fake")
}

// Beyond loopback (--addr :8080, in a container) any name is served, as
// before: other containers reach it by their own names for it.
func TestHostGuardOffBeyondLoopback(t *testing.T) {
	srv, err := fake.NewHandler()
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		addr string
		want int
	}{
		{"[::]:8080", http.StatusOK},
		{"127.0.0.1:8080", http.StatusForbidden},
	} {
		a := &app{cfg: &config{addr: tc.addr}, logger: logger, srv: srv, place: placeAdmin(&config{addr: tc.addr}, tc.addr),
			adm: newAdmin(srv, testAdminToken, logger), apiLn: stubListener{tc.addr}}
		api, _ := a.handlers()
		req := httptest.NewRequest(http.MethodGet, "/v1/channels", nil)
		req.Host = "rebind.example"
		req.Header.Set("Authorization", "Bearer "+fake.DefaultAPIKey)
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		assert.Equal(t, tc.want, rec.Code, "--addr %s: %s", tc.addr, rec.Body)
	}
}
