package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHealthcheck: convofake healthcheck exits 0 against a running
// convofake, 1 against a closed port or another server, 2 on bad flags.
func TestHealthcheck(t *testing.T) {
	p := start(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	require.NoError(t, closed.Close())
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"running", []string{"--addr", p.addr}, exitOK, ""},
		{"closed port", []string{"--addr", closedAddr}, exitFailure, "connection refused"},
		{"another server", []string{"--addr", strings.TrimPrefix(other.URL, "http://")}, exitFailure, "answered 404"},
		{"bad flag", []string{"--nope"}, exitNoStart, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), append([]string{"healthcheck"}, tc.args...), &stdout, &stderr, nil)
			assert.Equal(t, tc.code, code, stderr.String())
			assert.Contains(t, stderr.String(), tc.err)
			assert.Empty(t, stdout.String())
		})
	}
}
