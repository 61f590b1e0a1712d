package convo

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"time"
)

// Direction says who sent a message.
type Direction string

// Message directions (OpenAPI Message).
const (
	DirectionInbound  Direction = "inbound"
	DirectionOutbound Direction = "outbound"
)

// MessageType is a message's type. Values the SDK does not know are kept as
// they are, never rejected.
type MessageType string

// Known message types. The spec does not list them; the SDK keeps values it
// does not know.
const (
	MessageText        MessageType = "text"
	MessageImage       MessageType = "image"
	MessageDocument    MessageType = "document"
	MessageAudio       MessageType = "audio"
	MessageVideo       MessageType = "video"
	MessageSticker     MessageType = "sticker"
	MessageLocation    MessageType = "location"
	MessageContact     MessageType = "contact"
	MessageSystem      MessageType = "system"
	MessageUnsupported MessageType = "unsupported"
)

// MessageStatus is a delivery status; empty when the service sent null (an
// inbound message). Unknown values are kept.
type MessageStatus string

// Known delivery statuses; an inbound message has none (the spec's null, an
// empty Status). The spec does not list them; the SDK keeps values it does not
// know.
const (
	StatusQueued    MessageStatus = "queued"
	StatusSent      MessageStatus = "sent"
	StatusDelivered MessageStatus = "delivered"
	StatusRead      MessageStatus = "read"
	StatusFailed    MessageStatus = "failed"
)

// MediaStatus says what is known of a message's file (OpenAPI Message).
type MediaStatus string

// The three media statuses.
const (
	// MediaAvailable: the file is registered and can be fetched.
	MediaAvailable MediaStatus = "available"
	// MediaUnknown: received before internal registration, or not kept (most
	// old history); no file can be fetched.
	MediaUnknown MediaStatus = "unknown"
	// MediaNoReference: the message carries no media information.
	MediaNoReference MediaStatus = "no_reference"
)

// Message is one item of a conversation's timeline (OpenAPI Message).
type Message struct {
	// MessageID identifies the message.
	MessageID string `json:"message_id"`
	// Direction is inbound (from the contact) or outbound.
	Direction Direction `json:"direction"`
	// Type is explicit on system and unsupported messages too (OpenAPI Message).
	Type MessageType `json:"type"`
	// Status is empty when null.
	Status MessageStatus `json:"status"`
	// Text is the text or the caption; nil when the type carries no text.
	Text *string `json:"text"`
	// Media is present on every media message (OpenAPI Message); nil otherwise.
	Media *Media `json:"media"`
	// Reactions to this message. A reaction is never a timeline item.
	Reactions []Reaction `json:"reactions"`
	// SentAt is nil when the service sent null.
	SentAt *time.Time `json:"sent_at"`
	// DeliveredAt is nil until the message is delivered.
	DeliveredAt *time.Time `json:"delivered_at"`
	// ReadAt is nil until the message is read.
	ReadAt *time.Time `json:"read_at"`
	// FailureReason says why a failed message failed; nil otherwise.
	FailureReason *string `json:"failure_reason"`
	// Raw is the service's internal form of the content, as sent (nil or the
	// JSON null when absent). It is OUTSIDE the contract and may change without
	// notice, even within a version (docs/behaviour.md, Forward compatibility): nothing may depend on its
	// shape. It is kept for debugging only.
	Raw json.RawMessage `json:"raw"`
}

// TextOrEmpty returns the text or caption, or "" when there is none.
func (m *Message) TextOrEmpty() string {
	if m.Text == nil {
		return ""
	}
	return *m.Text
}

// Media is the media block of a message (OpenAPI Message). A message never carries
// a URL: exchange MediaID at the attachment endpoint (Attachments.ForMessage).
type Media struct {
	// MediaID is empty when the service sent null: no file can be retrieved,
	// which is a normal case, not an error (OpenAPI Message).
	MediaID string `json:"media_id"`
	// MediaStatus says what happened to the file: available, unknown or
	// no_reference; unknown values are kept.
	MediaStatus MediaStatus `json:"media_status"`
	// MimeType is the file's media type; empty when the service sent null.
	MimeType string `json:"mime_type"`
	// FileSize in bytes; nil when unknown.
	FileSize *int64 `json:"file_size"`
	// Filename is the file's name; empty when the service sent null.
	Filename string `json:"filename"`
}

// Available reports whether the file can be fetched.
func (m *Media) Available() bool {
	return m != nil && m.MediaStatus == MediaAvailable && m.MediaID != ""
}

// Reaction is a reaction to a message. It appears only inside the message
// reacted to, never as an item of the timeline.
type Reaction struct {
	// Emoji is the reaction itself.
	Emoji string `json:"emoji"`
	// Direction says who reacted: the contact (inbound) or the company.
	Direction Direction `json:"direction"`
	// ReactedAt is when the reaction was made.
	ReactedAt time.Time `json:"reacted_at"`
}

// Window is the read window the service applied (OpenAPI Window).
type Window struct {
	// RecentWindowDays is 30: without Since, only that many days are read.
	RecentWindowDays int `json:"recent_window_days"`
	// Since is the start of the window effectively applied.
	Since time.Time `json:"since"`
}

// MessagePage is one page of a conversation's messages, newest first: the
// generic Page of messages (Items, NextCursor, HasMore) and the read window
// the service applied.
type MessagePage struct {
	Page[Message]
	// Window is the read window the service applied (OpenAPI Window).
	Window Window `json:"window"`
}

// ListMessagesParams filters a message read (OpenAPI listMessages). The zero value reads
// the last 30 days, 50 messages a page.
type ListMessagesParams struct {
	// Since reaches beyond the 30-day recent window. Sent in UTC with
	// millisecond precision; a finer time is rounded up to the next
	// millisecond, which selects exactly the messages a full-precision
	// comparison would (the service's timestamps are whole milliseconds).
	Since time.Time `url:"since,omitempty" layout:"2006-01-02T15:04:05.000Z"`
	// Limit is the page size: 1 to 100, default 50.
	Limit int `url:"limit,omitempty"`
	// Cursor is the NextCursor of the previous page.
	Cursor string `url:"cursor,omitempty"`
}

// MessagesService reads conversation messages (OpenAPI listMessages).
type MessagesService struct{ c *Client }

// ErrEmptyID reports a required identifier left empty; no request is sent.
var ErrEmptyID = errors.New("convo: empty identifier")

// requireID fails before any request when a required identifier is empty.
func requireID(op, name, v string) error {
	if v == "" {
		return emptyIDError{op, name}
	}
	return nil
}

// emptyIDError names the call and the identifier; errors.Is(err,
// ErrEmptyID) holds.
type emptyIDError struct{ op, name string }

func (e emptyIDError) Error() string        { return "convo: " + e.op + ": " + e.name + " is required" }
func (e emptyIDError) Is(target error) bool { return target == ErrEmptyID }

// List reads one page of a conversation's messages, newest first. Without
// params.Since the read covers the last 30 days; the page's Window says what
// was applied. An unknown conversation is ErrConversationNotFound.
func (s *MessagesService) List(ctx context.Context, conversationID string, params *ListMessagesParams, opts ...Option) (*MessagePage, error) {
	if err := requireID("Messages.List", "conversation id", conversationID); err != nil {
		return nil, err
	}
	var p ListMessagesParams
	if params != nil {
		p = *params
	}
	p.Since = utc(p.Since)
	page := new(MessagePage)
	if err := s.c.call(ctx, "GET", "/conversations/"+pathSegment(conversationID)+"/messages", &p, nil, page, opts); err != nil {
		return nil, err
	}
	return page, nil
}

// Pages iterates over the pages of a conversation's messages, newest first,
// fetching each page as the loop advances. It starts at params.Cursor when
// set: to resume a listing cut by an error, save the NextCursor of the last
// page you finished and pass it there. It stops at the first error (yielded
// once, with a nil page), holds one page at a time, and can be ranged over
// again (each range starts afresh). With WithReadAhead among opts, the next
// page is fetched while the loop body works on the current one.
func (s *MessagesService) Pages(ctx context.Context, conversationID string, params *ListMessagesParams, opts ...Option) iter.Seq2[*MessagePage, error] {
	var base ListMessagesParams
	if params != nil {
		base = *params
	}
	// Each fetch works on its own copy (see ConversationsService.Pages).
	return pages(ctx, base.Cursor, opts, func(ctx context.Context, cursor string, opts []Option) (*MessagePage, error) {
		p := base
		p.Cursor = cursor
		return s.List(ctx, conversationID, &p, opts...)
	})
}

// All iterates over the messages of a conversation, newest first. Like List,
// it reads only the last 30 days unless params.Since is set: to read a
// conversation's whole history, set Since to a time before its first message
// (its CreatedAt). It yields the items of Pages, under the same rules (resume
// with params.Cursor, first error yielded once, one page held, WithReadAhead
// honoured). To know where to resume after an error, range over Pages instead
// and keep each page's NextCursor.
func (s *MessagesService) All(ctx context.Context, conversationID string, params *ListMessagesParams, opts ...Option) iter.Seq2[Message, error] {
	return items(s.Pages(ctx, conversationID, params, opts...), func(p *MessagePage) []Message { return p.Items })
}
