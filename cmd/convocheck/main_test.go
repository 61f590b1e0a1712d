package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()))
	key := s.APIKey()
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"anomalies", []string{"--base-url", s.URL(), "--api-key", key, "--anomalies", "--pace", "0"}, 0, " 0 failed", ""},
		{"json", []string{"--base-url", s.URL(), "--api-key", key, "--json", "--pace", "0"}, 0, `"passed"`, ""},
		{"help", []string{"--help"}, 0, "", "STAY BEHIND"},
		{"no base URL", []string{"--api-key", key}, 2, "", "--base-url is required"},
		{"no key", []string{"--base-url", s.URL()}, 2, "", "an API key is required"},
		{"write without ids", []string{"--base-url", s.URL(), "--api-key", key, "--write"}, 2, "", "--write needs"},
		{"key refused", []string{"--base-url", s.URL(), "--api-key", "wrong-key-123", "--pace", "0"}, 2, "", "refused the key"},
		{"unreachable", []string{"--base-url", "http://127.0.0.1:1/v1", "--api-key", key, "--pace", "0"}, 2, "", "cannot be reached"},
		{"write", []string{"--base-url", s.URL(), "--api-key", key, "--pace", "0", "--write", "--phone-number-id", "5511940000001", "--phone-number", "5511900001111"}, 0, "write mode", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONVO_API_KEY", "")
			t.Setenv("CONVO_BASE_URL", "")
			var out, errb bytes.Buffer
			code := run(t.Context(), tt.args, &out, &errb)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
			assert.Contains(t, out.String(), tt.out)
			assert.Contains(t, errb.String(), tt.err)
			assert.NotContains(t, out.String()+errb.String(), key, "the key is never printed")
			assert.NotContains(t, out.String()+errb.String(), "wrong-key-123")
			if tt.name == "json" {
				var rep conformance.Report
				require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
				assert.Zero(t, rep.Failed)
			}
		})
	}
}

// TestRunExitsOneOnAFailure: a server with another 401 text fails a check.
func TestRunExitsOneOnAFailure(t *testing.T) {
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()))
	s.AddFault(fake.Fault{Method: "GET", Path: "/convocheck-no-such-path", Status: 200})
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"--base-url", s.URL(), "--api-key", s.APIKey(), "--pace", "0"}, &out, &errb)
	assert.Equal(t, 1, code, out.String())
	assert.Contains(t, out.String(), "fail  decision  errors/unknown-path")
}

func TestRunReplay(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s := fake.New(t, fake.WithSeed(fake.DemoSeed()), fake.WithClock(fake.NewManualClock(start)))
	var rec bytes.Buffer
	r := conformance.NewRecorder(&rec, conformance.RecorderOptions{})
	c := s.Client(convo.WithMiddleware(r.Middleware))
	_, err := c.Channels.List(t.Context())
	require.NoError(t, err)
	_, err = c.Conversations.List(t.Context(), &convo.ListConversationsParams{Status: convo.ConversationAll})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(file, rec.Bytes(), 0o600))

	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"--replay", file, "--base-url", s.URL(), "--api-key", s.APIKey(), "--pace", "0"}, &out, &errb)
	assert.Equal(t, 0, code, out.String()+errb.String())
	assert.Contains(t, out.String(), "2 exchanges replayed (2 requests): 0 differences")

	edited := strings.Replace(rec.String(), `"display_name":"Acme Support"`, `"display_name":"Edited"`, 1)
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o600))
	out.Reset()
	code = run(t.Context(), []string{"--replay", file, "--base-url", s.URL(), "--api-key", s.APIKey(), "--pace", "0"}, &out, &errb)
	assert.Equal(t, 1, code, out.String())
	assert.Contains(t, out.String(), `line 2: GET /channels: body.data.items[0].display_name: recorded "Edited", replayed "Acme Support"`)

	code = run(t.Context(), []string{"--replay", filepath.Join(t.TempDir(), "missing"), "--base-url", s.URL(), "--api-key", s.APIKey()}, &out, &errb)
	assert.Equal(t, 2, code)
}
