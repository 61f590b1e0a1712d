package convo_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/oascheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func countAttachmentCalls(s *fake.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, "/attachments/") {
			n++
		}
	}
	return n
}

// anyDates are the service dates that date-sensitive tests run at: far in
// the past, far in the future, and the machine's today. The client must give
// the same answers at each, whatever the machine's clock says, since the
// service's clock is the one that counts.
var anyDates = []struct {
	name string
	at   time.Time
}{
	{"2001-01-01", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)},
	{"2099-12-31", time.Date(2099, 12, 31, 23, 0, 0, 0, time.UTC)},
	{"today", time.Now().UTC().Truncate(time.Millisecond)},
}

func TestDownloadAttachmentReusesTheAddress(t *testing.T) {
	for _, d := range anyDates {
		t.Run(d.name, func(t *testing.T) { testDownloadAttachmentAt(t, d.at) })
	}
}

func testDownloadAttachmentAt(t *testing.T, at time.Time) {
	clock := fake.NewManualClock(at)
	s := fake.New(t, fake.WithClock(clock), fake.WithAttachmentTTL(15*time.Minute), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	file := bytes.Repeat([]byte("pdf!"), 1000)
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: clock.Now().Add(-time.Hour),
		Media: &fake.Media{MimeType: "application/pdf", Filename: "invoice.pdf", Data: file}})

	c := s.Client()
	ctx := context.Background()
	page, err := c.Messages.List(ctx, conv, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	att, err := c.Attachments.ForMessage(ctx, page.Items[0])
	require.NoError(t, err)

	var buf bytes.Buffer
	n, err := c.Attachments.DownloadAttachment(ctx, att, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.Equal(t, file, buf.Bytes())
	assert.Equal(t, 1, countAttachmentCalls(s), "the address held is used as is")
	assert.False(t, att.Expired(), "15 minutes left on the service's clock")

	// Download goes through ForMessage: one more address, used as is.
	buf.Reset()
	_, err = c.Attachments.Download(ctx, page.Items[0], &buf)
	require.NoError(t, err)
	assert.Equal(t, 2, countAttachmentCalls(s), "Download asks for its address once")

	// Past its expiry the file host refuses the old address: one fresh one.
	clock.Advance(20 * time.Minute)
	buf.Reset()
	n, err = c.Attachments.DownloadAttachment(ctx, att, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.Equal(t, 3, countAttachmentCalls(s), "exactly one renewal")

	_, err = c.Attachments.DownloadAttachment(ctx, nil, &buf)
	assert.Error(t, err)
	_, err = c.Attachments.DownloadAttachment(ctx, att, nil)
	assert.Error(t, err)
}
