package convo_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

const attachmentResp = `{"media_id":"med-6","url":"https://files.example-cdn.test/o/med-6?X-Sig=abc&X-Expires=600",
 "expires_at":"2026-11-22T10:14:05.123Z","mime_type":"image/jpeg","file_size":48213,"filename":"receipt.jpg","checksum":"ignored"}`

var imageMsg = convo.Message{
	MessageID: "m-6", Direction: convo.DirectionInbound, Type: convo.MessageImage,
	Media: &convo.Media{MediaID: "med-6", MediaStatus: convo.MediaAvailable, MimeType: "image/jpeg"},
}

func TestAttachmentsGetWire(t *testing.T) {
	wantAtt := &convo.Attachment{
		MediaID:   "med-6",
		URL:       "https://files.example-cdn.test/o/med-6?X-Sig=abc&X-Expires=600",
		ExpiresAt: time.Date(2026, 11, 22, 10, 14, 5, 123e6, time.UTC),
		MimeType:  "image/jpeg", FileSize: 48213, Filename: "receipt.jpg",
	}
	check := func(t *testing.T, got any) {
		a := got.(*convo.Attachment)
		assert.True(t, a.ExpiresAt.Equal(wantAtt.ExpiresAt))
		a.ExpiresAt = wantAtt.ExpiresAt
		assert.Equal(t, exportedAttachment(wantAtt), exportedAttachment(a))
		assert.False(t, a.Expired(), "10 minutes left on the service's clock")
	}
	runWireCases(t, []wireCase{{
		name:   "Get",
		call:   func(ctx context.Context, c *convo.Client) (any, error) { return c.Attachments.Get(ctx, "med-6") },
		method: "GET", path: "/v1/attachments/med-6",
		resp: ok(attachmentResp), check: check,
	}, {
		name: "ForMessage exchanges media.media_id",
		call: func(ctx context.Context, c *convo.Client) (any, error) {
			return c.Attachments.ForMessage(ctx, imageMsg)
		},
		method: "GET", path: "/v1/attachments/med-6",
		resp: ok(attachmentResp), check: check,
	}})
}

func TestAttachmentsGetErrors(t *testing.T) {
	runErrorCases(t, "GET", "/attachments/med-6", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Attachments.Get(ctx, "med-6")
		return err
	}, []apiErr{
		// The code of a missing attachment is not shown in the spec: whatever
		// comes is kept as the Code, and matches no sentinel.
		{404, convo.ErrorCode("MEDIA_NOT_FOUND"), "Media not found", "", nil},
		errUnauthorized,
		errRateLimited,
	})
}

func TestAttachmentsEmptyMediaID(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(attachmentResp)))
	_, err := c.Attachments.Get(context.Background(), "")
	assert.ErrorIs(t, err, convo.ErrEmptyID)
	assert.Empty(t, m.requests())
}

// Rule 2.3.3: media_id null is a normal case, and the attachment endpoint must
// not be called.
func TestAttachmentsNoMediaWithoutRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		media  *convo.Media
		status convo.MediaStatus
	}{
		{"unknown", &convo.Media{MediaStatus: convo.MediaUnknown}, convo.MediaUnknown},
		{"no_reference", &convo.Media{MediaStatus: convo.MediaNoReference, Filename: "contract.pdf"}, convo.MediaNoReference},
		{"available but media_id null", &convo.Media{MediaStatus: convo.MediaAvailable}, convo.MediaAvailable},
		{"no media block", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, m := newMock(t, jsonResp(200, ok(attachmentResp)))
			msg := convo.Message{MessageID: "m-5", Type: convo.MessageAudio, Media: tc.media}

			check := func(err error) {
				t.Helper()
				require.ErrorIs(t, err, convo.ErrNoMedia)
				var nm *convo.NoMediaError
				require.True(t, errors.As(err, &nm))
				assert.Equal(t, "m-5", nm.MessageID)
				assert.Equal(t, tc.status, nm.MediaStatus)
				assert.Contains(t, err.Error(), "m-5")
				var apiErr *convo.Error
				assert.False(t, errors.As(err, &apiErr), "not an API error")
			}
			att, err := c.Attachments.ForMessage(context.Background(), msg)
			assert.Nil(t, att)
			check(err)

			var buf bytes.Buffer
			n, err := c.Attachments.Download(context.Background(), msg, &buf)
			assert.Zero(t, n)
			check(err)

			assert.Empty(t, m.requests(), "no request at all")
			assert.Zero(t, m.GetTotalCallCount())
		})
	}
}

// A temporary address in plain http to a host that is not loopback is refused
// before any request to it.
func TestAttachmentsDownloadRefusesPlainHTTP(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(`{"media_id":"med-6","url":"http://files.example-cdn.test/o/med-6","mime_type":"image/jpeg","file_size":1,"filename":"a"}`)))
	_, err := c.Attachments.Download(context.Background(), imageMsg, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing")
	require.Len(t, m.requests(), 1, "only the attachment exchange")
	assert.Equal(t, "/v1/attachments/med-6", m.requests()[0].Path)
}

func TestAttachmentsDownloadNilWriter(t *testing.T) {
	c, m := newMock(t, jsonResp(200, ok(attachmentResp)))
	_, err := c.Attachments.Download(context.Background(), imageMsg, nil)
	require.Error(t, err)
	assert.Empty(t, m.requests())
}
