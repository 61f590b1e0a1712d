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
	tests := []struct {
		name, baseURL, key, missing string
	}{
		{"base URL without key", "https://api.example.com/v1", "", "CONVO_API_KEY"},
		{"key without base URL", "", "secret-key", "CONVO_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONVO_BASE_URL", tt.baseURL)
			t.Setenv("CONVO_API_KEY", tt.key)
			var stderr bytes.Buffer
			c, done, err := Client(&stderr)
			require.ErrorIs(t, err, ErrHalfConfigured)
			assert.Nil(t, c)
			assert.Nil(t, done)
			assert.Contains(t, err.Error(), tt.missing+" is missing or empty")
			assert.NotContains(t, err.Error(), "secret-key")
			assert.Empty(t, stderr.String(), "no demo data is started")
		})
	}
}
