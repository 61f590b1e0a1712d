package convo

import (
	"context"
	"encoding/json"
	"iter"
	"time"
)

// ConversationStatus is a conversation's status, and a filter value (OpenAPI Conversation).
type ConversationStatus string

// Conversation statuses. StatusAll is only a filter value: every status.
const (
	ConversationOpen     ConversationStatus = "open"
	ConversationResolved ConversationStatus = "resolved"
	ConversationArchived ConversationStatus = "archived"
	ConversationAll      ConversationStatus = "all"
)

// Conversation is an item of the conversation list. The spec does not
// show the item's shape, so every field the SDK does not know is kept in
// Extra, for forward compatibility.
type Conversation struct {
	// ID identifies the conversation: the conversationID of Messages.List.
	ID string `json:"id"`
	// ContactID identifies the contact.
	ContactID string `json:"contact_id"`
	// Channel is chatapp, botapp or webchat; unknown values are kept.
	Channel Channel `json:"channel"`
	// ChannelAccountID is the channel account; on webchat, the company's
	// webchat widget (which never appears in Channels.List).
	ChannelAccountID string `json:"channel_account_id"`
	// ChannelIdentifier is the contact's native address on the channel.
	ChannelIdentifier string `json:"channel_identifier"`
	// Status is open, resolved or archived; unknown values are kept.
	Status ConversationStatus `json:"status"`
	// Assigned reports whether a responsible agent is set.
	Assigned bool `json:"assigned"`
	// UnreadCount is the number of unread inbound messages.
	UnreadCount int `json:"unread_count"`
	// LastInboundAt is nil when the contact never wrote.
	LastInboundAt *time.Time `json:"last_inbound_at"`
	// LastMessageAt is nil when the conversation has no message.
	LastMessageAt *time.Time `json:"last_message_at"`
	// CreatedAt is when the conversation was created.
	CreatedAt time.Time `json:"created_at"`
	// Extra holds the fields of the item that the SDK does not know, as sent.
	Extra map[string]json.RawMessage `json:"-"`
}

// knownConversationFields are the keys decoded into Conversation's fields.
var knownConversationFields = []string{"id", "contact_id", "channel", "channel_account_id",
	"channel_identifier", "status", "assigned", "unread_count", "last_inbound_at",
	"last_message_at", "created_at"}

// UnmarshalJSON decodes the known fields and keeps the others in Extra.
func (c *Conversation) UnmarshalJSON(b []byte) error {
	type plain Conversation
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range knownConversationFields {
		delete(all, k)
	}
	c.Extra = nil
	if len(all) > 0 {
		c.Extra = all
	}
	return nil
}

// MarshalJSON writes the known fields and Extra back together. Like any
// MarshalJSON, it is promoted to a struct that embeds Conversation and would
// encode that struct as a bare conversation: name the field instead.
func (c Conversation) MarshalJSON() ([]byte, error) {
	type plain Conversation
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	all := make(map[string]json.RawMessage, len(c.Extra)+len(knownConversationFields))
	for k, v := range c.Extra {
		all[k] = v
	}
	var known map[string]json.RawMessage
	if err := json.Unmarshal(b, &known); err != nil {
		return nil, err
	}
	for k, v := range known {
		all[k] = v
	}
	return json.Marshal(all)
}

// Bool returns a pointer to b, for optional boolean filters such as
// ListConversationsParams.Assigned.
func Bool(b bool) *bool { return &b }

// ListConversationsParams filters the conversation list (OpenAPI listConversations). The zero
// value lists open conversations, 25 a page.
type ListConversationsParams struct {
	// Channel is chatapp, botapp or webchat.
	Channel Channel `url:"channel,omitempty"`
	// ChannelID is a channel account id, from Channels.List.
	ChannelID string `url:"channel_id,omitempty"`
	// Status defaults to open on the server; ConversationAll selects every status.
	Status ConversationStatus `url:"status,omitempty"`
	// Assigned filters with (true) or without (false) a responsible agent;
	// nil does not filter. Use convo.Bool.
	Assigned *bool `url:"assigned,omitempty"`
	// Since bounds last_message_at from below, inclusive. Sent in UTC
	// with millisecond precision; a finer time is rounded up to the next
	// millisecond, which selects exactly the conversations a full-precision
	// comparison would (the service's timestamps are whole milliseconds).
	Since time.Time `url:"since,omitempty" layout:"2006-01-02T15:04:05.000Z"`
	// Until bounds last_message_at from above, exclusive; sent like Since.
	Until time.Time `url:"until,omitempty" layout:"2006-01-02T15:04:05.000Z"`
	// ChannelIdentifier is the contact's native address on the channel.
	ChannelIdentifier string `url:"channel_identifier,omitempty"`
	// Phone matches every conversation of every contact with that phone, on
	// every channel account — hence ambiguous by construction.
	Phone string `url:"phone,omitempty"`
	// Limit is the page size: 1 to 100, default 25.
	Limit int `url:"limit,omitempty"`
	// Cursor is the NextCursor of the previous page.
	Cursor string `url:"cursor,omitempty"`
}

// ConversationsService lists conversations (OpenAPI listConversations).
type ConversationsService struct{ c *Client }

// List returns one page of conversations matching params (nil: defaults).
//
// Conversations come most recent first: by last_message_at (created_at
// for a conversation without messages), ties by id, highest first. The
// service does not state this order; it is the one this client's fake
// keeps, and code that needs an order should sort. A page reached with a
// cursor keeps the filters of the first page (filters sent with a cursor
// are checked, then ignored) and lists the conversations as they stood
// when the first page was read.
func (s *ConversationsService) List(ctx context.Context, params *ListConversationsParams, opts ...Option) (*Page[Conversation], error) {
	var p ListConversationsParams
	if params != nil {
		p = *params
	}
	p.Since, p.Until = utc(p.Since), utc(p.Until)
	page := new(Page[Conversation])
	if err := s.c.call(ctx, "GET", "/conversations", &p, nil, page, opts); err != nil {
		return nil, err
	}
	return page, nil
}

// Pages iterates over the pages of conversations matching params, fetching
// each page as the loop advances; see MessagesService.Pages for the rules
// (resume from params.Cursor, first error yielded once, WithReadAhead).
func (s *ConversationsService) Pages(ctx context.Context, params *ListConversationsParams, opts ...Option) iter.Seq2[*Page[Conversation], error] {
	var base ListConversationsParams
	if params != nil {
		base = *params
	}
	// Each fetch works on its own copy: the sequence can be ranged over again,
	// or by two goroutines at once, and the caller's params are never touched.
	return pages(ctx, base.Cursor, opts, func(ctx context.Context, cursor string, opts []Option) (*Page[Conversation], error) {
		p := base
		p.Cursor = cursor
		return s.List(ctx, &p, opts...)
	})
}

// All iterates over every conversation matching params: the items of Pages,
// under the same rules.
func (s *ConversationsService) All(ctx context.Context, params *ListConversationsParams, opts ...Option) iter.Seq2[Conversation, error] {
	return items(s.Pages(ctx, params, opts...), func(p *Page[Conversation]) []Conversation { return p.Items })
}
