package fake

import (
	"errors"
	"fmt"
	"maps"
	"mime"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// This file holds the internal mutations behind the seeding API: they
// validate one entry, fill its defaults and add it to the model, under the
// state lock held by the caller. [Server.Load] and the [Company] methods
// share them.

func (s *Server) addCompanyLocked(apiKey string) (*company, error) {
	if apiKey == "" {
		return nil, errors.New("api key is empty")
	}
	for _, co := range s.companies {
		if co.apiKey == apiKey {
			// Name the company, never the key: errors end up in logs.
			return nil, fmt.Errorf("the API key is already used by company %s", co.id)
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

func (s *Server) addAccount(co *company, a ChannelAccount, widget bool) (string, error) {
	switch {
	case widget:
	case a.Channel == convo.ChannelChatapp || a.Channel == convo.ChannelBotapp:
	case a.Channel == "sms":
		return "", fieldErr("channel", "channel sms has no accounts: SMS is one-way")
	case a.Channel == convo.ChannelWebchat:
		return "", fieldErr("channel", "webchat widgets are added with AddWebchatWidget")
	default:
		return "", fieldErr("channel", "unknown channel %q (want chatapp or botapp)", a.Channel)
	}
	id, err := s.newID(a.ID)
	if err != nil {
		return "", err
	}
	if a.ProviderIdentifier == "" {
		switch a.Channel {
		case convo.ChannelChatapp:
			a.ProviderIdentifier = fmt.Sprintf("1%014d", s.seq+uint64(len(co.accounts))+100000)
		case convo.ChannelBotapp:
			a.ProviderIdentifier = "bot_" + id[:8]
		default:
			a.ProviderIdentifier = "widget_" + id[:8]
		}
	}
	if a.DisplayName == "" {
		a.DisplayName = string(a.Channel) + " " + a.ProviderIdentifier
	}
	if a.Channel == convo.ChannelChatapp {
		for _, other := range co.accounts {
			if other.channel == convo.ChannelChatapp && other.provider == a.ProviderIdentifier {
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
	} else if acc.channel == convo.ChannelChatapp {
		return "", fieldErr("phone", "a chatapp contact needs a phone")
	}
	id, err := s.newID(ct.ID)
	if err != nil {
		return "", err
	}
	ident := ct.ChannelIdentifier
	if ident == "" {
		ident = defaultIdentifier(acc.channel, norm, id)
	}
	key, dupField := identKey{acc.id, norm}, "phone"
	if norm == "" {
		key, dupField = identKey{acc.id, "#" + ident}, "channel_identifier"
	}
	if other := co.contactsByIdent[key]; other != nil {
		return "", fieldErr(dupField, "%s is already contact %s on account %s (a contact is unique per account and phone)", key.ident, other.id, acc.id)
	}
	created := ct.CreatedAt
	if created.IsZero() {
		created = s.clock.Now()
	}
	if strings.ContainsRune(ct.Name, 0) {
		return "", fieldErr("name", "holds a NUL character, which the service refuses in a name")
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

// defaultIdentifier is the channel identifier of a contact seeded without one:
// its phone where the channel knows phones, else a name made from its id.
func defaultIdentifier(ch convo.Channel, norm, id string) string {
	switch {
	case ch == convo.ChannelChatapp || (norm != "" && ch == convo.ChannelBotapp):
		return norm
	case ch == convo.ChannelBotapp:
		return "bot-user-" + id[:8]
	default:
		return "visitor-" + id[:8]
	}
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

func (s *Server) addConversation(co *company, cv Conversation) (string, error) {
	ct := co.contacts[cv.Contact]
	if ct == nil {
		return "", fieldErr("contact", "unknown contact %q", cv.Contact)
	}
	status := cv.Status
	if status == "" {
		status = convo.ConversationOpen
	}
	if status != convo.ConversationOpen && status != convo.ConversationResolved && status != convo.ConversationArchived {
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

// statuses interns the delivery status values: a million messages share
// five strings.
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
	if err := resolveSender(&m); err != nil {
		return "", err
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
	special := m.Type == "system" || m.Type == "unsupported" // no text or media of their own (docs/behaviour.md, "Messages")
	if !special {
		msg.text = optString(m.Text)
	}
	if m.Status != "" {
		if statuses[string(m.Status)] == nil {
			return "", fieldErr("status", "unknown status %q (want queued, sent, delivered, read or failed)", m.Status)
		}
		msg.status = internStatus(string(m.Status))
	} else if m.Direction == convo.DirectionOutbound && !special {
		msg.status = internStatus("delivered")
	}
	st := ""
	if msg.status != nil {
		st = *msg.status
	}
	if st != "queued" {
		msg.sentAt = &msg.at
	}
	msg.setTimes(m.DeliveredAt, m.ReadAt, st)
	if mediaTypes[string(m.Type)] {
		md := m.Media
		if md == nil {
			md = &Media{Status: convo.MediaNoReference}
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
	// The anomaly cache is deliberately left alone (docs/behaviour.md, "Anomaly report").
	return id, nil
}

// resolveSender fills in a seeded message's sender, direction and type where
// they are left out, and refuses a sender and direction that disagree.
func resolveSender(m *Message) error {
	switch {
	case m.Sender == "" && m.Direction == convo.DirectionOutbound:
		m.Sender = SenderAgent
	case m.Sender == "":
		m.Sender = SenderContact
	}
	switch m.Sender {
	case SenderContact, SenderAgent, SenderPhone, SenderAutomation, SenderSystem:
	default:
		return fieldErr("sender", "unknown sender %q (want contact, agent, phone, automation or system)", m.Sender)
	}
	if m.Direction == "" {
		m.Direction = convo.DirectionOutbound
		if m.Sender == SenderContact {
			m.Direction = convo.DirectionInbound
		}
	}
	if m.Direction != convo.DirectionInbound && m.Direction != convo.DirectionOutbound {
		return fieldErr("direction", "unknown direction %q (want inbound or outbound)", m.Direction)
	}
	if (m.Sender == SenderContact) != (m.Direction == convo.DirectionInbound) && m.Sender != SenderSystem {
		return fieldErr("direction", "sender %s cannot send a message %s", m.Sender, m.Direction)
	}
	if m.Type == "" {
		m.Type = "text"
		if m.Media != nil {
			m.Type = convo.MessageType(typeForMIME(m.Media.MimeType))
		}
	}
	if m.Sender == SenderSystem && m.Type == "text" {
		m.Type = "system"
	}
	return nil
}

// setTimes sets the delivered and read times a status implies where the
// seed gives none: a second and a minute after the message.
func (msg *message) setTimes(deliveredAt, readAt *time.Time, st string) {
	msg.deliveredAt, msg.readAt = deliveredAt, readAt
	if msg.deliveredAt == nil && (st == "delivered" || st == "read") {
		t := msg.at.Add(time.Second)
		msg.deliveredAt = &t
	}
	if msg.readAt == nil && st == "read" {
		t := msg.at.Add(time.Minute)
		msg.readAt = &t
	}
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
		status = convo.MediaAvailable
		if len(md.Data) == 0 && md.Size == 0 && md.MimeType == "" {
			status = convo.MediaNoReference
		}
	}
	// Spec §2.3 rule 1: a message never carries a storage path, so a file
	// name is a bare name.
	if strings.ContainsAny(md.Filename, `/\`) {
		return nil, fieldErr("filename", "%q is a path; a message never carries a storage path: give a bare file name", md.Filename)
	}
	out := &media{status: status, company: co}
	switch status {
	case convo.MediaAvailable:
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
	case convo.MediaUnknown:
		out.mime, out.filename = optString(md.MimeType), optString(md.Filename)
		if md.Size > 0 {
			size := md.Size
			out.size = &size
		}
	case convo.MediaNoReference:
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
		dir = convo.DirectionInbound
	}
	if dir != convo.DirectionInbound && dir != convo.DirectionOutbound {
		return reaction{}, fieldErr("direction", "unknown direction %q (want inbound or outbound)", dir)
	}
	at := r.At
	if at.IsZero() {
		at = msgAt.Add(time.Minute)
	}
	return reaction{emoji: r.Emoji, direction: dir, at: at}, nil
}
