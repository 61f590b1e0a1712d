package fake

import (
	"time"

	convo "github.com/convoapi/convo-go"
)

// This file holds what a test can seed: one type per entity, used alike by
// the seeding methods of [Company] (company.go) and the seed document
// ([Seed], [LoadSeed]; the JSON keys are those of SEED.md), and returned by
// the inspection getters ([Server.Contact], [Server.Conversation],
// [Server.Message], [Company.Contacts]) with the fields the server sets.
// The fields take the SDK's types (convo.Channel, convo.ConversationStatus,
// convo.Direction, convo.MessageType, convo.MessageStatus,
// convo.MediaStatus) and their constants.
//
// A time is given as an instant (CreatedAt, At, ReactedAt) or as a duration
// before the clock's now (CreatedAgo, Ago: "90m", "3h", "2d4h"), not both;
// neither means now.

// Sequence states, as [Contact.SequenceStatus] reports them (POST /chatapp/sequences/cancel).
const (
	SequenceScheduled = "scheduled"
	SequenceCanceled  = "canceled"
)

// Sender says who wrote a message. It never appears in the message
// read except inside raw, but it decides the anomaly buckets (docs/behaviour.md, "Anomaly report").
type Sender string

// Sender kinds.
const (
	// SenderContact: the contact wrote it (inbound).
	SenderContact Sender = "contact"
	// SenderAgent: a person in the vendor's panel (human).
	SenderAgent Sender = "agent"
	// SenderPhone: the phone's own chat application (human).
	SenderPhone Sender = "phone"
	// SenderAutomation: the caller's integration, a bot, a sequence.
	SenderAutomation Sender = "automation"
	// SenderSystem: the platform itself (system messages); it neither makes
	// a conversation "spoken to" nor "answered".
	SenderSystem Sender = "system"
)

// ChannelAccount is a channel account of the neutral contract (GET
// /channels) or, in a seed document with channel "webchat", a webchat widget.
type ChannelAccount struct {
	// Ref names the account within a seed document, for contacts' channel.
	Ref string `json:"ref,omitempty"`
	// ID is the account's id; default a new UUID.
	ID string `json:"id,omitempty"`
	// Channel is convo.ChannelChatapp or convo.ChannelBotapp. In Go,
	// webchat widgets are added with [Company.AddWebchatWidget]; SMS
	// accounts do not exist.
	Channel convo.Channel `json:"channel"`
	// DisplayName is the human label; default derived from the channel.
	DisplayName string `json:"display_name,omitempty"`
	// ProviderIdentifier is the account's identifier at the provider; for
	// chatapp it is the phone_number_id of the contact endpoints.
	// Default: a generated one.
	ProviderIdentifier string `json:"provider_identifier,omitempty"`
}

// Contact is a contact and its identity on one account (a contact is unique
// per account and normalized phone).
type Contact struct {
	// Ref names the contact within a seed document, for conversations' contact.
	Ref string `json:"ref,omitempty"`
	// ID is the contact's id; default a new UUID.
	ID string `json:"id,omitempty"`
	// ChannelAccountID is the id of the channel account or webchat widget
	// (in a seed document, also the ref of one of its channels).
	ChannelAccountID string `json:"channel"`
	// PhoneNumber is normalized by the server's rule (8 to 15 digits, which
	// spaces and + - ( ) . may separate; anything else is refused);
	// required on chatapp, optional elsewhere.
	PhoneNumber string `json:"phone,omitempty"`
	// ChannelIdentifier is the native address on the channel; default the
	// normalized phone (chatapp) or a generated one.
	ChannelIdentifier string `json:"channel_identifier,omitempty"`
	// Name of the contact; default the phone or the channel identifier.
	Name string `json:"name,omitempty"`
	// Email is optional ("" means null).
	Email string `json:"email,omitempty"`
	// Gender is optional ("" means null).
	Gender string `json:"gender,omitempty"`
	// Tags are tag names, in the order they were added; each gets a
	// company-wide id ([Company.TagID]).
	Tags []string `json:"tags,omitempty"`
	// CustomFields are the contact's custom fields.
	CustomFields map[string]string `json:"custom_fields,omitempty"`
	// SequenceName, when not "", is the name of a scheduled sequence (POST
	// /chatapp/sequences/cancel).
	SequenceName string `json:"sequence,omitempty"`
	// CreatedAt is when the contact was created; default now.
	CreatedAt time.Time `json:"created_at,omitzero"`
	// CreatedAgo is CreatedAt as a duration before now.
	CreatedAgo string `json:"created_ago,omitempty"`

	// Set by the server when inspecting; ignored when seeding.

	// CompanyID is the company (tenant) it belongs to.
	CompanyID string `json:"company_id,omitempty"`
	// TagIDs are the ids of Tags. Seeding takes them when given (one per
	// tag, as [Server.ExportSeed] writes them), else makes new ones.
	TagIDs []string `json:"tag_ids,omitempty"`
	// SequenceStatus is "", SequenceScheduled or SequenceCanceled. Seeding
	// reads only SequenceCanceled, which keeps SequenceName canceled.
	SequenceStatus string `json:"sequence_status,omitempty"`
	// LastInteractionAt is its latest message's time, else CreatedAt.
	LastInteractionAt time.Time `json:"last_interaction_at,omitzero"`
}

// Conversation is a conversation of a contact on the contact's account,
// with its messages.
type Conversation struct {
	// Ref names the conversation within a seed document (for readability only).
	Ref string `json:"ref,omitempty"`
	// ID is the conversation's id; default a new UUID.
	ID string `json:"id,omitempty"`
	// ContactID is the contact's id (in a seed document, also the ref of
	// one of its contacts); the conversation's channel, account and
	// channel_identifier are the contact's.
	ContactID string `json:"contact"`
	// Status is convo.ConversationOpen (default), ConversationResolved or
	// ConversationArchived.
	Status convo.ConversationStatus `json:"status,omitempty"`
	// AssignedTo names the responsible agent; "" means unassigned.
	AssignedTo string `json:"assigned_to,omitempty"`
	// UnreadCount, when set, overrides the derived unread_count (inbound
	// messages after the last human reply). Inspection always sets it.
	UnreadCount *int `json:"unread_count,omitempty"`
	// CreatedAt is when it was created; default now, or the first
	// message's time when earlier.
	CreatedAt time.Time `json:"created_at,omitzero"`
	// CreatedAgo is CreatedAt as a duration before now.
	CreatedAgo string `json:"created_ago,omitempty"`
	// Messages are added with the conversation, in any order. Inspection
	// leaves them out (see MessageCount).
	Messages []Message `json:"messages,omitempty"`

	// Set by the server when inspecting; ignored when seeding.

	// CompanyID is the company (tenant).
	CompanyID string `json:"company_id,omitempty"`
	// ChannelAccountID is the contact's account or widget.
	ChannelAccountID string `json:"channel_account_id,omitempty"`
	// Channel is chatapp, botapp or webchat.
	Channel convo.Channel `json:"channel,omitempty"`
	// ChannelIdentifier is the contact's native address.
	ChannelIdentifier string `json:"channel_identifier,omitempty"`
	// LastInboundAt is zero when the contact never wrote.
	LastInboundAt time.Time `json:"last_inbound_at,omitzero"`
	// LastMessageAt is zero when there is no message.
	LastMessageAt time.Time `json:"last_message_at,omitzero"`
	// MessageCount is the number of messages stored (never shown on the
	// wire; docs/behaviour.md, "Messages").
	MessageCount int `json:"message_count,omitempty"`
}

// Message is a message of a conversation (GET /conversations/{conversation_id}/messages).
type Message struct {
	// MessageID is the message_id; default a new UUID.
	MessageID string `json:"id,omitempty"`
	// Sender is who wrote it. Default: SenderContact for inbound,
	// SenderAgent for outbound.
	Sender Sender `json:"sender,omitempty"`
	// Direction is inbound or outbound; default derived from Sender
	// (contact: inbound; others: outbound).
	Direction convo.Direction `json:"direction,omitempty"`
	// Type is the message type; default "text", or derived from the
	// media's MIME type (image, audio, video, else document).
	Type convo.MessageType `json:"type,omitempty"`
	// Text is the text or caption; "" means null.
	Text string `json:"text,omitempty"`
	// Status is the delivery status; default null for inbound,
	// "delivered" for outbound.
	Status convo.MessageStatus `json:"status,omitempty"`
	// At is when the message was sent; default now.
	At time.Time `json:"at,omitzero"`
	// Ago is At as a duration before now.
	Ago string `json:"ago,omitempty"`
	// DeliveredAt defaults from Status: delivered and read set it one
	// second after At.
	DeliveredAt *time.Time `json:"delivered_at,omitempty"`
	// ReadAt defaults from Status: read sets it a minute after At.
	ReadAt *time.Time `json:"read_at,omitempty"`
	// FailureReason is failure_reason ("" means null).
	FailureReason string `json:"failure_reason,omitempty"`
	// Media, for media types; nil on a media type means no_reference.
	Media *Media `json:"media,omitempty"`
	// Reactions to this message.
	Reactions []Reaction `json:"reactions,omitempty"`

	// ConversationID is set by the server when inspecting; ignored when seeding.
	ConversationID string `json:"conversation_id,omitempty"`
}

// Media is the media block of a message. The content of an available file
// is Data (base64 in a seed document), or Content (text), or FileSize bytes
// of filler.
type Media struct {
	// MediaStatus is available (default when there is content), unknown or
	// no_reference.
	MediaStatus convo.MediaStatus `json:"status,omitempty"`
	// MimeType is the file's MIME type ("" means null).
	MimeType string `json:"mime_type,omitempty"`
	// Filename is the file's name ("" means null).
	Filename string `json:"filename,omitempty"`
	// FileSize is file_size when there is no content (0 means null, except
	// for available media which get a small default).
	FileSize int64 `json:"size,omitempty"`
	// Data is the file's content, served by the attachment URL when
	// available. Inspection leaves it out.
	Data []byte `json:"data_base64,omitempty"`
	// Content is the file's content as text, when Data is empty.
	Content string `json:"content,omitempty"`

	// MediaID is set by the server when inspecting ("" unless available).
	// Seeding an available file takes it when given (as [Server.ExportSeed]
	// writes it), else makes a new one.
	MediaID string `json:"media_id,omitempty"`
}

// Reaction is a reaction to a message.
type Reaction struct {
	// Emoji is the reaction itself.
	Emoji string `json:"emoji"`
	// Direction is inbound (the contact reacted, default) or outbound.
	Direction convo.Direction `json:"direction,omitempty"`
	// ReactedAt is when; default the message's time plus one minute.
	ReactedAt time.Time `json:"at,omitzero"`
	// Ago is ReactedAt as a duration before now.
	Ago string `json:"ago,omitempty"`
}
