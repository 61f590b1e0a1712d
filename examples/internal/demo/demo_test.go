package demo

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmbeddedFake(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "")
	t.Setenv("CONVO_API_KEY", "")
	var stderr bytes.Buffer
	c, done, err := Client(&stderr)
	require.NoError(t, err)
	defer done()
	assert.Contains(t, stderr.String(), "embedded fake")
	chans, err := c.Channels.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, chans, 3)
}

func TestRealServiceFromEnv(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("CONVO_API_KEY", "k")
	var stderr bytes.Buffer
	c, done, err := Client(&stderr)
	require.NoError(t, err)
	defer done()
	assert.Equal(t, "http://127.0.0.1:1/v1", c.BaseURL())
	assert.Contains(t, stderr.String(), "Using the service at http://127.0.0.1:1/v1")
	assert.NotContains(t, stderr.String(), " k")
}

func TestHalfConfigured(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "https://api.example.com/v1")
	t.Setenv("CONVO_API_KEY", "")
	var stderr bytes.Buffer
	c, done, err := Client(&stderr)
	require.NoError(t, err)
	defer done()
	assert.Contains(t, stderr.String(), "CONVO_BASE_URL is set but CONVO_API_KEY is not")
	assert.Contains(t, stderr.String(), "embedded fake")
	assert.NotEqual(t, "https://api.example.com/v1", c.BaseURL())
}
