package fake

import (
	"time"

	convo "github.com/convoapi/convo-go"
)

// This file holds what a test can seed: the value types given to the
// seeding methods of [Company] (company.go) and the names of their fields' values.

// The seeding fields take the SDK's types (convo.Channel,
// convo.ConversationStatus, convo.Direction, convo.MessageType,
// convo.MessageStatus, convo.MediaStatus) and their constants.

// Sequence states, as [ContactState.Sequence] reports them (POST /chatapp/sequences/cancel).
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

// ChannelAccount seeds a channel account of the neutral contract (GET /channels).
type ChannelAccount struct {
	// ID is the account's id; default a new UUID.
	ID string
	// Channel is convo.ChannelChatapp or convo.ChannelBotapp. Webchat
	// widgets are added with [Company.AddWebchatWidget]; SMS accounts do not
	// exist.
	Channel convo.Channel
	// DisplayName is the human label; default derived from the channel.
	DisplayName string
	// ProviderIdentifier is the account's identifier at the provider; for
	// chatapp it is the phone_number_id of the contact endpoints.
	// Default: a generated one.
	ProviderIdentifier string
}

// Contact seeds a contact and its identity on one account (a contact is unique
// per account and normalized phone).
type Contact struct {
	// ID is the contact's id; default a new UUID.
	ID string
	// Account is the id of the channel account or webchat widget.
	Account string
	// Phone is normalized by the server's rule (digits only, 8 to 15 of them); required on chatapp,
	// optional elsewhere.
	Phone string
	// ChannelIdentifier is the native address on the channel; default the
	// normalized phone (chatapp) or a generated one.
	ChannelIdentifier string
	// Name of the contact; default the phone or the channel identifier.
	Name string
	// Email and Gender are optional ("" means null).
	Email, Gender string
	// Tags are tag names; each gets a company-wide id ([Company.TagID]).
	Tags []string
	// CustomFields are the contact's custom fields.
	CustomFields map[string]string
	// Sequence, when not "", is the name of a scheduled sequence (POST /chatapp/sequences/cancel).
	Sequence string
	// CreatedAt defaults to the clock's now.
	CreatedAt time.Time
}

// Conversation seeds a conversation of a contact on the contact's account.
type Conversation struct {
	// ID is the conversation's id; default a new UUID.
	ID string
	// Contact is the contact's id; the conversation's channel, account and
	// channel_identifier are the contact's.
	Contact string
	// Status is convo.ConversationOpen (default), ConversationResolved or
	// ConversationArchived.
	Status convo.ConversationStatus
	// AssignedTo names the responsible agent; "" means unassigned.
	AssignedTo string
	// CreatedAt defaults to the clock's now, or to the first message's time
	// when earlier.
	CreatedAt time.Time
	// UnreadCount, when set, overrides the derived unread_count (inbound
	// messages after the last human reply).
	UnreadCount *int
}

// Message seeds a message of a conversation (GET /conversations/{conversation_id}/messages).
type Message struct {
	// ID is the message id; default a new UUID.
	ID string
	// Sender is who wrote it. Default: SenderContact for inbound,
	// SenderAgent for outbound.
	Sender Sender
	// Direction is Inbound or Outbound; default derived from Sender
	// (contact: inbound; others: outbound).
	Direction convo.Direction
	// Type is the message type; default "text", or derived from the
	// media's MIME type (image, audio, video, else document).
	Type convo.MessageType
	// Text is the text or caption; "" means null.
	Text string
	// Status is the delivery status; default null for inbound,
	// "delivered" for outbound.
	Status convo.MessageStatus
	// At is when the message was sent; default the clock's now.
	At time.Time
	// DeliveredAt and ReadAt default from Status: delivered and read set
	// delivered_at one second after At, read sets read_at a minute after.
	DeliveredAt, ReadAt *time.Time
	// FailureReason is failure_reason ("" means null).
	FailureReason string
	// Media, for media types; nil on a media type means no_reference.
	Media *Media
	// Reactions to this message.
	Reactions []Reaction
}

// Media seeds the media block of a message (GET /conversations/{conversation_id}/messages).
type Media struct {
	// Status is available (default when Data is set), unknown or
	// no_reference.
	Status convo.MediaStatus
	// MimeType, Filename ("" means null).
	MimeType, Filename string
	// Data is the file's content, served by the attachment URL when
	// available. When empty, Size bytes of filler are served.
	Data []byte
	// Size is file_size when Data is empty (0 means null, except for
	// available media which get a small default).
	Size int64
}

// Reaction seeds a reaction.
type Reaction struct {
	// Emoji is the reaction itself.
	Emoji string
	// Direction is inbound (the contact reacted, default) or outbound.
	Direction convo.Direction
	// At defaults to the message's time plus one minute.
	At time.Time
}
