package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// Company is a handle on one company (tenant) of a [Server], for
// seeding and inspecting. Seeding methods panic on invalid input, as
// regexp.MustCompile does: a bad seed is a bug in the test. [Server.Load]
// returns errors instead.
type Company struct {
	s  *Server
	id string
}

// Company returns the default company, whose key is [Server.APIKey].
func (s *Server) Company() *Company {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return &Company{s: s, id: s.defaultCo.id}
}

// Companies returns a handle on every company of the server: the default
// company first, then the others in the order they were added (by
// [Server.AddCompany] or a seed).
func (s *Server) Companies() []*Company {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Company, len(s.companies))
	for i, co := range s.companies {
		out[i] = &Company{s: s, id: co.id}
	}
	return out
}

// CompanyByKey returns the company whose API key is key, as the API
// authenticates it.
func (s *Server) CompanyByKey(key string) (*Company, bool) {
	if key == "" {
		return nil, false
	}
	h := sha256.Sum256([]byte(key))
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, co := range s.companies {
		if subtle.ConstantTimeCompare(h[:], co.keyHash[:]) == 1 {
			return &Company{s: s, id: co.id}, true
		}
	}
	return nil, false
}

// AddCompany adds a company with its own API key (it sees nothing of
// the others' data).
func (s *Server) AddCompany(apiKey string) *Company {
	s.mu.Lock()
	defer s.mu.Unlock()
	co, err := s.addCompanyLocked(apiKey, "")
	must(err)
	return &Company{s: s, id: co.id}
}

// ID returns the company's id.
func (c *Company) ID() string { return c.id }

// APIKey returns the company's API key.
func (c *Company) APIKey() string {
	return c.do("", func(co *company) (string, error) { return co.apiKey, nil })
}

// do runs f on the company under the write lock and returns its result;
// an error (named after kind, when not "") panics.
func (c *Company) do(kind string, f func(co *company) (string, error)) string {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	co := c.s.byID[c.id]
	if co == nil {
		must(errors.New("the company no longer exists (the server was reloaded)"))
	}
	out, err := f(co)
	if kind != "" {
		err = within(kind, err)
	}
	must(err)
	return out
}

// with runs f on the company under the write lock; an error panics.
func (c *Company) with(f func(co *company) error) {
	c.do("", func(co *company) (string, error) { return "", f(co) })
}

// AddChannel adds a channel account (GET /channels) and returns its id.
func (c *Company) AddChannel(a ChannelAccount) string {
	return c.do("channel account", func(co *company) (string, error) { return c.s.addAccount(co, a, false) })
}

// AddWebchatWidget adds a webchat widget and returns its id: the
// channel_account_id of webchat conversations. A widget never appears
// in /channels.
func (c *Company) AddWebchatWidget(displayName string) string {
	return c.do("", func(co *company) (string, error) {
		return c.s.addAccount(co, ChannelAccount{Channel: convo.ChannelWebchat, DisplayName: displayName}, true)
	})
}

// AddContact adds a contact (POST /chatapp/contacts, GET /chatapp/contacts/lookup) and returns its id.
func (c *Company) AddContact(ct Contact) string {
	return c.do("contact", func(co *company) (string, error) { return c.s.addContact(co, ct) })
}

// TagID returns the id of the company's tag called name, creating the tag
// if needed: the value to send in tag_ids (DELETE /chatapp/contacts/tags).
func (c *Company) TagID(name string) string {
	return c.do("", func(co *company) (string, error) {
		if err := checkTagName(name); err != nil {
			return "", err
		}
		return co.tag(name).id, nil
	})
}

// TagContact adds the tags (names) to a contact.
func (c *Company) TagContact(contactID string, names ...string) {
	c.with(func(co *company) error {
		ct := co.contacts.get(contactID)
		if ct == nil {
			return fmt.Errorf("unknown contact %q", contactID)
		}
		for _, n := range names {
			if err := checkTagName(n); err != nil {
				return err
			}
		}
		for _, n := range names {
			ct.addTag(co.tag(n))
		}
		return nil
	})
}

// ScheduleSequence schedules a sequence called name for a contact (POST /chatapp/sequences/cancel).
func (c *Company) ScheduleSequence(contactID, name string) {
	c.with(func(co *company) error {
		ct := co.contacts.get(contactID)
		if ct == nil {
			return fmt.Errorf("unknown contact %q", contactID)
		}
		ct.sequence, ct.sequenceName = SequenceScheduled, name
		return nil
	})
}

// AddConversation adds a conversation and returns its id.
func (c *Company) AddConversation(cv Conversation) string {
	return c.do("conversation", func(co *company) (string, error) { return c.s.addConversation(co, cv) })
}

// SetStatus changes a conversation's status: convo.ConversationOpen,
// ConversationResolved or ConversationArchived.
func (c *Company) SetStatus(conversationID string, status convo.ConversationStatus) {
	c.with(func(co *company) error {
		conv := co.convsByID.get(conversationID)
		if conv == nil {
			return fmt.Errorf("unknown conversation %q", conversationID)
		}
		if status != convo.ConversationOpen && status != convo.ConversationResolved && status != convo.ConversationArchived {
			return fmt.Errorf("unknown status %q", status)
		}
		conv.status = status
		return nil
	})
}

// Assign sets the responsible agent of a conversation; "" unassigns it.
func (c *Company) Assign(conversationID, agent string) {
	c.with(func(co *company) error {
		conv := co.convsByID.get(conversationID)
		if conv == nil {
			return fmt.Errorf("unknown conversation %q", conversationID)
		}
		conv.assignedTo = agent
		return nil
	})
}

// AddMessage adds a message to a conversation and returns its id. Messages
// may be added in any time order; the read returns them newest first.
func (c *Company) AddMessage(conversationID string, m Message) string {
	return c.do("message", func(co *company) (string, error) { return c.s.addMessage(co, conversationID, m) })
}

// Inbound adds a text message from the contact at the given time (zero: now).
func (c *Company) Inbound(conversationID, text string, at time.Time) string {
	return c.AddMessage(conversationID, Message{Sender: SenderContact, Text: text, At: at})
}

// Reply adds an outbound text message from sender (agent, phone or
// automation) at the given time (zero: now).
func (c *Company) Reply(conversationID string, sender Sender, text string, at time.Time) string {
	return c.AddMessage(conversationID, Message{Sender: sender, Text: text, At: at})
}

// Receive models a message arriving from phone on an account, as the
// inbound path does: the contact is found or created (named name, or
// after the phone), then its open conversation on that account, or a new
// one. It returns the conversation and message ids.
func (c *Company) Receive(accountID, phoneNumber, name string, m Message) (conversationID, messageID string) {
	c.with(func(co *company) error {
		acc := co.accountsByID[accountID]
		if acc == nil {
			return fmt.Errorf("unknown account %q", accountID)
		}
		norm, err := phone.Normalize(phoneNumber)
		if err != nil {
			return fmt.Errorf("phone %q: %w", phoneNumber, err)
		}
		ct := co.contactOn(acc.id, norm)
		if ct == nil {
			id, err := c.s.addContact(co, Contact{ChannelAccountID: acc.id, PhoneNumber: norm, Name: name, CreatedAt: m.At})
			if err != nil {
				return err
			}
			ct = co.contacts.get(id)
		}
		var conv *conversation
		for _, cv := range co.conversations {
			if cv.contact == ct && cv.status == convo.ConversationOpen {
				conv = cv
			}
		}
		if conv == nil {
			id, err := c.s.addConversation(co, Conversation{ContactID: ct.id, CreatedAt: m.At})
			if err != nil {
				return err
			}
			conv = co.convsByID.get(id)
		}
		if m.Sender == "" {
			m.Sender = SenderContact
		}
		conversationID = conv.ID
		messageID, err = c.s.addMessage(co, conv.ID, m)
		return err
	})
	return conversationID, messageID
}

// AddReaction adds a reaction to a message: it appears only inside that
// message's reactions (docs/behaviour.md, "Messages").
func (c *Company) AddReaction(messageID string, r Reaction) {
	c.with(func(co *company) error {
		m, _ := co.object(messageID).(*message)
		if m == nil || m.conv.company != co {
			return fmt.Errorf("unknown message %q", messageID)
		}
		rr, err := c.s.buildReaction(r, m.time())
		if err != nil {
			return err
		}
		m.extra().reactions = append(m.extra().reactions, rr)
		co.encoded.forget(m)
		m.conv.version++
		return nil
	})
}
