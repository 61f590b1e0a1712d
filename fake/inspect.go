package fake

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// object returns the company's object (account, contact, conversation or
// message) with the given id, nil for none: for the state getters and id
// uniqueness within the company.
func (co *company) object(id string) any { return co.objectParsed(parseID(id)) }

// objectParsed is object of an id parsed already.
func (co *company) objectParsed(p parsedID) any {
	if a := co.accountsByID[p.text]; a != nil {
		return a
	}
	if ct := co.contacts.find(p); ct != nil {
		return ct
	}
	if cv := co.convsByID.find(p); cv != nil {
		return cv
	}
	if m := co.messages.find(p); m != nil {
		return m
	}
	return nil
}

// addMessageID makes m found by its id.
func (co *company) addMessageID(m *message) {
	if m.hasUUID() {
		co.messages.uuids[m.uuid] = m // the id's bytes are at hand
		return
	}
	co.messages.names[m.more.id] = m
}

// resetLocked empties the state. The default company keeps its id and key,
// so [Company] handles taken before stay valid.
func (s *Server) resetLocked() {
	key, id := s.cfg.apiKey, s.cfg.defaultID
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
	s.files = newFileGrants()
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
	if s.startDoc != nil {
		// It loaded at start, so it loads again; if it did not, the server
		// started empty and stays so.
		if seed, err := s.startDoc.decode(); err == nil {
			_ = s.load(seed, s.startDoc)
		}
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
	s.limiter.resetLocked()
}

// cloneFields is a copy of a contact's custom fields, empty (not nil) for
// none.
func cloneFields(f map[string]string) map[string]string {
	if f == nil {
		return map[string]string{}
	}
	return maps.Clone(f)
}

// state is the contact as inspection shows it.
func (ct *contact) state() Contact {
	st := Contact{
		ID: ct.id, CompanyID: ct.account.company.id, ChannelAccountID: ct.account.id,
		PhoneNumber: ct.phone, ChannelIdentifier: ct.ident, Name: ct.name,
		CustomFields: cloneFields(ct.customFields), SequenceStatus: ct.sequence, SequenceName: ct.sequenceName,
		CreatedAt: ct.createdAt, LastInteractionAt: ct.lastInteraction(), Email: deref(ct.email), Gender: deref(ct.gender),
	}
	for _, t := range ct.tags {
		st.Tags = append(st.Tags, t.name)
		st.TagIDs = append(st.TagIDs, t.id)
	}
	return st
}

// find returns the object with the given id: in the company of c when c
// is not nil, else in the first company that has it (the default company
// first, as [Server.Companies] lists them). Ids are unique within a
// company only. The caller holds s.mu.
func (s *Server) find(c *Company, id string) any {
	if c != nil {
		if co := s.byID[c.id]; co != nil {
			return co.object(id)
		}
		return nil
	}
	for _, co := range s.companies {
		if obj := co.object(id); obj != nil {
			return obj
		}
	}
	return nil
}

// Contact returns the contact with the given id, in the first company
// that has one (the default company first): ids are unique within a
// company only, so on a server with tenants loaded from one fixture use
// [Company.Contact].
func (s *Server) Contact(id string) (Contact, bool) { return s.contact(nil, id) }

// Contact returns the company's contact with the given id.
func (c *Company) Contact(id string) (Contact, bool) { return c.s.contact(c, id) }

func (s *Server) contact(c *Company, id string) (Contact, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ct, ok := s.find(c, id).(*contact)
	if !ok {
		return Contact{}, false
	}
	return ct.state(), true
}

// ContactByPhone returns the company's contact with that phone (normalized
// by the server's rule: digits only) on the account accountID; with
// accountID "", the one with the most recent interaction on any account.
func (c *Company) ContactByPhone(accountID, phoneNumber string) (Contact, bool) {
	norm, err := phone.Normalize(phoneNumber)
	if err != nil {
		return Contact{}, false
	}
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	co := c.s.byID[c.id]
	if co == nil {
		return Contact{}, false
	}
	var ct *contact
	if accountID == "" {
		ct = mostRecent(slices.Collect(co.withPhone(norm)))
	} else {
		ct = co.contactOn(accountID, norm)
	}
	if ct == nil {
		return Contact{}, false
	}
	return ct.state(), true
}

// Contacts returns the company's contacts, ordered by creation time then id.
func (c *Company) Contacts() []Contact {
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	co := c.s.byID[c.id]
	if co == nil {
		return nil
	}
	out := make([]Contact, 0, co.contacts.len())
	for ct := range co.contacts.all() {
		out = append(out, ct.state())
	}
	slices.SortFunc(out, func(a, b Contact) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID)) })
	return out
}

// Conversation returns the conversation with the given id, in the first
// company that has one (the default company first; see [Server.Contact]),
// with the fields the server sets (its messages are left out).
func (s *Server) Conversation(id string) (Conversation, bool) { return s.conversation(nil, id) }

// Conversation returns the company's conversation with the given id, with
// the fields the server sets (its messages are left out).
func (c *Company) Conversation(id string) (Conversation, bool) { return c.s.conversation(c, id) }

func (s *Server) conversation(c *Company, id string) (Conversation, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cv, ok := s.find(c, id).(*conversation)
	if !ok {
		return Conversation{}, false
	}
	return cv.state(), true
}

// state is the conversation as inspection shows it. The caller holds s.mu.
func (cv *conversation) state() Conversation {
	unread := cv.unreadCount()
	st := Conversation{
		ID: cv.ID, CompanyID: cv.company.id, ContactID: cv.contact.id, ChannelAccountID: cv.account.id,
		Channel: cv.account.channel, ChannelIdentifier: cv.contact.ident, Status: cv.status,
		AssignedTo: cv.assignedTo, UnreadCount: &unread, CreatedAt: cv.createdAt,
		LastMessageAt: cv.lastMessageAt, MessageCount: len(cv.msgs),
	}
	if cv.lastInbound != nil {
		st.LastInboundAt = cv.lastInbound.time()
	}
	return st
}

// Message returns the message with the given id, in the first company
// that has one (the default company first; see [Server.Contact]), with the
// fields the server sets (its media's data is left out).
func (s *Server) Message(id string) (Message, bool) { return s.message(nil, id) }

// Message returns the company's message with the given id, with the fields
// the server sets (its media's data is left out).
func (c *Company) Message(id string) (Message, bool) { return c.s.message(c, id) }

func (s *Server) message(c *Company, id string) (Message, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.find(c, id).(*message)
	if !ok {
		return Message{}, false
	}
	return m.state(), true
}

// MediaID returns the media_id of a seeded message ("" when the message has
// no available media).
func (s *Server) MediaID(messageID string) string {
	m, _ := s.Message(messageID)
	if m.Media == nil {
		return ""
	}
	return m.Media.MediaID
}

// state is the message as inspection shows it.
func (m *message) state() Message {
	st := Message{
		MessageID: m.id(), ConversationID: m.conv.ID, Sender: m.from(), Direction: m.direction(), Type: m.msgType(),
		Text: m.text, Status: convo.MessageStatus(m.statusText()), At: m.time(),
		DeliveredAt: m.deliveredAt(), ReadAt: m.readAt(), FailureReason: m.failureReason(),
	}
	if md := m.media(); md != nil {
		st.Media = &Media{MediaStatus: md.MediaStatus, MediaID: deref(md.MediaID), MimeType: deref(md.MimeType), Filename: deref(md.Filename)}
		if md.FileSize != nil {
			st.Media.FileSize = *md.FileSize
		}
	}
	for _, r := range m.reactions() {
		st.Reactions = append(st.Reactions, Reaction{Emoji: r.Emoji, Direction: r.Direction, ReactedAt: time.Time(r.ReactedAt)})
	}
	return st
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
