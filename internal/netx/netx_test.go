package netx_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/convoapi/convo-go/internal/netx"
)

func TestIsLoopback(t *testing.T) {
	loopback := map[string]bool{
		"localhost": true, "LOCALHOST:8080": true,
		"127.0.0.1": true, "127.0.0.2:80": true, "::ffff:127.0.0.1": true,
		"::1": true, "[::1]": true, "[::1]:9": true,
		"0.0.0.0:8080": false, "[::]:8080": false, ":8080": false, "": false,
		"192.168.1.10:80": false, "api.convo.example": false, "localhost.example.com": false,
	}
	for in, want := range loopback {
		assert.Equal(t, want, netx.IsLoopback(in), in)
	}
}
