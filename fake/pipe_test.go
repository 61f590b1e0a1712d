package fake_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// inBubble runs f in a synctest bubble and returns the real time it took,
// read outside the bubble (inside, time.Now is the bubble's fake clock).
func inBubble(t *testing.T, f func(t *testing.T)) time.Duration {
	t.Helper()
	start := time.Now()
	synctest.Test(t, f)
	return time.Since(start)
}

// A 30-second Retry-After, met through the fake's own client inside a
// bubble, is waited on the bubble's clock: the call succeeds on its retry in
// no real time, and the fake (on its default real clock, which the bubble
// fakes) agrees that 30 seconds went by.
func TestInMemoryNetworkRetryAfterInSynctest(t *testing.T) {
	before := runtime.NumGoroutine()
	took := inBubble(t, func(t *testing.T) {
		s := fake.New(t, fake.WithInMemoryNetwork())
		s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
		s.AddFault(fake.Fault{Method: http.MethodGet, Path: "/channels", Status: http.StatusTooManyRequests,
			RetryAfter: 30 * time.Second, Times: 1})
		c := s.Client()

		start, fakeStart := time.Now(), s.Clock().Now()
		var meta []int
		chans, err := c.Channels.List(context.Background())
		require.NoError(t, err)
		assert.Len(t, chans, 1)
		assert.Equal(t, 30*time.Second, time.Since(start), "the wait the service asked for, on the bubble's clock")
		assert.Equal(t, 30*time.Second, s.Clock().Now().Sub(fakeStart), "the fake's clock is the bubble's")
		for _, r := range s.Requests() {
			meta = append(meta, r.Status)
		}
		assert.Equal(t, []int{http.StatusTooManyRequests, http.StatusOK}, meta)
	})
	assert.Less(t, took, time.Second, "30 s of Retry-After must take no real time")
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+1, "the fake's goroutines end with the bubble")
}

// An attachment address is renewed once the fake's clock passes its
// expires_at, and not before, with no manual clock: the bubble's time moves.
func TestInMemoryNetworkDownloadInSynctest(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		s := fake.New(t, fake.WithInMemoryNetwork(), fake.WithAttachmentTTL(15*time.Minute))
		co := s.Company()
		acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
		conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511900000010"})})
		co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: s.Clock().Now().Add(-time.Hour),
			Media: &fake.Media{MimeType: "image/png", Filename: "a.png", Data: []byte("png")}})
		c := s.Client()
		ctx := context.Background()
		page, err := c.Messages.List(ctx, conv, nil)
		require.NoError(t, err)
		att, err := c.Attachments.ForMessage(ctx, page.Items[0])
		require.NoError(t, err)

		time.Sleep(14 * time.Minute)
		assert.False(t, att.Expired())
		_, err = c.Attachments.DownloadAttachment(ctx, att, new(discard))
		require.NoError(t, err)
		assert.Len(t, addressRequests(s), 1, "still valid: no new address")

		time.Sleep(2 * time.Minute)
		assert.True(t, att.Expired())
		_, err = c.Attachments.DownloadAttachment(ctx, att, new(discard))
		require.NoError(t, err)
		assert.Len(t, addressRequests(s), 2, "expired: exactly one renewal")
	})
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// addressRequests lists the journal's requests for an attachment address.
func addressRequests(s *fake.Server) []fake.Request {
	var out []fake.Request
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, "/attachments/") {
			out = append(out, r)
		}
	}
	return out
}
