package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/netx"
)

func TestListenerAddresses(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		loopback bool
		url      string
	}{
		{"127.0.0.1:8080", true, "http://127.0.0.1:8080"},
		{"127.0.0.2:80", true, "http://127.0.0.2:80"},
		{"[::1]:9", true, "http://[::1]:9"},
		{"0.0.0.0:8080", false, "http://127.0.0.1:8080"},
		{"[::]:8080", false, "http://127.0.0.1:8080"},
		{"192.168.1.10:80", false, "http://192.168.1.10:80"},
	} {
		assert.Equal(t, tc.loopback, netx.IsLoopback(tc.addr), tc.addr)
		assert.Equal(t, tc.url, localURL(tc.addr), tc.addr)
	}
}

// The admin API is never exposed by binding every interface alone.
func TestPlaceAdmin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     config
		apiAddr string
		want    adminPlace
	}{
		{"loopback", config{}, "127.0.0.1:8080", adminOnAddr},
		{"every interface", config{}, "[::]:8080", adminOff},
		{"every interface, asked", config{adminOnPublic: true}, "[::]:8080", adminOnAddr},
		{"own listener", config{adminAddr: "127.0.0.1:9090"}, "[::]:8080", adminOwnAddr},
		{"own listener, loopback API", config{adminAddr: "127.0.0.1:9090"}, "127.0.0.1:8080", adminOwnAddr},
	} {
		assert.Equal(t, tc.want, placeAdmin(&tc.cfg, tc.apiAddr), tc.name)
	}
}

// --admin-on-public-if-token (the image's default) serves the admin API
// beyond loopback only when an admin token was given.
func TestAdminOnPublicIfToken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   string
		args  []string
		place adminPlace
	}{
		{"no token", "", nil, adminOff},
		{"token in the environment", "a-token-of-the-ci", nil, adminOnAddr},
		{"token flag", "", []string{"--admin-token", "a-token-of-the-ci"}, adminOnAddr},
		{"own listener wins", "a-token-of-the-ci", []string{"--admin-addr", "127.0.0.1:0"}, adminOwnAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envAdminToken, tc.env)
			cfg, err := parseFlags(append([]string{"--addr", ":8080", "--admin-on-public-if-token"}, tc.args...), io.Discard)
			require.NoError(t, err)
			assert.Equal(t, tc.place, placeAdmin(cfg, "[::]:8080"))
		})
	}
}
