package convo

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// Channel names a messaging channel (brand names are replaced by neutral
// words).
type Channel string

// The channels of the spec. SMS is one-way: it has no channel account and no
// conversation, and appears only as a key of the anomaly ceilings.
const (
	ChannelChatapp Channel = "chatapp"
	ChannelBotapp  Channel = "botapp"
	ChannelWebchat Channel = "webchat"
	ChannelSMS     Channel = "sms"
)

// ChannelAccount is one of the company's accounts on a channel (OpenAPI ChannelAccount).
type ChannelAccount struct {
	// ID is the value sent as channel_id when sending and filtering.
	ID string `json:"id"`
	// Channel is chatapp or botapp.
	Channel Channel `json:"channel"`
	// DisplayName is the account's human label.
	DisplayName string `json:"display_name"`
	// ProviderIdentifier is the account's identifier at the channel provider;
	// for chatapp accounts it is the phone_number_id of the contact calls.
	ProviderIdentifier string `json:"provider_identifier"`
	// Status is "connected", the only value seen; other values are kept.
	Status string `json:"status"`
	// Capabilities is what the server checks to accept or refuse a send.
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities of a channel account (OpenAPI ChannelAccount). The nullable limits are
// pointers: nil means the spec's null (no limit stated, no service window),
// which is not the same as 0.
type Capabilities struct {
	// MessageTypes lists the message types the account can send.
	MessageTypes []MessageType `json:"message_types"`
	// MaxTextLength bounds a text, in characters (4096 on both channels seen).
	MaxTextLength int `json:"max_text_length"`
	// MaxCaptionLength bounds a caption; nil means no caption limit stated.
	MaxCaptionLength *int `json:"max_caption_length"`
	// SessionWindowHours is the service window; nil when the channel has none.
	SessionWindowHours *int `json:"session_window_hours"`
	// RequiresTemplateOutsideWindow: outside the window only templates go out.
	RequiresTemplateOutsideWindow bool `json:"requires_template_outside_window"`
}

// Supports reports whether the account can send messages of type t.
func (a ChannelAccount) Supports(t MessageType) bool {
	return slices.Contains(a.Capabilities.MessageTypes, t)
}

// LengthError reports a text or caption longer than the account allows.
type LengthError struct {
	// Field is "text" or "caption".
	Field string
	// Length is the length found, in Unicode code points.
	Length int
	// Max is the account's limit, in Unicode code points.
	Max int
}

// Error says which field is too long and by how much.
func (e *LengthError) Error() string {
	return fmt.Sprintf("convo: %s has %d characters, the channel account allows %d", e.Field, e.Length, e.Max)
}

// CheckText checks s against max_text_length before a send. Length is counted
// in Unicode code points (what the channels call characters), neither in bytes
// nor in grapheme clusters (user-perceived characters): a precomposed "é" is
// one character, an "e" followed by a combining accent is two, and an emoji
// made of several code points (a skin tone, a ZWJ family) counts each of them.
//
// A max_text_length of 0 or less (absent from the answer) states no limit.
func (a ChannelAccount) CheckText(s string) error {
	if a.Capabilities.MaxTextLength <= 0 {
		return nil // no limit stated
	}
	return checkLength("text", s, a.Capabilities.MaxTextLength)
}

// CheckCaption checks a media caption against max_caption_length, counted like
// CheckText. A nil limit (the spec's null) means none is stated, and every
// caption passes; a stated limit of 0 is a limit, not the absence of one (it
// lets only the empty caption through).
func (a ChannelAccount) CheckCaption(s string) error {
	if a.Capabilities.MaxCaptionLength == nil || *a.Capabilities.MaxCaptionLength < 0 {
		return nil
	}
	return checkLength("caption", s, *a.Capabilities.MaxCaptionLength)
}

func checkLength(field, s string, max int) error {
	if n := utf8.RuneCountInString(s); n > max {
		return &LengthError{Field: field, Length: n, Max: max}
	}
	return nil
}

// InServiceWindow reports whether a free-form message may go out at now, given
// the contact's last inbound message. A channel without a service window is
// always in it; a contact who never wrote (zero lastInboundAt) never is.
//
// The window is half-open: it has closed at exactly session_window_hours after
// lastInboundAt (24h00m00s on chatapp is outside). Erring this way at the
// boundary costs at most a template where a free-form message would have done,
// never a refused send.
func (a ChannelAccount) InServiceWindow(lastInboundAt, now time.Time) bool {
	if a.Capabilities.SessionWindowHours == nil {
		return true
	}
	if lastInboundAt.IsZero() {
		return false
	}
	window := time.Duration(*a.Capabilities.SessionWindowHours) * time.Hour
	return now.Sub(lastInboundAt) < window
}

// RequiresTemplate reports whether a send at now must use a template: the
// channel requires one outside its window and the window has closed.
func (a ChannelAccount) RequiresTemplate(lastInboundAt, now time.Time) bool {
	return a.Capabilities.RequiresTemplateOutsideWindow && !a.InServiceWindow(lastInboundAt, now)
}

// ChannelsService lists channel accounts (OpenAPI listChannels).
type ChannelsService struct{ c *Client }

// List returns the company's channel accounts that take part in the neutral
// contract, each with its capabilities (OpenAPI listChannels). SMS never appears.
func (s *ChannelsService) List(ctx context.Context, opts ...Option) ([]ChannelAccount, error) {
	var out struct {
		Items []ChannelAccount `json:"items"`
	}
	if err := s.c.call(ctx, "GET", "/channels", nil, nil, &out, opts); err != nil {
		return nil, err
	}
	return out.Items, nil
}
