// Package contract holds the scenarios that prove the fake matches the
// service: each one runs through the SDK, checks only what the interface
// specification promises (never data that only the fake has), and so runs
// unchanged against the fake in `go test ./...` and against a real server when
// CONVO_CONTRACT_BASE_URL and CONVO_CONTRACT_API_KEY are set.
//
// Against a real server the suite is read-only: it lists, reads and looks up,
// and provokes only validation errors (400/401/404), never a write.
package contract

import (
	"bytes"
	"cmp"
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Target is what the scenarios run against.
type Target struct {
	// NewClient returns a client for the target with extra options (an auth
	// scheme, another key).
	NewClient func(opts ...convo.Option) (*convo.Client, error)
	// Now is the target's clock (the fake's, or time.Now for a real server).
	Now func() time.Time
	// AnomalyCalls bounds the calls made to the anomalies endpoint, whose
	// real limit is about one pass per day.
	AnomalyCalls int
}

// Run runs every scenario as a subtest.
func Run(t *testing.T, target Target) {
	run := func(name string, fn func(*testing.T, Target)) {
		t.Run(name, func(t *testing.T) { fn(t, target) })
	}
	run("auth/three header forms", authForms)
	run("auth/wrong key", wrongKey)
	run("channels/capabilities", channels)
	run("conversations/defaults and pagination", conversations)
	run("conversations/bad filters", conversationBadFilters)
	run("messages/order window and shapes", messages)
	run("messages/bad limit and unknown conversation", messageErrors)
	run("attachments/exchange", attachments)
	run("contacts/lookup errors", contactErrors)
	run("anomalies/report and errors", anomalies)
}

func client(t *testing.T, target Target, opts ...convo.Option) *convo.Client {
	t.Helper()
	c, err := target.NewClient(opts...)
	require.NoError(t, err)
	return c
}

// requireCode asserts a typed error with its status and code (docs/behaviour.md, "Errors").
func requireCode(t *testing.T, err error, status int, sentinel error) *convo.Error {
	t.Helper()
	var apiErr *convo.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode)
	assert.ErrorIs(t, err, sentinel)
	assert.Regexp(t, `^ERR-[0-9A-Z]+-[0-9A-Z]+$`, apiErr.ErrorID)
	assert.Regexp(t, `^/api/v1/`, apiErr.Path, "error paths show the internal /api/v1 prefix")
	assert.NotEmpty(t, apiErr.Message)
	return apiErr
}

func authForms(t *testing.T, target Target) {
	for _, scheme := range []convo.AuthScheme{convo.AuthBearer, convo.AuthAPIKey, convo.AuthXAPIKey} {
		_, err := client(t, target, convo.WithAuthScheme(scheme)).Channels.List(context.Background())
		assert.NoError(t, err, scheme.String())
	}
}

func wrongKey(t *testing.T, target Target) {
	c := client(t, target, convo.WithAPIKey("contract-wrong-key"), convo.WithMaxRetries(0))
	_, err := c.Channels.List(context.Background())
	apiErr := requireCode(t, err, 401, convo.ErrUnauthorized)
	assert.Equal(t, "Invalid or missing API key.", apiErr.Message)
}

func channels(t *testing.T, target Target) {
	accounts, err := client(t, target).Channels.List(context.Background())
	require.NoError(t, err)
	for _, a := range accounts {
		assert.NotEmpty(t, a.ID)
		assert.Contains(t, []convo.Channel{convo.ChannelChatapp, convo.ChannelBotapp}, a.Channel, "no SMS account and no webchat widget in the channel list (GET /channels)")
		assert.NotEmpty(t, a.Status)
		assert.Positive(t, a.Capabilities.MaxTextLength)
		switch a.Channel {
		case convo.ChannelChatapp:
			assert.Nil(t, a.Capabilities.MaxCaptionLength, "chatapp states no caption limit")
			assert.Equal(t, ptr(24), a.Capabilities.SessionWindowHours)
			assert.True(t, a.Capabilities.RequiresTemplateOutsideWindow)
		case convo.ChannelBotapp:
			assert.Equal(t, ptr(1024), a.Capabilities.MaxCaptionLength)
			assert.Nil(t, a.Capabilities.SessionWindowHours)
			assert.False(t, a.Capabilities.RequiresTemplateOutsideWindow)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func conversations(t *testing.T, target Target) {
	ctx := context.Background()
	c := client(t, target)
	first, err := c.Conversations.List(ctx, nil)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(first.Items), 25, "default page size")
	for _, cv := range first.Items {
		assert.Equal(t, convo.ConversationOpen, cv.Status, "status defaults to open")
		assert.NotEmpty(t, cv.ID)
	}
	// Small pages stitched together never repeat an item.
	seen := map[string]bool{}
	n := 0
	for cv, err := range c.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 2}) {
		require.NoError(t, err)
		assert.False(t, seen[cv.ID], "conversation %s repeated across pages", cv.ID)
		seen[cv.ID] = true
		if n++; n >= 200 {
			break
		}
	}
	assert.GreaterOrEqual(t, len(seen), len(first.Items), "status=all includes the open ones")
}

func conversationBadFilters(t *testing.T, target Target) {
	c := client(t, target, convo.WithMaxRetries(0))
	for _, p := range []convo.ListConversationsParams{
		{Limit: 101},
		{Channel: "sms"},
		{Status: "pending"},
	} {
		_, err := c.Conversations.List(context.Background(), &p)
		requireCode(t, err, 400, convo.ErrInvalidParam)
	}
	err := c.Do(context.Background(), "GET", "/conversations", url.Values{"assigned": {"maybe"}}, nil, nil)
	requireCode(t, err, 400, convo.ErrInvalidParam)
}

// firstConversationWithMessages finds a conversation that has recent
// messages, or skips the test when the target has none.
func firstConversationWithMessages(t *testing.T, c *convo.Client) (string, *convo.MessagePage) {
	ctx := context.Background()
	n := 0
	for cv, err := range c.Conversations.All(ctx, &convo.ListConversationsParams{Status: convo.ConversationAll, Limit: 50}) {
		require.NoError(t, err)
		page, err := c.Messages.List(ctx, cv.ID, &convo.ListMessagesParams{Limit: 100})
		require.NoError(t, err)
		if len(page.Items) > 0 {
			return cv.ID, page
		}
		if n++; n >= 50 {
			break
		}
	}
	t.Skip("no conversation with recent messages on this target")
	return "", nil
}

func messages(t *testing.T, target Target) {
	c := client(t, target)
	id, page := firstConversationWithMessages(t, c)
	assert.Equal(t, 30, page.Window.RecentWindowDays)
	assert.WithinDuration(t, target.Now().Add(-30*24*time.Hour), page.Window.Since, 10*time.Minute)
	var prev *time.Time
	for _, m := range page.Items {
		assert.NotEmpty(t, m.MessageID)
		assert.Contains(t, []convo.Direction{convo.DirectionInbound, convo.DirectionOutbound}, m.Direction)
		assert.NotEmpty(t, m.Type, "the type is always explicit")
		if m.SentAt != nil {
			if prev != nil {
				assert.False(t, m.SentAt.After(*prev), "newest first")
			}
			prev = m.SentAt
		}
		if m.Media != nil {
			assert.Contains(t, []convo.MediaStatus{convo.MediaAvailable, convo.MediaUnknown, convo.MediaNoReference}, m.Media.MediaStatus)
			assert.Equal(t, m.Media.MediaStatus == convo.MediaAvailable, m.Media.MediaID != "", "media_id is set exactly when available")
		}
		if m.Type == convo.MessageSystem || m.Type == convo.MessageUnsupported {
			assert.Nil(t, m.Text)
			assert.Nil(t, m.Media)
			assert.True(t, len(m.Raw) == 0 || string(m.Raw) == "null")
		}
	}
	// Reading beyond the window with since never returns fewer messages.
	older, err := c.Messages.List(context.Background(), id, &convo.ListMessagesParams{Limit: 100, Since: target.Now().Add(-365 * 24 * time.Hour)})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(older.Items), len(page.Items))
	assert.WithinDuration(t, target.Now().Add(-365*24*time.Hour), older.Window.Since, time.Second)
}

func messageErrors(t *testing.T, target Target) {
	c := client(t, target, convo.WithMaxRetries(0))
	ctx := context.Background()
	_, err := c.Messages.List(ctx, "00000000-0000-4000-8000-000000000000", nil)
	requireCode(t, err, 404, convo.ErrConversationNotFound)

	id, _ := firstConversationWithMessages(t, c)
	for _, limit := range []string{"0", "101", "abc", "5.5"} {
		err := c.Do(ctx, "GET", "/conversations/"+id+"/messages", url.Values{"limit": {limit}}, nil, nil)
		requireCode(t, err, 400, convo.ErrInvalidParam)
	}
	err = c.Do(ctx, "GET", "/conversations/"+id+"/messages", url.Values{"cursor": {"not-a-cursor"}}, nil, nil)
	requireCode(t, err, 400, convo.ErrInvalidParam)
}

func attachments(t *testing.T, target Target) {
	c := client(t, target)
	ctx := context.Background()
	_, page := firstConversationWithMessages(t, c)
	for _, m := range page.Items {
		if !m.Media.Available() {
			if m.Media != nil {
				_, err := c.Attachments.ForMessage(ctx, m)
				assert.ErrorIs(t, err, convo.ErrNoMedia)
			}
			continue
		}
		a, err := c.Attachments.ForMessage(ctx, m)
		require.NoError(t, err)
		assert.Equal(t, m.Media.MediaID, a.MediaID)
		assert.Regexp(t, `^https?://`, a.URL, "an absolute, temporary address")
		assert.True(t, a.ExpiresAt.After(target.Now()), "not yet expired")
		var buf bytes.Buffer
		n, err := c.Attachments.Download(ctx, m, &buf)
		require.NoError(t, err)
		assert.Equal(t, int64(buf.Len()), n)
		if a.FileSize > 0 {
			assert.Equal(t, a.FileSize, n, "file_size matches the bytes served")
		}
		return
	}
	t.Skip("no available media among the first messages")
}

func contactErrors(t *testing.T, target Target) {
	c := client(t, target, convo.WithMaxRetries(0))
	ctx := context.Background()
	_, err := c.Contacts.Lookup(ctx, &convo.LookupContactParams{})
	apiErr := requireCode(t, err, 400, convo.ErrMissingParam)
	assert.Contains(t, apiErr.Message, "phone_number")
	_, err = c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "999000111222333"})
	requireCode(t, err, 404, convo.ErrContactNotFound)
}

func anomalies(t *testing.T, target Target) {
	if target.AnomalyCalls < 1 {
		t.Skip("no anomaly calls allowed on this target")
	}
	c := client(t, target, convo.WithMaxRetries(0))
	ctx := context.Background()
	r, err := c.Anomalies.Get(ctx, nil)
	require.NoError(t, err)
	for _, ch := range []convo.Channel{convo.ChannelChatapp, convo.ChannelSMS, convo.ChannelBotapp, convo.ChannelWebchat} {
		assert.Contains(t, r.Window.CeilingHoursByChannel, ch)
	}
	assert.Equal(t, 24, r.Window.CeilingHoursByChannel[convo.ChannelChatapp])
	assert.Nil(t, r.Buckets.Unassigned, "opt-in buckets only when asked")
	assert.Nil(t, r.Buckets.AutomationOnly)
	assert.GreaterOrEqual(t, r.Buckets.Unanswered.Count, len(r.Buckets.Unanswered.Items))
	assert.True(t, slices.IsSortedFunc(r.Buckets.Unanswered.Items, func(a, b convo.AnomalyItem) int {
		return cmp.Compare(b.WaitingHours, a.WaitingHours)
	}), "worst first")
	for _, it := range r.Buckets.Unanswered.Items {
		assert.GreaterOrEqual(t, it.WaitingHours, float64(r.Window.ThresholdHours))
		assert.LessOrEqual(t, it.WaitingHours, float64(r.Window.CeilingHoursByChannel[it.Channel]))
	}
	if target.AnomalyCalls < 4 {
		return
	}
	_, err = c.Anomalies.Get(ctx, &convo.AnomaliesParams{Include: []convo.Bucket{"stale"}})
	apiErr := requireCode(t, err, 400, convo.ErrInvalidBucket)
	d, ok := apiErr.InvalidBucket()
	require.True(t, ok)
	assert.ElementsMatch(t, []convo.Bucket{convo.BucketUnanswered, convo.BucketNeverEngaged, convo.BucketUnassigned, convo.BucketAutomationOnly}, d.ValidBuckets)
	assert.ElementsMatch(t, []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly}, d.OptIn)
	for _, p := range []convo.AnomaliesParams{{ThresholdHours: 25}, {Limit: 101}} {
		_, err = c.Anomalies.Get(ctx, &p)
		assert.ErrorIs(t, err, convo.ErrInvalidParam, "refused by the SDK or by the service")
	}
	withOptIn, err := c.Anomalies.Get(ctx, &convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketUnassigned, convo.BucketAutomationOnly}})
	require.NoError(t, err)
	assert.NotNil(t, withOptIn.Buckets.Unassigned)
	assert.NotNil(t, withOptIn.Buckets.AutomationOnly)
}
