package fake

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"maps"
	"mime"
	"strings"
	"time"

	"github.com/convoapi/convo-go/internal/phone"
)

// Channel names (spec §2.2, §4.3, D31). SMS has neither accounts nor
// conversations (spec §1) and cannot be seeded.
const (
	Chatapp = "chatapp"
	Botapp  = "botapp"
	Webchat = "webchat"
)

// Message directions (spec §2.3).
const (
	Inbound  = "inbound"
	Outbound = "outbound"
)

// Conversation statuses (spec §3).
const (
	StatusOpen     = "open"
	StatusResolved = "resolved"
	StatusArchived = "archived"
)

// Media statuses (spec §2.3).
const (
	MediaAvailable   = "available"
	MediaUnknown     = "unknown"
	MediaNoReference = "no_reference"
)

// Sequence states (spec §3), as [ContactState.Sequence] reports them.
const (
	SequenceScheduled = "scheduled"
	SequenceCanceled  = "canceled"
)

// Sender says who wrote a message (D30). It never appears in the message
// read except inside raw, but it decides the anomaly buckets (spec §2.6).
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

// ChannelAccount seeds a channel account of the neutral contract (spec §2.2).
type ChannelAccount struct {
	// ID is the account's id; default a new UUID.
	ID string
	// Channel is Chatapp or Botapp. Webchat widgets are added with
	// [Company.AddWebchatWidget]; SMS accounts do not exist.
	Channel string
	// DisplayName is the human label; default derived from the channel.
	DisplayName string
	// ProviderIdentifier is the account's identifier at the provider; for
	// chatapp it is the phone_number_id of the contact endpoints (D23).
	// Default: a generated one.
	ProviderIdentifier string
}

// Contact seeds a contact and its identity on one account (D24: a contact is
// unique per account and normalized phone).
type Contact struct {
	// ID is the contact's id; default a new UUID.
	ID string
	// Account is the id of the channel account or webchat widget.
	Account string
	// Phone is normalized by the server's rule (D16); required on chatapp,
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
	// Sequence, when not "", is the name of a scheduled sequence (spec §4.10).
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
	// Status is open (default), resolved or archived.
	Status string
	// AssignedTo names the responsible agent; "" means unassigned.
	AssignedTo string
	// CreatedAt defaults to the clock's now, or to the first message's time
	// when earlier.
	CreatedAt time.Time
	// UnreadCount, when set, overrides the derived unread_count (inbound
	// messages after the last human reply).
	UnreadCount *int
}

// Message seeds a message of a conversation (spec §2.3).
type Message struct {
	// ID is the message id; default a new UUID.
	ID string
	// Sender is who wrote it (D30). Default: SenderContact for inbound,
	// SenderAgent for outbound.
	Sender Sender
	// Direction is Inbound or Outbound; default derived from Sender
	// (contact: inbound; others: outbound).
	Direction string
	// Type is the message type (D13); default "text", or derived from the
	// media's MIME type (image, audio, video, else document).
	Type string
	// Text is the text or caption; "" means null.
	Text string
	// Status is the delivery status (D14); default null for inbound,
	// "delivered" for outbound.
	Status string
	// At is when the message was sent; default the clock's now.
	At time.Time
	// DeliveredAt and ReadAt default from Status: delivered and read set
	// delivered_at one second after At, read sets read_at a minute after.
	DeliveredAt, ReadAt *time.Time
	// FailureReason is failure_reason ("" means null).
	FailureReason string
	// Media, for media types; nil on a media type means no_reference.
	Media *Media
	// Reactions to this message (D15).
	Reactions []Reaction
}

// Media seeds the media block of a message (spec §2.3).
type Media struct {
	// Status is available (default when Data is set), unknown or
	// no_reference.
	Status string
	// MimeType, Filename ("" means null).
	MimeType, Filename string
	// Data is the file's content, served by the attachment URL when
	// available. When empty, Size bytes of filler are served.
	Data []byte
	// Size is file_size when Data is empty (0 means null, except for
	// available media which get a small default).
	Size int64
}

// Reaction seeds a reaction (D15).
type Reaction struct {
	// Emoji is the reaction itself.
	Emoji string
	// Direction is inbound (the contact reacted, default) or outbound.
	Direction string
	// At defaults to the message's time plus one minute.
	At time.Time
}

// Company is a handle on one company (tenant, D20) of a [Server], for
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

// CompanyByKey returns the company whose API key is key (D20), as the API
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

// AddCompany adds a company with its own API key (D20: it sees nothing of
// the others).
func (s *Server) AddCompany(apiKey string) *Company {
	s.mu.Lock()
	defer s.mu.Unlock()
	co, err := s.addCompanyLocked(apiKey)
	must(err)
	return &Company{s: s, id: co.id}
}

func (s *Server) addCompanyLocked(apiKey string) (*company, error) {
	if apiKey == "" {
		return nil, errors.New("api key is empty")
	}
	for _, co := range s.companies {
		if co.apiKey == apiKey {
			return nil, fmt.Errorf("api key %q is already used by another company", apiKey)
		}
	}
	co := newCompany(apiKey)
	s.companies = append(s.companies, co)
	s.byID[co.id] = co
	return co, nil
}

func must(err error) {
	if err != nil {
		panic("fake: " + err.Error())
	}
}

// fieldError is a seeding error about one field of the entry being added
// (a JSON field name of the seed format, e.g. "sender" or
// "media.status"): [Server.Load] prefixes it with the entry's JSON path, the
// Go seeding methods with the kind of entry.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func fieldErr(field, format string, args ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// within puts err under prefix: a field error's field becomes
// prefix.field; any other error becomes a field error of prefix itself.
func within(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return &fieldError{field: prefix + "." + fe.field, msg: fe.msg}
	}
	return &fieldError{field: prefix, msg: err.Error()}
}

// ID returns the company's id.
func (c *Company) ID() string { return c.id }

// APIKey returns the company's API key.
func (c *Company) APIKey() string {
	var key string
	c.with(func(co *company) error { key = co.apiKey; return nil })
	return key
}

// with runs f on the company under the write lock.
func (c *Company) with(f func(co *company) error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	co := c.s.byID[c.id]
	if co == nil {
		must(errors.New("the company no longer exists (the server was reloaded)"))
	}
	must(f(co))
}

// AddChannel adds a channel account (spec §2.2, §4.5) and returns its id.
func (c *Company) AddChannel(a ChannelAccount) string {
	var id string
	c.with(func(co *company) (err error) {
		id, err = c.s.addAccount(co, a, false)
		return within("channel account", err)
	})
	return id
}

// AddWebchatWidget adds a webchat widget and returns its id: the
// channel_account_id of webchat conversations (D31). A widget never appears
// in /channels.
func (c *Company) AddWebchatWidget(displayName string) string {
	var id string
	c.with(func(co *company) (err error) {
		id, err = c.s.addAccount(co, ChannelAccount{Channel: Webchat, DisplayName: displayName}, true)
		return
	})
	return id
}

func (s *Server) addAccount(co *company, a ChannelAccount, widget bool) (string, error) {
	switch {
	case widget:
	case a.Channel == Chatapp || a.Channel == Botapp:
	case a.Channel == "sms":
		return "", fieldErr("channel", "channel sms has no accounts (spec §1: SMS is one-way)")
	case a.Channel == Webchat:
		return "", fieldErr("channel", "webchat widgets are added with AddWebchatWidget (D31)")
	default:
		return "", fieldErr("channel", "unknown channel %q (want chatapp or botapp)", a.Channel)
	}
	id, err := s.newID(a.ID)
	if err != nil {
		return "", err
	}
	if a.ProviderIdentifier == "" {
		switch a.Channel {
		case Chatapp:
			a.ProviderIdentifier = fmt.Sprintf("1%014d", s.seq+uint64(len(co.accounts))+100000)
		case Botapp:
			a.ProviderIdentifier = "bot_" + id[:8]
		default:
			a.ProviderIdentifier = "widget_" + id[:8]
		}
	}
	if a.DisplayName == "" {
		a.DisplayName = a.Channel + " " + a.ProviderIdentifier
	}
	if a.Channel == Chatapp {
		for _, other := range co.accounts {
			if other.channel == Chatapp && other.provider == a.ProviderIdentifier {
				return "", fieldErr("provider_identifier", "provider identifier %q is already used by account %s", a.ProviderIdentifier, other.id)
			}
		}
	}
	acc := &account{id: id, channel: a.Channel, displayName: a.DisplayName, provider: a.ProviderIdentifier, company: co}
	co.accounts = append(co.accounts, acc)
	co.accountsByID[id] = acc
	s.index[id] = acc
	return id, nil
}

// newID returns id when it is free, or a new UUID when id is "".
func (s *Server) newID(id string) (string, error) {
	if id == "" {
		return newUUID(), nil
	}
	if _, taken := s.index[id]; taken {
		return "", fieldErr("id", "id %q is already used", id)
	}
	return id, nil
}

// AddContact adds a contact (spec §2.7, D24) and returns its id.
func (c *Company) AddContact(ct Contact) string {
	var id string
	c.with(func(co *company) (err error) { id, err = c.s.addContact(co, ct); return within("contact", err) })
	return id
}

func (s *Server) addContact(co *company, ct Contact) (string, error) {
	acc := co.accountsByID[ct.Account]
	if acc == nil {
		return "", fieldErr("channel", "unknown account %q", ct.Account)
	}
	var norm string
	if ct.Phone != "" {
		var err error
		if norm, err = phone.Normalize(ct.Phone); err != nil {
			return "", fieldErr("phone", "%q: %v", ct.Phone, err)
		}
	} else if acc.channel == Chatapp {
		return "", fieldErr("phone", "a chatapp contact needs a phone")
	}
	id, err := s.newID(ct.ID)
	if err != nil {
		return "", err
	}
	ident := ct.ChannelIdentifier
	if ident == "" {
		switch {
		case acc.channel == Chatapp || (norm != "" && acc.channel == Botapp):
			ident = norm
		case acc.channel == Botapp:
			ident = "bot-user-" + id[:8]
		default:
			ident = "visitor-" + id[:8]
		}
	}
	key, dupField := identKey{acc.id, norm}, "phone"
	if norm == "" {
		key, dupField = identKey{acc.id, "#" + ident}, "channel_identifier"
	}
	if other := co.contactsByIdent[key]; other != nil {
		return "", fieldErr(dupField, "%s is already contact %s on account %s (D24)", key.ident, other.id, acc.id)
	}
	created := ct.CreatedAt
	if created.IsZero() {
		created = s.clock.Now()
	}
	name := ct.Name
	if name == "" {
		name = norm
		if name == "" {
			name = ident
		}
	}
	cn := &contact{
		id: id, account: acc, phone: norm, ident: ident, name: name,
		email: optString(ct.Email), gender: optString(ct.Gender),
		customFields: maps.Clone(ct.CustomFields), createdAt: created,
	}
	if cn.customFields == nil {
		cn.customFields = map[string]string{}
	}
	for _, t := range ct.Tags {
		cn.addTag(co.tag(t))
	}
	if ct.Sequence != "" {
		cn.sequence, cn.sequenceName = SequenceScheduled, ct.Sequence
	}
	co.contacts[id] = cn
	co.contactsByIdent[key] = cn
	if norm != "" {
		co.contactsByPhone[norm] = append(co.contactsByPhone[norm], cn)
	}
	s.index[id] = cn
	return id, nil
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// tag returns the company's tag called name, creating it.
func (co *company) tag(name string) *tag {
	if t := co.tagsByName[name]; t != nil {
		return t
	}
	t := &tag{id: newUUID(), name: name}
	co.tagsByName[name] = t
	co.tagsByID[t.id] = t
	return t
}

func (ct *contact) addTag(t *tag) {
	for _, have := range ct.tags {
		if have == t {
			return
		}
	}
	ct.tags = append(ct.tags, t)
}

// TagID returns the id of the company's tag called name, creating the tag
// if needed: the value to send in tag_ids (spec §4.9, D10).
func (c *Company) TagID(name string) string {
	var id string
	c.with(func(co *company) error { id = co.tag(name).id; return nil })
	return id
}

// TagContact adds the tags (names) to a contact.
func (c *Company) TagContact(contactID string, names ...string) {
	c.with(func(co *company) error {
		ct := co.contacts[contactID]
		if ct == nil {
			return fmt.Errorf("unknown contact %q", contactID)
		}
		for _, n := range names {
			ct.addTag(co.tag(n))
		}
		return nil
	})
}

// ScheduleSequence schedules a sequence called name for a contact (spec §4.10).
func (c *Company) ScheduleSequence(contactID, name string) {
	c.with(func(co *company) error {
		ct := co.contacts[contactID]
		if ct == nil {
			return fmt.Errorf("unknown contact %q", contactID)
		}
		ct.sequence, ct.sequenceName = SequenceScheduled, name
		return nil
	})
}

// AddConversation adds a conversation and returns its id.
func (c *Company) AddConversation(cv Conversation) string {
	var id string
	c.with(func(co *company) (err error) {
		id, err = c.s.addConversation(co, cv)
		return within("conversation", err)
	})
	return id
}

func (s *Server) addConversation(co *company, cv Conversation) (string, error) {
	ct := co.contacts[cv.Contact]
	if ct == nil {
		return "", fieldErr("contact", "unknown contact %q", cv.Contact)
	}
	status := cv.Status
	if status == "" {
		status = StatusOpen
	}
	if status != StatusOpen && status != StatusResolved && status != StatusArchived {
		return "", fieldErr("status", "unknown status %q (want open, resolved or archived)", status)
	}
	if cv.UnreadCount != nil && *cv.UnreadCount < 0 {
		return "", fieldErr("unread_count", "%d is negative", *cv.UnreadCount)
	}
	id, err := s.newID(cv.ID)
	if err != nil {
		return "", err
	}
	created := cv.CreatedAt
	if created.IsZero() {
		created = s.clock.Now()
	}
	s.seq++
	conv := &conversation{
		id: id, company: co, contact: ct, account: ct.account, status: status,
		assignedTo: cv.AssignedTo, createdAt: created, createdAt0: created, createdSeq: s.seq, unreadOverride: cv.UnreadCount,
	}
	co.conversations = append(co.conversations, conv)
	co.noteMove(conv, s.seq)
	co.convsByID[id] = conv
	ct.conversationCount++
	s.index[id] = conv
	return id, nil
}

// SetStatus changes a conversation's status (open, resolved, archived).
func (c *Company) SetStatus(conversationID, status string) {
	c.with(func(co *company) error {
		conv := co.convsByID[conversationID]
		if conv == nil {
			return fmt.Errorf("unknown conversation %q", conversationID)
		}
		if status != StatusOpen && status != StatusResolved && status != StatusArchived {
			return fmt.Errorf("unknown status %q", status)
		}
		conv.status = status
		return nil
	})
}

// Assign sets the responsible agent of a conversation; "" unassigns it.
func (c *Company) Assign(conversationID, agent string) {
	c.with(func(co *company) error {
		conv := co.convsByID[conversationID]
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
	var id string
	c.with(func(co *company) (err error) {
		id, err = c.s.addMessage(co, conversationID, m)
		return within("message", err)
	})
	return id
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
// inbound path does (D24): the contact is found or created (named name, or
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
		ct := co.contactsByIdent[identKey{acc.id, norm}]
		if ct == nil {
			id, err := c.s.addContact(co, Contact{Account: acc.id, Phone: norm, Name: name, CreatedAt: m.At})
			if err != nil {
				return err
			}
			ct = co.contacts[id]
		}
		var conv *conversation
		for _, cv := range co.conversations {
			if cv.contact == ct && cv.status == StatusOpen {
				conv = cv
			}
		}
		if conv == nil {
			id, err := c.s.addConversation(co, Conversation{Contact: ct.id, CreatedAt: m.At})
			if err != nil {
				return err
			}
			conv = co.convsByID[id]
		}
		if m.Sender == "" {
			m.Sender = SenderContact
		}
		conversationID = conv.id
		messageID, err = c.s.addMessage(co, conv.id, m)
		return err
	})
	return conversationID, messageID
}

// statuses interns the D14 values: a million messages share five strings.
var statuses = map[string]*string{}

func init() {
	for _, v := range []string{"queued", "sent", "delivered", "read", "failed"} {
		statuses[v] = &v
	}
}

func internStatus(v string) *string {
	if p, ok := statuses[v]; ok {
		return p
	}
	return &v
}

var mediaTypes = map[string]bool{"image": true, "document": true, "audio": true, "video": true, "sticker": true}

func (s *Server) addMessage(co *company, conversationID string, m Message) (string, error) {
	conv := co.convsByID[conversationID]
	if conv == nil {
		return "", fmt.Errorf("unknown conversation %q", conversationID)
	}
	switch {
	case m.Sender == "" && m.Direction == Outbound:
		m.Sender = SenderAgent
	case m.Sender == "":
		m.Sender = SenderContact
	}
	switch m.Sender {
	case SenderContact, SenderAgent, SenderPhone, SenderAutomation, SenderSystem:
	default:
		return "", fieldErr("sender", "unknown sender %q (want contact, agent, phone, automation or system)", m.Sender)
	}
	if m.Direction == "" {
		m.Direction = Outbound
		if m.Sender == SenderContact {
			m.Direction = Inbound
		}
	}
	if m.Direction != Inbound && m.Direction != Outbound {
		return "", fieldErr("direction", "unknown direction %q (want inbound or outbound)", m.Direction)
	}
	if (m.Sender == SenderContact) != (m.Direction == Inbound) && m.Sender != SenderSystem {
		return "", fieldErr("direction", "sender %s cannot send a message %s", m.Sender, m.Direction)
	}
	if m.Type == "" {
		m.Type = "text"
		if m.Media != nil {
			m.Type = typeForMIME(m.Media.MimeType)
		}
	}
	if m.Sender == SenderSystem && m.Type == "text" {
		m.Type = "system"
	}
	id, err := s.newID(m.ID)
	if err != nil {
		return "", err
	}
	at := m.At
	if at.IsZero() {
		at = s.clock.Now()
	}
	msg := &message{id: id, conv: conv, direction: m.Direction, sender: m.Sender, typ: m.Type, at: at, failureReason: optString(m.FailureReason)}
	special := m.Type == "system" || m.Type == "unsupported" // spec §2.3 rule 6
	if !special {
		msg.text = optString(m.Text)
	}
	if m.Status != "" {
		if statuses[m.Status] == nil {
			return "", fieldErr("status", "unknown status %q (want queued, sent, delivered, read or failed, D14)", m.Status)
		}
		msg.status = internStatus(m.Status)
	} else if m.Direction == Outbound && !special {
		msg.status = internStatus("delivered")
	}
	st := ""
	if msg.status != nil {
		st = *msg.status
	}
	if st != "queued" {
		msg.sentAt = &msg.at
	}
	msg.deliveredAt, msg.readAt = m.DeliveredAt, m.ReadAt
	if msg.deliveredAt == nil && (st == "delivered" || st == "read") {
		t := at.Add(time.Second)
		msg.deliveredAt = &t
	}
	if msg.readAt == nil && st == "read" {
		t := at.Add(time.Minute)
		msg.readAt = &t
	}
	if mediaTypes[m.Type] {
		md := m.Media
		if md == nil {
			md = &Media{Status: MediaNoReference}
		}
		built, err := s.buildMedia(co, md)
		if err != nil {
			return "", within("media", err)
		}
		msg.media = built
	}
	for i, r := range m.Reactions {
		rr, err := buildReaction(r, at)
		if err != nil {
			return "", within(fmt.Sprintf("reactions[%d]", i), err)
		}
		msg.reactions = append(msg.reactions, rr)
	}
	s.seq++
	conv.insertMessage(msg, s.seq)
	s.index[id] = msg
	// The anomaly cache is deliberately left alone (spec §4.4 rule 3).
	return id, nil
}

func typeForMIME(m string) string {
	switch {
	case strings.HasPrefix(m, "image/"):
		return "image"
	case strings.HasPrefix(m, "audio/"):
		return "audio"
	case strings.HasPrefix(m, "video/"):
		return "video"
	}
	return "document"
}

func (s *Server) buildMedia(co *company, md *Media) (*media, error) {
	status := md.Status
	if status == "" {
		status = MediaAvailable
		if len(md.Data) == 0 && md.Size == 0 && md.MimeType == "" {
			status = MediaNoReference
		}
	}
	// Spec §2.3 rule 1: a message never carries a storage path, so a file
	// name is a bare name.
	if strings.ContainsAny(md.Filename, `/\`) {
		return nil, fieldErr("filename", "%q is a path; a message never carries a storage path (spec §2.3 rule 1): give a bare file name", md.Filename)
	}
	out := &media{status: status, company: co}
	switch status {
	case MediaAvailable:
		out.id = newUUID()
		out.data = md.Data
		if len(out.data) == 0 {
			n := md.Size
			if n <= 0 {
				n = 1024
			}
			out.data = filler(md.MimeType, n)
		}
		size := int64(len(out.data))
		out.size = &size
		mt := md.MimeType
		if mt == "" {
			mt = "application/octet-stream"
		}
		out.mime = &mt
		fn := md.Filename
		if fn == "" {
			fn = "file" + extensionFor(mt)
		}
		out.filename = &fn
		co.media[out.id] = out
	case MediaUnknown:
		out.mime, out.filename = optString(md.MimeType), optString(md.Filename)
		if md.Size > 0 {
			size := md.Size
			out.size = &size
		}
	case MediaNoReference:
	default:
		return nil, fieldErr("status", "unknown status %q (want available, unknown or no_reference)", status)
	}
	return out, nil
}

// extensions are the default file name extensions of common MIME types:
// a fixed table, so that a default filename does not depend on the
// machine's MIME database (mime.ExtensionsByType does).
var extensions = map[string]string{
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp",
	"audio/ogg": ".ogg", "audio/mpeg": ".mp3", "audio/mp4": ".m4a", "audio/aac": ".aac", "audio/amr": ".amr",
	"video/mp4": ".mp4", "video/3gpp": ".3gp", "video/quicktime": ".mov",
	"application/pdf": ".pdf", "text/plain": ".txt", "application/zip": ".zip",
	"application/msword": ".doc", "application/vnd.ms-excel": ".xls",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":       ".xlsx",
	"application/octet-stream": ".bin",
}

// extensionFor is the extension of a default filename: from the table, else
// none.
func extensionFor(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ""
	}
	return extensions[mt]
}

// filler makes n bytes standing for a file of the given type.
func filler(mimeType string, n int64) []byte {
	b := make([]byte, n)
	pattern := "fake " + mimeType + " content\n"
	for i := range b {
		b[i] = pattern[i%len(pattern)]
	}
	return b
}

func buildReaction(r Reaction, msgAt time.Time) (reaction, error) {
	if r.Emoji == "" {
		return reaction{}, fieldErr("emoji", "emoji is empty")
	}
	dir := r.Direction
	if dir == "" {
		dir = Inbound
	}
	if dir != Inbound && dir != Outbound {
		return reaction{}, fieldErr("direction", "unknown direction %q (want inbound or outbound)", dir)
	}
	at := r.At
	if at.IsZero() {
		at = msgAt.Add(time.Minute)
	}
	return reaction{emoji: r.Emoji, direction: dir, at: at}, nil
}

// AddReaction adds a reaction (D15) to a message: it appears only inside that
// message's reactions (spec §2.3 rule 5).
func (c *Company) AddReaction(messageID string, r Reaction) {
	c.with(func(co *company) error {
		m, _ := c.s.index[messageID].(*message)
		if m == nil || m.conv.company != co {
			return fmt.Errorf("unknown message %q", messageID)
		}
		rr, err := buildReaction(r, m.at)
		if err != nil {
			return err
		}
		m.reactions = append(m.reactions, rr)
		return nil
	})
}

// rawFor builds the raw object of a message: an internal-looking form of the
// content, outside the contract (spec §2.3 rule 4). It carries the sender
// kind (D30) and never a URL or storage path (rule 1).
func rawFor(m *message) map[string]any {
	content := map[string]any{"type": m.typ}
	if m.text != nil {
		content["body"] = *m.text
	}
	if md := m.media; md != nil && md.status == MediaAvailable {
		content["mime_type"] = *md.mime
		content["file_size"] = *md.size
	}
	return map[string]any{
		"provider_message_id": "pmid." + strings.ReplaceAll(m.id, "-", ""),
		"origin":              string(m.sender),
		"content":             content,
	}
}
