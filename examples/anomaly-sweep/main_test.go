package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demotest"
	"github.com/convoapi/convo-go/fake"
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
	s := demotest.Fake(t, now)
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
		setup     func(*testing.T, *fake.Server)
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
				"ALERT: 1 waiting longer than 12h: " + convLate,
			},
			notStdout: []string{convExpired, convFresh, convSilent, "sms"}, // SMS has no accounts: no ceiling of it is shown
			query:     map[string]string{"include": "unassigned,automation_only"},
		},
		{name: "generous max-wait", args: []string{"--max-wait", "24h"}, stdout: []string{"unanswered: 2", "OK: no conversation has waited longer than 24h."}},
		{name: "several over max-wait, worst first, each once", args: []string{"--max-wait", "4h30m"}, code: exitTooLong,
			stdout: []string{"ALERT: 3 waiting longer than 4.5h: " + convLate + ", " + convAutomation + ", " + convAssigned}},
		{name: "max-wait 0 never alerts", args: []string{"--max-wait", "0"}, notStdout: []string{"> max-wait", "OK:", "ALERT"}},
		{name: "no opt-in buckets", args: []string{"--include", ""}, code: exitTooLong, stdout: []string{"unanswered: 2", "never_engaged: 1"},
			notStdout: []string{"unassigned:", "automation_only:"}, query: map[string]string{"include": ""}},
		{
			name:      "threshold and limit",
			args:      []string{"--threshold", "6", "--limit", "1", "--include", "automation_only"},
			code:      exitTooLong,
			stdout:    []string{"at least 6h ago", "unanswered: 1", convLate, "automation_only: 1", convAutomation},
			notStdout: []string{convAssigned, "unassigned:"},
			query:     map[string]string{"threshold_hours": "6", "limit": "1", "include": "automation_only"},
		},
		{name: "limit below the count says so", args: []string{"--limit", "1"}, code: exitTooLong,
			stdout: []string{"unanswered: 2 (showing the worst 1; raise --limit for more)", convLate}},
		{
			name: "unknown bucket lists the valid ones", args: []string{"--include", "unassigned,urgent"}, code: exitFailed,
			stderr: "INVALID_BUCKET: Unknown bucket: urgent. Valid buckets: [unanswered never_engaged unassigned automation_only]; --include takes the opt-in ones: [unassigned automation_only].",
		},
		{name: "threshold out of range", args: []string{"--threshold", "30"}, code: exitFailed, stderr: "INVALID_PARAM"},
		{
			// The endpoint allows about one pass a day: a failure with a
			// clear message, not a silent retry loop.
			name: "rate limited",
			setup: func(_ *testing.T, s *fake.Server) {
				s.AddFault(fake.Fault{Path: "/conversations/anomalies", Status: 429, RetryAfter: 6 * time.Hour})
			},
			code: exitFailed, stderr: "rate limited, retry after 6h0m0s",
		},
		{
			// Only one of the two set is a mistake: exit 1, never demo data.
			name:  "half configured",
			setup: func(t *testing.T, _ *fake.Server) { t.Setenv(convo.EnvAPIKey, "") },
			code:  exitFailed, stderr: "CONVO_BASE_URL is set but CONVO_API_KEY is missing or empty",
		},
		{
			name: "embedded demo data", args: []string{"--max-wait", "1h"},
			setup: func(t *testing.T, _ *fake.Server) { t.Setenv(convo.EnvBaseURL, ""); t.Setenv(convo.EnvAPIKey, "") },
			code:  exitTooLong, stdout: []string{"unanswered: ", "ALERT: "}, stderr: "embedded fake",
		},
		{name: "bad duration", args: []string{"--max-wait", "soon"}, code: exitFailed, stderr: `invalid value "soon" for flag -max-wait`},
		{name: "stray argument", args: []string{"now"}, code: exitFailed, stderr: `unexpected argument "now"`},
		{name: "help", args: []string{"--help"}, stderr: "2 at least one conversation waits longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t)
			if tt.setup != nil {
				tt.setup(t, s)
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			out := stdout.String()
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", out, stderr.String())
			if tt.code == exitFailed {
				assert.Empty(t, out, "no report")
			}
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
				calls := s.RequestsMatching("GET", "/conversations/anomalies")
				require.Len(t, calls, 1, "the sweep calls the report exactly once")
				for k, v := range tt.query {
					assert.Equal(t, v, calls[0].Query.Get(k), k)
				}
			}
		})
	}
}

// The built binary exits with the program's own codes (go run would turn
// every non-zero one into 1): 2 for an alert, 1 for a bad flag, 0 for help.
func TestBuiltBinaryExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program")
	}
	bin := filepath.Join(t.TempDir(), "anomaly-sweep")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	for args, want := range map[string]int{"--max-wait 1h": exitTooLong, "--nope": exitFailed, "--help": exitOK} {
		t.Run(args, func(t *testing.T) {
			cmd := exec.Command(bin, strings.Fields(args)...)
			cmd.Env = append(os.Environ(), "CONVO_BASE_URL=", "CONVO_API_KEY=") // the demo data has conversations waiting hours
			err := cmd.Run()
			var exitErr *exec.ExitError
			if want != exitOK {
				require.ErrorAs(t, err, &exitErr)
				assert.Equal(t, want, exitErr.ExitCode())
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

// The documented commands, run twice in a row on the embedded fake: the
// demo data has a conversation waiting past 12h, so each ends with an alert
// and exit code 2 (the built binary's; go run exits 1).
func TestDocumentedCommands(t *testing.T) {
	alert := demotest.Outcome{Code: exitTooLong, Stdout: []string{"unanswered: ", "\nALERT: "}}
	demotest.CheckDocumentedCommands(t, "anomaly-sweep", run, map[string]demotest.Outcome{
		"":                                   alert,
		"--max-wait 12h":                     alert,
		"--max-wait 6h --include unassigned": alert,
	})
}
