package demo

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClient(t *testing.T) {
	tests := []struct {
		name, baseURL, key string
		stderr             string // on success; else the error's text
		ok                 bool
	}{
		{name: "neither: embedded fake", stderr: "Using an embedded fake with demo data at http://127.0.0.1:", ok: true},
		{name: "both: the service", baseURL: "http://127.0.0.1:1/v1", key: "secret-key", stderr: "Using the service at http://127.0.0.1:1/v1", ok: true},
		{name: "base URL without key", baseURL: "https://api.example.com/v1", stderr: "CONVO_API_KEY is missing or empty"},
		{name: "key without base URL", key: "secret-key", stderr: "CONVO_BASE_URL is missing or empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONVO_BASE_URL", tt.baseURL)
			t.Setenv("CONVO_API_KEY", tt.key)
			assert.Equal(t, tt.baseURL == "" && tt.key == "", Embedded())
			var stderr bytes.Buffer
			c, done, err := Client(&stderr)
			if !tt.ok {
				require.ErrorIs(t, err, ErrHalfConfigured)
				assert.Nil(t, c)
				assert.Contains(t, err.Error(), tt.stderr)
				assert.NotContains(t, err.Error(), "secret-key")
				assert.Empty(t, stderr.String(), "no demo data is started")
				return
			}
			require.NoError(t, err)
			defer done()
			assert.Contains(t, stderr.String(), tt.stderr)
			assert.NotContains(t, stderr.String(), "secret-key")
			if tt.baseURL == "" {
				chans, err := c.Channels.List(context.Background())
				require.NoError(t, err)
				assert.Len(t, chans, 3)
			}
		})
	}
}
