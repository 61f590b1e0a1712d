package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demotest"
	"github.com/convoapi/convo-go/fake"
)

var start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func runQuickstart(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// newService starts a fake on a frozen clock with data seeded in Go, so
// that every line of the tour is known.
func newService(t *testing.T) *fake.Server { return newServiceAt(t, start) }

// newServiceAt seeds the same data relative to another service date.
func newServiceAt(t *testing.T, start time.Time) *fake.Server {
	t.Helper()
	s := demotest.Fake(t, start)
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
	co.AddMessage(ana, fake.Message{Type: "document", At: ago(6 * time.Hour), // no caption
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
	code, out, errOut := runQuickstart(t)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "Using the service at "+s.URL())

	lines := strings.Split(out, "\n")
	for _, parts := range [][]string{
		// Capabilities: null caption limit and null window are shown as such.
		{"Sales", "chatapp", "5511900000001", "4096", "none", "24", "true"},
		{"Help bot", "botapp", "help_bot", "4096", "1024", "none", "false"},
		// Open conversations only, most recent first, with their times.
		{"chatapp", "5511987654321", "true", "3", "2026-11-22 07:00 UTC", "2026-11-22 07:00 UTC"},
		{"chatapp", "5521998765432", "false", "1", "2026-11-22 04:00 UTC", "2026-11-22 04:01 UTC"},
		{"botapp", "tg-diego", "false", "0", "-", "2026-11-20 12:00 UTC"},
		// Messages of the busiest conversation (Ana's, 3 unread): type,
		// status, text, media status, reactions.
		{"Latest 5 messages of", "(chatapp 5511987654321; newest first, window: last 30 days)"},
		{"2026-11-22 07:00 UTC", "inbound", "text", "-", `"Can you deliver on Saturday?"`, "-"},
		{"2026-11-22 06:30 UTC", "inbound", "image", `"Where it would go"`, "available image/png"},
		{"2026-11-22 06:00 UTC", "inbound", "document", "-   ", "unknown application/pdf"}, // no caption: "-", not ""
		{"2026-11-21 11:00 UTC", "outbound", "text", "delivered", `"Yes, two left in stock."`, "[👍 (inbound)]"},
		// Attachment: fetched and downloaded; the null media_id is not requested.
		{"room.png", "image/png", "valid until 12:15:00 UTC", "downloaded 18 bytes"},
		{"media_status unknown, media_id null", "ErrNoMedia, no request sent"},
		// Typed error branch.
		{"errors.Is(err, convo.ErrContactNotFound) is true"},
		{"HTTP 404, code CONTACT_NOT_FOUND, errorId ERR-"},
		// Anomalies: Bruno waits 8h (automation only, unassigned), Ana 5h.
		{"unanswered", "1", "5.0h in "},
		{"never_engaged", "1", "(count only)"},
		{"unassigned", "1", "8.0h in "},
		{"automation_only", "1", "8.0h in "},
	} {
		assert.True(t, slices.ContainsFunc(lines, func(l string) bool {
			return !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(l, p) })
		}), "no line contains all of %q", parts)
	}
	assert.NotContains(t, out, `""`, "a message without text is shown as -")
	assert.NotContains(t, out, "5531988881234", "resolved conversation listed as open")
	assert.Less(t, strings.Index(out, "5511987654321"), strings.Index(out, "tg-diego"), "most recent first")
	// ForMessage asks for the address once and DownloadAttachment reuses it,
	// without the API key; nothing is asked for the null media_id.
	assert.Len(t, s.RequestsMatching("GET", "/attachments/*"), 1)
	files := s.RequestsMatching("GET", "/_files/*")
	require.Len(t, files, 1)
	assert.Empty(t, files[0].Header.Get("Authorization"), "API key sent to the file host")
}

func TestRuns(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		env    map[string]string // set after pointing the client at the fake
		fault  *fake.Fault
		code   int
		stdout []string
		stderr string
		quiet  bool // nothing on stdout
	}{
		{name: "embedded demo data", env: map[string]string{convo.EnvBaseURL: "", convo.EnvAPIKey: ""}, stderr: "embedded fake",
			stdout: []string{"Channel accounts (", "Open conversations", "Latest ", "Attachments", "Typed errors", "Anomaly report"}},
		{name: "without anomalies", args: []string{"--anomalies=false", "--messages", "2"},
			stdout: []string{"Latest 2 messages of", "Anomaly report skipped"}},
		{name: "too many messages", args: []string{"--messages", "101"}, code: 1, stderr: "reading messages: convo: 400 INVALID_PARAM"},
		{name: "unknown flag", args: []string{"--nope"}, code: 1, stderr: "flag provided but not defined", quiet: true},
		{name: "help", args: []string{"--help"}, stderr: "how many of the conversation's latest messages"},
		{name: "wrong key", env: map[string]string{convo.EnvAPIKey: "not-the-key"}, code: 1, stderr: "listing channel accounts: convo: 401 UNAUTHORIZED"},
		{name: "service fails", fault: &fake.Fault{Path: "/conversations", Status: 400, Code: "INVALID_PARAM"}, code: 1,
			stderr: "listing conversations: convo: 400 INVALID_PARAM"},
		{name: "attachment fails", fault: &fake.Fault{Path: "/attachments/*", Status: 400, Code: "INVALID_PARAM"}, code: 1,
			stderr: "attachment of "},
		{name: "lookup fails", fault: &fake.Fault{Path: "/chatapp/contacts/lookup", Status: 400, Code: "INVALID_PARAM"}, code: 1,
			stderr: "looking up a contact that should not exist: convo: 400 INVALID_PARAM"},
		{name: "anomaly report fails", fault: &fake.Fault{Path: "/conversations/anomalies", Status: 400, Code: "INVALID_PARAM"}, code: 1,
			stderr: "reading the anomaly report: convo: 400 INVALID_PARAM"},
		// Only one of the two set: exit 1 with the reason, never demo data.
		{name: "half configured", env: map[string]string{convo.EnvAPIKey: ""}, code: 1, quiet: true,
			stderr: "quickstart: half configured: CONVO_BASE_URL is set but CONVO_API_KEY is missing or empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if tt.fault != nil {
				s.AddFault(*tt.fault)
			}
			code, out, errOut := runQuickstart(t, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.stderr)
			for _, want := range tt.stdout {
				assert.Contains(t, out, want)
			}
			if tt.quiet {
				assert.Empty(t, out)
			}
			if slices.Contains(tt.args, "--anomalies=false") {
				assert.Empty(t, s.RequestsMatching("", "/conversations/anomalies"))
			}
		})
	}
}

var (
	// dateInOutput is how the tour prints a date and time.
	dateInOutput = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC`)
	// randomInOutput matches what each fake draws afresh: ids and errorIds.
	randomInOutput = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|ERR-[0-9A-Z]+-[0-9A-Z]+`)
)

// TestTourOnAnyDate runs the tour with the service's clock at 2001-01-01 and
// at 2099-12-31: once its dates are moved back to the reference date, the
// output is the same.
func TestTourOnAnyDate(t *testing.T) {
	reference := randomInOutput.ReplaceAllString(tourAt(t, start), "<random>")
	for _, at := range []time.Time{time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(2099, 12, 31, 12, 0, 0, 0, time.UTC)} {
		t.Run(at.Format("2006-01-02"), func(t *testing.T) {
			shift := start.Sub(at) // whole days: times of day print alike
			moved := dateInOutput.ReplaceAllStringFunc(tourAt(t, at), func(s string) string {
				d, err := time.Parse("2006-01-02 15:04 MST", s)
				require.NoError(t, err)
				return d.Add(shift).Format("2006-01-02 15:04 MST")
			})
			assert.Equal(t, reference, randomInOutput.ReplaceAllString(moved, "<random>"))
		})
	}
}

func tourAt(t *testing.T, at time.Time) string {
	t.Helper()
	newServiceAt(t, at)
	code, out, errOut := runQuickstart(t)
	require.Equal(t, 0, code, errOut)
	return out
}

// The documented command, run twice in a row on the embedded fake: the tour
// each time, exit code 0.
func TestDocumentedCommands(t *testing.T) {
	demotest.CheckDocumentedCommands(t, "quickstart", run, map[string]demotest.Outcome{
		"": {Code: 0, Stdout: []string{"Channel accounts", "Anomaly report"}},
	})
}

// The tables line up by the columns a terminal gives each character: a
// cell holding an emoji (two columns) or a combining mark (none) does not
// shift the cells after it, as text/tabwriter's count of characters did.
func TestTableLinesUpWideCharacters(t *testing.T) {
	var out strings.Builder
	tw := newTable(&out)
	fmt.Fprintln(tw, "  TEXT\tREACTIONS\tEND")
	fmt.Fprintln(tw, "  \"Thanks 👍\"\t[❤ (inbound)]\tx")
	fmt.Fprintln(tw, "  \"cafe\u0301 日本\"\t[]\ty")
	fmt.Fprintln(tw, "  plain\t-\tz")
	require.NoError(t, tw.Flush())
	want := "  TEXT" + strings.Repeat(" ", 9) + "REACTIONS" + strings.Repeat(" ", 6) + "END\n" +
		"  \"Thanks 👍\"  [❤ (inbound)]  x\n" + // 13 columns each, the emoji two of them
		"  \"cafe\u0301 日本\"  []" + strings.Repeat(" ", 13) + "y\n" +
		"  plain" + strings.Repeat(" ", 8) + "-" + strings.Repeat(" ", 14) + "z\n"
	assert.Equal(t, want, out.String())
}
