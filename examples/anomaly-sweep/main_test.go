package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/oascheck"
)

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

const (
	convLate       = "00000000-0000-4000-8000-000000000001" // 13h, unassigned
	convAssigned   = "00000000-0000-4000-8000-000000000002" // 5h, assigned
	convAutomation = "00000000-0000-4000-8000-000000000003" // 8h, only a bot answered
	convSilent     = "00000000-0000-4000-8000-000000000004" // the contact never wrote
	convExpired    = "00000000-0000-4000-8000-000000000005" // 30h: beyond the ceiling
	convFresh      = "00000000-0000-4000-8000-000000000006" // 2h: under the threshold
)

// newService starts a fake on a frozen clock with one conversation in each
// situation the sweep distinguishes.
func newService(t *testing.T) *fake.Server {
	t.Helper()
	s := fake.New(t, fake.WithClock(fake.NewManualClock(now)), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000001"})
	conv := func(id, phone, agent string) string {
		ct := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: phone})
		return co.AddConversation(fake.Conversation{ID: id, ContactID: ct, AssignedTo: agent})
	}
	ago := func(d time.Duration) time.Time { return now.Add(-d) }

	co.Inbound(conv(convLate, "5511911110001", ""), "Where is my order?", ago(13*time.Hour))
	co.Inbound(conv(convAssigned, "5511911110002", "marta"), "Can I pay by card?", ago(5*time.Hour))
	c := conv(convAutomation, "5511911110003", "")
	co.Inbound(c, "Do you ship to Rio?", ago(8*time.Hour))
	co.Reply(c, fake.SenderAutomation, "An agent will answer soon.", ago(8*time.Hour-time.Minute))
	co.Reply(conv(convSilent, "5511911110004", ""), fake.SenderAutomation, "Welcome!", ago(48*time.Hour))
	co.Inbound(conv(convExpired, "5511911110005", ""), "Hello?", ago(30*time.Hour))
	co.Inbound(conv(convFresh, "5511911110006", ""), "Hi", ago(2*time.Hour))
	return s
}

func TestSweep(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    []string // substrings expected, in this order
		notStdout []string
		stderr    string
		query     map[string]string // expected query of the anomalies call
	}{
		{
			name: "defaults: one conversation over 12h",
			code: exitTooLong,
			stdout: []string{
				"last inbound at least 4h ago", "chatapp 24h",
				"unanswered: 2", "13.0h", convLate, "> max-wait", "5.0h", convAssigned,
				"unassigned: 2", "13.0h", convLate, "8.0h", convAutomation,
				"automation_only: 1", "8.0h", convAutomation,
				"never_engaged: 1",
				"ALERT: 1 conversation waits longer than 12h: " + convLate,
			},
			notStdout: []string{convExpired, convFresh, convSilent},
			query:     map[string]string{"include": "unassigned,automation_only"},
		},
		{
			name:   "generous max-wait",
			args:   []string{"--max-wait", "24h"},
			code:   exitOK,
			stdout: []string{"unanswered: 2", "OK: no conversation has waited longer than 24h."},
		},
		{
			name:   "several over max-wait, worst first, each once",
			args:   []string{"--max-wait", "4h30m"},
			code:   exitTooLong,
			stdout: []string{"ALERT: 3 conversations wait longer than 4h30m: " + convLate + ", " + convAutomation + ", " + convAssigned},
		},
		{
			name:      "max-wait 0 never alerts",
			args:      []string{"--max-wait", "0"},
			code:      exitOK,
			notStdout: []string{"> max-wait", "OK:", "ALERT"},
		},
		{
			name:      "no opt-in buckets",
			args:      []string{"--include", ""},
			code:      exitTooLong,
			stdout:    []string{"unanswered: 2", "never_engaged: 1"},
			notStdout: []string{"unassigned:", "automation_only:"},
			query:     map[string]string{"include": ""},
		},
		{
			name:      "threshold and limit",
			args:      []string{"--threshold", "6", "--limit", "1", "--include", "automation_only"},
			code:      exitTooLong,
			stdout:    []string{"at least 6h ago", "unanswered: 1", convLate, "automation_only: 1", convAutomation},
			notStdout: []string{convAssigned, "unassigned:"},
			query:     map[string]string{"threshold_hours": "6", "limit": "1", "include": "automation_only"},
		},
		{
			name:   "limit below the count says so",
			args:   []string{"--limit", "1"},
			code:   exitTooLong,
			stdout: []string{"unanswered: 2 (showing the worst 1; raise --limit for more)", convLate},
		},
		{
			name:   "unknown bucket lists the valid ones",
			args:   []string{"--include", "unassigned,urgent"},
			code:   exitFailed,
			stderr: "INVALID_BUCKET: Unknown bucket: urgent. Valid buckets: unanswered, never_engaged, unassigned, automation_only; --include takes the opt-in ones: unassigned, automation_only.",
		},
		{
			name:   "threshold out of range",
			args:   []string{"--threshold", "30"},
			code:   exitFailed,
			stderr: "INVALID_PARAM",
		},
		{name: "bad duration", args: []string{"--max-wait", "soon"}, code: exitFailed, stderr: `invalid value "soon" for flag -max-wait`},
		{name: "stray argument", args: []string{"now"}, code: exitFailed, stderr: `unexpected argument "now"`},
		{name: "help", args: []string{"--help"}, code: exitOK, stderr: "2  at least one conversation waits longer than --max-wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t)
			demo.PointAt(t, s)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			out := stdout.String()
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out, stderr.String())

			rest := out
			for _, want := range tt.stdout {
				i := strings.Index(rest, want)
				if !assert.GreaterOrEqual(t, i, 0, "%q missing or out of order in:\n%s", want, out) {
					break
				}
				rest = rest[i+len(want):]
			}
			for _, unwanted := range tt.notStdout {
				assert.NotContains(t, out, unwanted)
			}
			assert.Contains(t, stderr.String(), tt.stderr)

			if tt.query != nil {
				var calls []fake.Request
				for _, r := range s.Requests() {
					if strings.HasSuffix(r.Path, "/conversations/anomalies") {
						calls = append(calls, r)
					}
				}
				require.Len(t, calls, 1, "the sweep calls the report exactly once")
				for k, v := range tt.query {
					assert.Equal(t, v, calls[0].Query.Get(k), k)
				}
			}
		})
	}
}

// A rate-limited report (the endpoint allows about one pass a day) is a
// failure with a clear message, not a silent retry loop.
func TestRateLimited(t *testing.T) {
	s := newService(t)
	demo.PointAt(t, s)
	s.AddFault(fake.Fault{Path: "/conversations/anomalies", Status: 429, RetryAfter: 6 * time.Hour})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, &stdout, &stderr)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr.String(), "rate limited (RATE_LIMITED), retry after 6h0m0s")
	assert.Empty(t, stdout.String())
}

// What `go run ./examples/anomaly-sweep` does with no account: the embedded
// demo data, a report, and an exit code that is a verdict, not an error.
func TestEmbeddedDemo(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "")
	t.Setenv("CONVO_API_KEY", "")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--max-wait", "1h"}, &stdout, &stderr)
	assert.Equal(t, exitTooLong, code, stderr.String())
	assert.Contains(t, stderr.String(), "embedded fake")
	assert.Contains(t, stdout.String(), "unanswered: ")
	assert.Contains(t, stdout.String(), "ALERT: ")
}

// Only one of CONVO_BASE_URL and CONVO_API_KEY set is a mistake the sweep
// reports and exits 1 for; it never falls back to demo data.
func TestHalfConfigured(t *testing.T) {
	for _, unset := range []bool{false, true} {
		t.Run(fmt.Sprintf("key unset=%v", unset), func(t *testing.T) {
			t.Setenv("CONVO_BASE_URL", "https://api.example.com/v1")
			t.Setenv("CONVO_API_KEY", "")
			if unset {
				require.NoError(t, os.Unsetenv("CONVO_API_KEY"))
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), nil, &stdout, &stderr)
			assert.Equal(t, exitFailed, code)
			assert.Contains(t, stderr.String(), "CONVO_BASE_URL is set but CONVO_API_KEY is missing or empty")
			assert.Empty(t, stdout.String(), "no report on demo data")
		})
	}
}

// The built binary exits with the program's own codes (go run would turn
// every non-zero one into 1): 2 for an alert, 1 for a bad flag, 0 for help.
func TestBuiltBinaryExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	bin := filepath.Join(t.TempDir(), "anomaly-sweep")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--max-wait", "1h"}, exitTooLong}, // the demo data has conversations waiting hours
		{[]string{"--nope"}, exitFailed},
		{[]string{"--help"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "CONVO_BASE_URL=", "CONVO_API_KEY=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, stderr.String())
		})
	}
}
