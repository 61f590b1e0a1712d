package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
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

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func runQuickstart(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The first thing a newcomer runs: no account, embedded fake, exit 0.
func TestEmbeddedDemo(t *testing.T) {
	t.Setenv(convo.EnvBaseURL, "")
	t.Setenv(convo.EnvAPIKey, "")
	code, out, errOut := runQuickstart(t)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "embedded fake")
	for _, section := range []string{"Channel accounts (", "Open conversations", "Latest ", "Attachments", "Attachments", "Typed errors", "Anomaly report"} {
		assert.Contains(t, out, section)
	}
}

// newService starts a fake on a frozen clock with data seeded in Go, so
// that every line of the tour is known.
func newService(t *testing.T) *fake.Server {
	t.Helper()
	return newServiceAt(t, start)
}

// newServiceAt seeds the same data relative to another service date.
func newServiceAt(t *testing.T, start time.Time) *fake.Server {
	t.Helper()
	s := fake.New(t, fake.WithClock(fake.NewManualClock(start)), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	sales := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000001"})
	bot := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Help bot", ProviderIdentifier: "help_bot"})
	ago := func(d time.Duration) time.Time { return start.Add(-d) }

	// Ana: 3 unread, a photo we can fetch, a document we cannot, reactions.
	ana := co.AddConversation(fake.Conversation{AssignedTo: "marta",
		ContactID: co.AddContact(fake.Contact{ChannelAccountID: sales, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})})
	co.Inbound(ana, "Hi! Is the blue sofa still available?", ago(26*time.Hour))
	reply := co.Reply(ana, fake.SenderAgent, "Yes, two left in stock.", ago(25*time.Hour))
	co.AddReaction(reply, fake.Reaction{Emoji: "👍", ReactedAt: ago(24 * time.Hour)})
	co.AddMessage(ana, fake.Message{Type: "document", Text: "My old quote", At: ago(6 * time.Hour),
		Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "application/pdf"}})
	co.AddMessage(ana, fake.Message{Type: "image", Text: "Where it would go", At: ago(5*time.Hour + 30*time.Minute),
		Media: &fake.Media{MimeType: "image/png", Filename: "room.png", Data: []byte("\x89PNG\r\n\x1a\n fake room")}})
	co.Inbound(ana, "Can you deliver on Saturday?", ago(5*time.Hour))

	// Bruno: answered by automation only, unassigned.
	bruno := co.AddConversation(fake.Conversation{
		ContactID: co.AddContact(fake.Contact{ChannelAccountID: sales, PhoneNumber: "5521998765432", Name: "Bruno"})})
	co.Inbound(bruno, "Do you ship to Rio?", ago(8*time.Hour))
	co.Reply(bruno, fake.SenderAutomation, "An agent will answer soon.", ago(8*time.Hour-time.Minute))

	// Carla: resolved, not listed as open.
	carla := co.AddConversation(fake.Conversation{Status: convo.ConversationResolved,
		ContactID: co.AddContact(fake.Contact{ChannelAccountID: sales, PhoneNumber: "5531988881234", Name: "Carla"})})
	co.Inbound(carla, "Thanks!", ago(3*time.Hour))

	// Diego, on the bot: never wrote.
	diego := co.AddConversation(fake.Conversation{
		ContactID: co.AddContact(fake.Contact{ChannelAccountID: bot, ChannelIdentifier: "tg-diego", Name: "Diego"})})
	co.Reply(diego, fake.SenderAutomation, "Welcome!", ago(48*time.Hour))
	return s
}

func TestTourOnKnownData(t *testing.T) {
	s := newService(t)
	demo.PointAt(t, s)

	code, out, errOut := runQuickstart(t)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "Using the service at "+s.URL())

	lines := strings.Split(out, "\n")
	assertLine := func(parts ...string) {
		t.Helper()
		for _, l := range lines {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(l, p)
			}
			if ok {
				return
			}
		}
		t.Errorf("no line contains all of %q", parts)
	}

	// Capabilities: null caption limit and null window are shown as such.
	assertLine("Sales", "chatapp", "5511900000001", "4096", "no limit", "24h (templates outside)")
	assertLine("Help bot", "botapp", "help_bot", "4096", "1024", "none")
	// Open conversations only, most recent first, with their times.
	assertLine("chatapp", "5511987654321", "yes", "3", "2026-11-22 07:00 UTC", "2026-11-22 07:00 UTC")
	assertLine("chatapp", "5521998765432", "no", "1", "2026-11-22 04:00 UTC", "2026-11-22 04:01 UTC")
	assertLine("botapp", "tg-diego", "no", "0", "-", "2026-11-20 12:00 UTC")
	assert.NotContains(t, out, "5531988881234", "resolved conversation listed as open")
	assert.Less(t, strings.Index(out, "5511987654321"), strings.Index(out, "tg-diego"), "most recent first")
	// Messages of the busiest conversation (Ana's, 3 unread): type, status,
	// text, media status, reactions.
	assertLine("Latest 5 messages of", "(chatapp 5511987654321; newest first, window: last 30 days)")
	assertLine("2026-11-22 07:00 UTC", "inbound", "text", "-", `"Can you deliver on Saturday?"`, "-")
	assertLine("2026-11-22 06:30 UTC", "inbound", "image", `"Where it would go"`, "available (image/png, 18 B)")
	assertLine("2026-11-22 06:00 UTC", "inbound", "document", `"My old quote"`, "unknown (application/pdf)")
	assertLine("2026-11-21 11:00 UTC", "outbound", "text", "delivered", `"Yes, two left in stock."`, "👍 by contact")
	// Attachment: fetched and downloaded; the null media_id is not requested.
	assertLine("room.png", "image/png", "18 B", "valid until 12:15:00 UTC")
	assertLine("downloaded 18 B into memory")
	assertLine("media_status unknown, media_id null", "ErrNoMedia, no request sent")
	// ForMessage asks for the address once and DownloadAttachment reuses it;
	// nothing is asked for the message whose media_id is null.
	attachmentPaths := map[string]int{}
	var fileCalls int
	for _, r := range s.Requests() {
		switch {
		case strings.Contains(r.Path, "/attachments/"):
			attachmentPaths[r.Path]++
		case strings.HasPrefix(r.Path, "/_files/"):
			fileCalls++
			assert.Empty(t, r.Header.Get("Authorization"), "API key sent to the file host")
		}
	}
	assert.Len(t, attachmentPaths, 1)
	for _, n := range attachmentPaths {
		assert.Equal(t, 1, n, "one address request for the one file")
	}
	assert.Equal(t, 1, fileCalls)
	// Typed error branch.
	assertLine("errors.Is(err, convo.ErrContactNotFound) is true")
	assertLine("HTTP 404, code CONTACT_NOT_FOUND, errorId ERR-")
	// Anomalies: Bruno waits 8h (automation only, unassigned), Ana 5h.
	assertLine("unanswered", "1", "5.0h")
	assertLine("never_engaged", "1", "(count only)")
	assertLine("unassigned", "1", "8.0h")
	assertLine("automation_only", "1", "8.0h")
	assertLine("chatapp", "5.0h", "yes", "3")
}

func TestWithoutAnomalies(t *testing.T) {
	s := newService(t)
	demo.PointAt(t, s)
	code, out, errOut := runQuickstart(t, "--anomalies=false", "--messages", "2")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Latest 2 messages of")
	assert.Contains(t, out, "Anomaly report skipped")
	for _, r := range s.Requests() {
		assert.NotContains(t, r.Path, "/anomalies")
	}
}

func TestFailures(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		key    string // API key given to the client; "" means the fake's
		fault  *fake.Fault
		code   int
		stderr string
	}{
		{name: "bad flag", args: []string{"--messages", "0"}, code: 1, stderr: "--messages must be 1 to 100"},
		{name: "unknown flag", args: []string{"--nope"}, code: 1, stderr: "flag provided but not defined"},
		{name: "help", args: []string{"--help"}, code: 0, stderr: "how many of the conversation's latest messages"},
		{name: "help tells the exit codes", args: []string{"-h"}, code: 0, stderr: "Exit codes: 0 the tour ran; 1 it failed"},
		{name: "wrong key", key: "not-the-key", code: 1, stderr: "listing channel accounts: convo: 401 UNAUTHORIZED"},
		{name: "service down", fault: &fake.Fault{Path: "/conversations", Status: 400, Code: "INVALID_PARAM"}, code: 1, stderr: "listing conversations: convo: 400 INVALID_PARAM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t)
			demo.PointAt(t, s)
			if tt.key != "" {
				t.Setenv(convo.EnvAPIKey, tt.key)
			}
			if tt.fault != nil {
				s.AddFault(*tt.fault)
			}
			code, _, errOut := runQuickstart(t, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, errOut, tt.stderr)
		})
	}
}

// With CONVO_BASE_URL set and CONVO_API_KEY missing or empty, the user meant
// their account: the tour exits 1 with the reason and never shows demo data.
func TestHalfConfiguredExits1(t *testing.T) {
	for _, unset := range []bool{false, true} {
		t.Run(fmt.Sprintf("key unset=%v", unset), func(t *testing.T) {
			t.Setenv(convo.EnvBaseURL, "https://api.example.com/v1")
			t.Setenv(convo.EnvAPIKey, "")
			if unset {
				require.NoError(t, os.Unsetenv(convo.EnvAPIKey))
			}
			code, out, errOut := runQuickstart(t)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, "quickstart: half configured: CONVO_BASE_URL is set but CONVO_API_KEY is missing or empty")
			assert.NotContains(t, errOut, "embedded fake")
			assert.Empty(t, out)
		})
	}
}
