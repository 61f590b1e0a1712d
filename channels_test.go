package convo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// A listChannels answer, plus a third account with a stated limit of 0, an unknown
// channel, an unknown status, an unknown message type and an unknown field.
const channelsResp = `{"items":[
 {"id":"3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00","channel":"chatapp","display_name":"Support BR","provider_identifier":"109876543210","status":"connected",
  "capabilities":{"message_types":["text","image","document","audio","video"],"max_text_length":4096,"max_caption_length":null,"session_window_hours":24,"requires_template_outside_window":true}},
 {"id":"8b2e4d6f-1a3c-4b5d-8e7f-9a0b1c2d3e4f","channel":"botapp","display_name":"Bot","provider_identifier":"@acme_bot","status":"connected",
  "capabilities":{"message_types":["text","image"],"max_text_length":4096,"max_caption_length":1024,"session_window_hours":null,"requires_template_outside_window":false}},
 {"id":"00000000-0000-4000-8000-000000000003","channel":"newapp","display_name":"New","provider_identifier":"x","status":"paused","since_version":"3.1",
  "capabilities":{"message_types":["text","poll"],"max_text_length":100,"max_caption_length":0,"session_window_hours":0,"requires_template_outside_window":true,"future":1}}]}`

func TestChannelsListWire(t *testing.T) {
	runWireCases(t, []wireCase{{
		name:   "list",
		call:   func(ctx context.Context, c *convo.Client) (any, error) { return c.Channels.List(ctx) },
		method: "GET", path: "/v1/channels",
		resp: ok(channelsResp),
		check: func(t *testing.T, got any) {
			accts := got.([]convo.ChannelAccount)
			require.Len(t, accts, 3)

			chat := accts[0]
			assert.Equal(t, "3f9a7c1e-0b4d-4e2a-9c61-5d8e2b7a1f00", chat.ID)
			assert.Equal(t, convo.ChannelChatapp, chat.Channel)
			assert.Equal(t, "Support BR", chat.DisplayName)
			assert.Equal(t, "109876543210", chat.ProviderIdentifier)
			assert.Equal(t, "connected", chat.Status)
			assert.Equal(t, []convo.MessageType{convo.MessageText, convo.MessageImage, convo.MessageDocument, convo.MessageAudio, convo.MessageVideo}, chat.Capabilities.MessageTypes)
			assert.Equal(t, 4096, chat.Capabilities.MaxTextLength)
			assert.Nil(t, chat.Capabilities.MaxCaptionLength, "null caption limit")
			require.NotNil(t, chat.Capabilities.SessionWindowHours)
			assert.Equal(t, 24, *chat.Capabilities.SessionWindowHours)
			assert.True(t, chat.Capabilities.RequiresTemplateOutsideWindow)

			bot := accts[1]
			assert.Equal(t, convo.ChannelBotapp, bot.Channel)
			require.NotNil(t, bot.Capabilities.MaxCaptionLength)
			assert.Equal(t, 1024, *bot.Capabilities.MaxCaptionLength)
			assert.Nil(t, bot.Capabilities.SessionWindowHours, "null service window")
			assert.False(t, bot.Capabilities.RequiresTemplateOutsideWindow)

			other := accts[2]
			assert.Equal(t, convo.Channel("newapp"), other.Channel, "unknown channel kept")
			assert.Equal(t, "paused", other.Status, "unknown status kept")
			assert.Contains(t, other.Capabilities.MessageTypes, convo.MessageType("poll"))
			require.NotNil(t, other.Capabilities.MaxCaptionLength, "0 is not null")
			assert.Equal(t, 0, *other.Capabilities.MaxCaptionLength)
			require.NotNil(t, other.Capabilities.SessionWindowHours, "0 is not null")
			assert.Equal(t, 0, *other.Capabilities.SessionWindowHours)
		},
	}, {
		name:   "empty",
		call:   func(ctx context.Context, c *convo.Client) (any, error) { return c.Channels.List(ctx) },
		method: "GET", path: "/v1/channels",
		resp:  ok(`{"items":[]}`),
		check: func(t *testing.T, got any) { assert.Empty(t, got.([]convo.ChannelAccount)) },
	}})
}

func TestChannelsListErrors(t *testing.T) {
	runErrorCases(t, "GET", "/channels", func(ctx context.Context, c *convo.Client) error {
		_, err := c.Channels.List(ctx)
		return err
	}, []apiErr{errUnauthorized, errRateLimited})
}

func TestChannelAccountHelpers(t *testing.T) {
	intp := func(n int) *int { return &n }
	chat := convo.ChannelAccount{Channel: convo.ChannelChatapp, Capabilities: convo.Capabilities{
		MessageTypes: []convo.MessageType{convo.MessageText, convo.MessageImage}, MaxTextLength: 5,
		SessionWindowHours: intp(24), RequiresTemplateOutsideWindow: true,
	}}
	bot := convo.ChannelAccount{Channel: convo.ChannelBotapp, Capabilities: convo.Capabilities{
		MaxTextLength: 4096, MaxCaptionLength: intp(3),
	}}
	zero := convo.ChannelAccount{Capabilities: convo.Capabilities{MaxCaptionLength: intp(0), SessionWindowHours: intp(0), RequiresTemplateOutsideWindow: true}}

	t.Run("Supports", func(t *testing.T) {
		assert.True(t, chat.Supports(convo.MessageImage))
		assert.False(t, chat.Supports(convo.MessageVideo))
		assert.False(t, bot.Supports(convo.MessageText))
	})
	t.Run("CheckText counts code points, not bytes nor graphemes", func(t *testing.T) {
		assert.NoError(t, chat.CheckText("ééééé"))                                     // 5 code points, 10 bytes
		assert.NoError(t, chat.CheckText("\U0001F44D\U0001F3FD\U0001F44D\U0001F3FDa")) // 2 graphemes + a: 5 code points
		err := chat.CheckText("e\u0301e\u0301e\u0301")                                 // 3 graphemes, 6 code points
		var le *convo.LengthError
		require.True(t, errors.As(err, &le))
		assert.Equal(t, convo.LengthError{Field: "text", Length: 6, Max: 5}, *le)
		assert.NoError(t, convo.ChannelAccount{}.CheckText(strings.Repeat("a", 10000)), "no limit stated")
	})
	t.Run("CheckCaption null vs 0", func(t *testing.T) {
		assert.NoError(t, chat.CheckCaption(strings.Repeat("a", 10000)), "null: no caption limit stated")
		assert.NoError(t, bot.CheckCaption("abc"))
		assert.Error(t, bot.CheckCaption("abcd"))
		assert.NoError(t, zero.CheckCaption(""))
		assert.Error(t, zero.CheckCaption("a"), "a stated limit of 0 is a limit")
	})
	t.Run("service window", func(t *testing.T) {
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		// Half-open: at exactly 24 hours the window has closed.
		assert.True(t, chat.InServiceWindow(now, now))
		assert.True(t, chat.InServiceWindow(now.Add(-24*time.Hour+time.Nanosecond), now))
		assert.False(t, chat.InServiceWindow(now.Add(-24*time.Hour), now))
		assert.False(t, chat.InServiceWindow(now.Add(-24*time.Hour), now.In(time.FixedZone("X", 5*3600))), "same instant, same answer")
		assert.True(t, chat.RequiresTemplate(now.Add(-24*time.Hour), now))
		assert.False(t, chat.InServiceWindow(time.Time{}, now), "never wrote")
		assert.True(t, bot.InServiceWindow(time.Time{}, now), "no service window")
		assert.False(t, zero.InServiceWindow(now, now), "a window of 0 hours is closed")
		assert.False(t, chat.RequiresTemplate(now.Add(-time.Hour), now))
		assert.True(t, chat.RequiresTemplate(now.Add(-25*time.Hour), now))
		assert.False(t, bot.RequiresTemplate(time.Time{}, now))
	})
}
