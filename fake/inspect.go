package fake

import (
	"maps"
	"sort"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// objectIndex maps every seeded id (account, contact, conversation,
// message) to its object, for the state getters and id uniqueness.
type objectIndex map[string]any

// resetLocked empties the state. The default company keeps its id and key,
// so [Company] handles taken before stay valid.
func (s *Server) resetLocked() {
	key := s.cfg.apiKey
	id := ""
	if s.defaultCo != nil {
		key, id = s.defaultCo.apiKey, s.defaultCo.id
	}
	co := newCompany(key)
	if id != "" {
		co.id = id
	}
	s.companies = []*company{co}
	s.byID = map[string]*company{co.id: co}
	s.defaultCo = co
	s.files = map[string]*fileGrant{}
	s.index = objectIndex{}
}

// Reset puts the server back as it started, as POST /_fake/reset does in
// cmd/convofake: the data of [WithSeed] (none without it), the start API key
// of the default company, a manual clock set back to its reading at start
// (a real clock is left alone), no fault rules, an empty journal and fresh
// rate limits. Data added or loaded since, and other companies, are gone.
// [Company] handles of the default company stay valid.
func (s *Server) Reset() {
	s.Clear()
	s.mu.Lock()
	s.defaultCo.apiKey = s.cfg.apiKey
	s.defaultCo.keyHash = newCompany(s.cfg.apiKey).keyHash
	s.mu.Unlock()
	if s.clock.Manual() {
		s.clock.Set(s.startNow)
	}
	if s.cfg.seed != nil {
		// It loaded at start, so it loads again; if it did not, the server
		// started empty and stays so.
		_ = s.Load(s.cfg.seed)
	}
}

// Clear empties the server: every company but the default one goes, the
// default company loses its channels, contacts and conversations (its id and
// current key stay). The journal, fault rules and rate-limit buckets are
// cleared too; the clock is left alone. Use [Server.Reset] to go back to the
// start data instead.
func (s *Server) Clear() {
	s.mu.Lock()
	s.resetLocked()
	s.mu.Unlock()
	s.ClearRequests()
	s.ClearFaults()
	s.limiter.reset()
}

// ContactState is a snapshot of a contact, for assertions.
type ContactState struct {
	ID                string            // contact id
	CompanyID         string            // the company (tenant) it belongs to
	AccountID         string            // the account or widget of its identity
	Channel           convo.Channel     // that account's channel
	Phone             string            // normalized phone ("" for some botapp/webchat contacts)
	ChannelIdentifier string            // native address on the channel
	Name              string            // name
	Email, Gender     string            // "" when null
	Tags              []string          // tag names, in the order they were added
	TagIDs            []string          // the matching tag ids
	CustomFields      map[string]string // a copy of the custom fields
	Sequence          string            // "", SequenceScheduled or SequenceCanceled
	SequenceName      string            // name of the (last) scheduled sequence
	CreatedAt         time.Time         // creation time
	LastInteractionAt time.Time         // latest message of its conversations, else CreatedAt
}

func (ct *contact) state() ContactState {
	st := ContactState{
		ID: ct.id, CompanyID: ct.account.company.id, AccountID: ct.account.id, Channel: convo.Channel(ct.account.channel),
		Phone: ct.phone, ChannelIdentifier: ct.ident, Name: ct.name,
		CustomFields: maps.Clone(ct.customFields), Sequence: ct.sequence, SequenceName: ct.sequenceName,
		CreatedAt: ct.createdAt, LastInteractionAt: ct.lastInteraction(),
	}
	if ct.email != nil {
		st.Email = *ct.email
	}
	if ct.gender != nil {
		st.Gender = *ct.gender
	}
	for _, t := range ct.tags {
		st.Tags = append(st.Tags, t.name)
		st.TagIDs = append(st.TagIDs, t.id)
	}
	return st
}

// Contact returns the contact with the given id, in any company.
func (s *Server) Contact(id string) (ContactState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ct, ok := s.index[id].(*contact)
	if !ok {
		return ContactState{}, false
	}
	return ct.state(), true
}

// ContactByPhone returns the company's contact with that phone (normalized
// by the server's rule: digits only) on the account accountID; with
// accountID "", the one with the most recent interaction on any account.
func (c *Company) ContactByPhone(accountID, phoneNumber string) (ContactState, bool) {
	norm, err := phone.Normalize(phoneNumber)
	if err != nil {
		return ContactState{}, false
	}
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	co := c.s.byID[c.id]
	if co == nil {
		return ContactState{}, false
	}
	var ct *contact
	if accountID == "" {
		ct = mostRecent(co.contactsByPhone[norm])
	} else {
		ct = co.contactsByIdent[identKey{accountID, norm}]
	}
	if ct == nil {
		return ContactState{}, false
	}
	return ct.state(), true
}

// Contacts returns the company's contacts, ordered by creation time then id.
func (c *Company) Contacts() []ContactState {
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	co := c.s.byID[c.id]
	if co == nil {
		return nil
	}
	out := make([]ContactState, 0, len(co.contacts))
	for _, ct := range co.contacts {
		out = append(out, ct.state())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ConversationState is a snapshot of a conversation, for assertions.
type ConversationState struct {
	ID                string                   // conversation id
	CompanyID         string                   // the company (tenant)
	ContactID         string                   // the contact
	AccountID         string                   // channel_account_id: account or widget
	Channel           convo.Channel            // chatapp, botapp or webchat
	ChannelIdentifier string                   // the contact's native address
	Status            convo.ConversationStatus // open, resolved or archived
	AssignedTo        string                   // the agent; "" when unassigned
	UnreadCount       int                      // unread_count as the list shows it
	CreatedAt         time.Time                // created_at
	LastInboundAt     time.Time                // zero when the contact never wrote
	LastMessageAt     time.Time                // zero when there is no message
	MessageCount      int                      // messages stored (never shown on the wire; docs/behaviour.md, "Messages")
}

// Conversation returns the conversation with the given id, in any company.
func (s *Server) Conversation(id string) (ConversationState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cv, ok := s.index[id].(*conversation)
	if !ok {
		return ConversationState{}, false
	}
	st := ConversationState{
		ID: cv.id, CompanyID: cv.company.id, ContactID: cv.contact.id, AccountID: cv.account.id,
		Channel: convo.Channel(cv.account.channel), ChannelIdentifier: cv.contact.ident, Status: convo.ConversationStatus(cv.status),
		AssignedTo: cv.assignedTo, UnreadCount: cv.unreadCount(), CreatedAt: cv.createdAt,
		LastMessageAt: cv.lastMessageAt, MessageCount: len(cv.msgs),
	}
	if cv.lastInbound != nil {
		st.LastInboundAt = cv.lastInbound.at
	}
	return st, true
}

// MessageState is a snapshot of a message, for assertions and for finding
// the media_id of a seeded media message.
type MessageState struct {
	ID             string            // message_id
	ConversationID string            // its conversation
	Direction      convo.Direction   // inbound or outbound
	Sender         Sender            // who wrote it
	Type           convo.MessageType // message type
	At             time.Time         // when it was sent
	MediaStatus    convo.MediaStatus // "" for messages without a media block
	MediaID        string            // "" unless the media is available
	Reactions      int               // number of reactions
}

// Message returns the message with the given id, in any company.
func (s *Server) Message(id string) (MessageState, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.index[id].(*message)
	if !ok {
		return MessageState{}, false
	}
	st := MessageState{ID: m.id, ConversationID: m.conv.id, Direction: convo.Direction(m.direction), Sender: m.sender, Type: convo.MessageType(m.typ), At: m.at, Reactions: len(m.reactions)}
	if m.media != nil {
		st.MediaStatus, st.MediaID = convo.MediaStatus(m.media.status), m.media.id
	}
	return st, true
}

// MediaID returns the media_id of a seeded message ("" when the message has
// no available media).
func (s *Server) MediaID(messageID string) string {
	m, _ := s.Message(messageID)
	return m.MediaID
}
