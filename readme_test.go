package convo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Go blocks of README.md live here, so that they compile and run. The
// last test checks that README.md shows them exactly as they are here.

func readmeUsage(ctx context.Context, conversationID string) error {
	c, err := convo.NewClient() // reads CONVO_API_KEY and CONVO_BASE_URL (ending in /v1)
	if err != nil {
		return err
	}

	// One page of open conversations that nobody is assigned to.
	page, err := c.Conversations.List(ctx, &convo.ListConversationsParams{Assigned: convo.Bool(false)})
	if err != nil {
		return err
	}
	fmt.Println(len(page.Items), "unassigned open conversations")

	// Every message of a conversation, newest first, fetched page by page.
	for msg, err := range c.Messages.All(ctx, conversationID, nil) {
		if err != nil {
			return err
		}
		fmt.Println(msg.Direction, msg.Type, msg.TextOrEmpty())
	}

	// Errors are typed by the service's code, never by their text.
	_, err = c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511987654321"})
	var apiErr *convo.Error
	switch {
	case errors.Is(err, convo.ErrContactNotFound):
		// not there yet: create it with c.Contacts.Create
	case errors.As(err, &apiErr):
		return fmt.Errorf("lookup: %s (quote %s to support)", apiErr.Code, apiErr.ErrorID)
	case err != nil:
		return err // network, timeout, cancelled context
	}
	return nil
}

func readmePerCall(ctx context.Context, c *convo.Client, conversationID, savedCursor string) error {
	// Per call: an extra header, a retry budget, a timeout, and the answer's metadata.
	var meta convo.Response
	page, err := c.Messages.List(ctx, conversationID, &convo.ListMessagesParams{Limit: 100},
		convo.WithHeader("X-Correlation-Id", "export-42"),
		convo.WithMaxRetries(1),
		convo.WithTimeout(10*time.Second),
		convo.CaptureResponse(&meta))
	if err != nil {
		return err // an *convo.Error also carries Attempts, Duration and Header
	}
	fmt.Println(len(page.Items), meta.StatusCode, meta.Attempts, meta.Duration, meta.Timestamp)

	// Page by page, keeping the cursor: after an error, start again from it.
	params := &convo.ListMessagesParams{Cursor: savedCursor} // "" starts from the newest
	for page, err := range c.Messages.Pages(ctx, conversationID, params, convo.WithReadAhead()) {
		if err != nil {
			return err // savedCursor says where to resume
		}
		for _, msg := range page.Items {
			fmt.Println(msg.MessageID)
		}
		savedCursor = page.NextCursor
	}

	// Create a contact, or get the one that already has this phone.
	contact, created, err := c.Contacts.Ensure(ctx, &convo.CreateContactParams{
		PhoneNumberID: "5511900000000", PhoneNumber: "5511912345678", Name: "Bia"})
	if err != nil {
		return err
	}
	fmt.Println(contact.ID, created)
	return nil
}

// readmeFake is a fake with one conversation: Ana's "Hello!", an hour ago.
func readmeFake(t *testing.T) (*fake.Server, string) {
	s := fake.New(t)
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 91234-0000", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", s.Clock().Now().Add(-time.Hour))
	return s, conv
}

func TestReadmePerCall(t *testing.T) {
	s, conv := readmeFake(t)
	out := captureStdout(t, func() {
		require.NoError(t, readmePerCall(context.Background(), s.Client(), conv, ""))
	})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3, out)
	assert.True(t, strings.HasPrefix(lines[0], "1 200 1 "), "one item, status 200, one attempt: %q", lines[0])
	assert.NotEmpty(t, lines[1], "the message id")
	assert.True(t, strings.HasSuffix(lines[2], " true"), "the contact was created: %q", lines[2])
}

func TestReadmeUsage(t *testing.T) {
	s, conv := readmeFake(t)
	t.Setenv(convo.EnvAPIKey, s.APIKey())
	t.Setenv(convo.EnvBaseURL, s.URL())
	out := captureStdout(t, func() {
		require.NoError(t, readmeUsage(context.Background(), conv))
	})
	assert.Equal(t, "1 unassigned open conversations\ninbound text Hello!\n", out)
}

// captureStdout runs f with os.Stdout sent to a file and returns what f
// printed there, so that README code, which prints, keeps the test quiet.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	require.NoError(t, err)
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	defer func() { os.Stdout = saved }()
	f()
	out, err := os.ReadFile(tmp.Name())
	require.NoError(t, err)
	return string(out)
}

func TestReadmeFake(t *testing.T) {
	clock := fake.NewManualClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	s := fake.New(t, fake.WithClock(clock)) // closed when the test ends

	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Is my order on its way?", clock.Now().Add(-5*time.Hour))

	c := s.Client(convo.WithMaxRetries(0)) // a *convo.Client pointed at the fake
	ctx := context.Background()
	report, err := c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, 1, report.Buckets.Unanswered.Count) // waiting 5h, above the 4h default

	// Time moves only when the test says so: 20h later the last inbound is
	// past chatapp's 24h ceiling, and the conversation leaves the bucket.
	clock.Advance(20 * time.Hour)
	report, err = c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	require.Zero(t, report.Buckets.Unanswered.Count)

	// Fault rules make the fake misbehave on cue: here, one 429.
	s.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: 429, RetryAfter: time.Minute, Times: 1})
	_, err = c.Messages.List(ctx, conv, nil)
	require.ErrorIs(t, err, convo.ErrRateLimited)

	// The journal records every request, for assertions on what was sent.
	require.Len(t, s.Requests(), 3)
}

// The README's synctest block, run as it is shown.
func TestSweepWaitsOutTheRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := fake.New(t, fake.WithInMemoryNetwork())
		s.AddFault(fake.Fault{Path: "/channels", Status: 429, RetryAfter: 30 * time.Second, Times: 1})
		c := s.Client()

		start := time.Now()
		_, err := c.Channels.List(t.Context()) // waits out the 30 s Retry-After in bubble time
		require.NoError(t, err)
		require.Equal(t, 30*time.Second, time.Since(start))

		time.Sleep(6 * time.Minute) // past the 5-minute anomaly cache, in no real time
		_, err = c.Anomalies.Get(t.Context(), nil)
		require.NoError(t, err)
	})
}

// TestReadmeBlocksAreCompiled keeps README.md honest: each ```go block must
// appear, line for line (indentation aside), in this file or in the
// examples of otelconvo or redislimit (modules of their own).
func TestReadmeBlocksAreCompiled(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	self, err := os.ReadFile("readme_test.go")
	require.NoError(t, err)
	// The OpenTelemetry adapter's and the Redis limiter's blocks compile in
	// their own modules.
	for _, nested := range []string{"otelconvo/example_test.go", "redislimit/example_test.go"} {
		b, err := os.ReadFile(nested)
		require.NoError(t, err)
		self = append(self, b...)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	require.NotEmpty(t, blocks, "README.md shows Go code")
	haystack := normalizeLines(string(self))
	for _, b := range blocks {
		needle := normalizeLines(string(b[1]))
		assert.True(t, containsRun(haystack, needle), "README block not found in readme_test.go:\n%s", b[1])
	}
}

func normalizeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether needle appears in hay as a run of whole lines.
func containsRun(hay, needle []string) bool {
	return strings.Contains("\n"+strings.Join(hay, "\n")+"\n", "\n"+strings.Join(needle, "\n")+"\n")
}
