package fake

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/internal/phone"
)

// This file holds the internal mutations behind the seeding API: they
// validate one entry, fill its defaults and add it to the model, under the
// state lock held by the caller. [Server.Load] and the [Company] methods
// share them.

// addCompanyLocked adds a company with apiKey and id (a new UUID when "").
func (s *Server) addCompanyLocked(apiKey, id string) (*company, error) {
	if apiKey == "" {
		return nil, errors.New("api key is empty")
	}
	if _, taken := s.byID[id]; taken {
		// Name neither the id's owner nor its key: on a shared server the
		// error goes to another tenant.
		return nil, ErrCompanyIDInUse
	}
	if s.keyTaken(apiKey) {
		return nil, ErrAPIKeyInUse
	}
	co := newCompany(apiKey)
	if id != "" {
		co.id = id
	}
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

// now is the time of seeded entries left without one: the clock's, or the
// seed's while one loads. The caller holds s.mu.
func (s *Server) now() time.Time {
	if !s.loadNow.IsZero() {
		return s.loadNow
	}
	return s.clock.Now()
}

// ParseDuration reads a duration as a seed's relative times (ago,
// created_ago) and cmd/convofake's clock take it: a Go duration ("90m",
// "3h30m", "1.5h") with an optional leading whole number of days ("2d",
// "2d4h"), the whole optionally negative ("-1d4h" is 28 hours back). Its
// error says what it wants: bad duration "soon" (want e.g. 90m, 3h, 2d4h).
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("bad duration %q (want e.g. 90m, 3h, 2d4h)", s)
	rest, neg := strings.CutPrefix(s, "-")
	var days time.Duration
	if i := strings.IndexByte(rest, 'd'); i > 0 {
		n, err := strconv.Atoi(rest[:i])
		if err != nil || n < 0 {
			return 0, bad
		}
		days, rest = time.Duration(n)*24*time.Hour, rest[i+1:]
	}
	var d time.Duration
	switch {
	case rest != "":
		var err error
		if d, err = time.ParseDuration(rest); err != nil || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return 0, bad
		}
	case days == 0 && !strings.Contains(s, "d"):
		return 0, bad
	}
	if neg {
		return -(days + d), nil
	}
	return days + d, nil
}

// when resolves a time given as an instant (at) or as a duration before
// now (ago); fields name them in errors. Neither: now.
func (s *Server) when(at time.Time, ago, atField, agoField string) (time.Time, error) {
	switch {
	case ago == "" && at.IsZero():
		return s.now(), nil
	case ago == "":
		return at, nil
	case !at.IsZero():
		return time.Time{}, fieldErr(atField, "give %s or %s, not both", atField, agoField)
	}
	d, err := ParseDuration(ago)
	if err != nil {
		return time.Time{}, fieldErr(agoField, "%v", err)
	}
	return s.now().Add(-d), nil
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
	id, err := s.newUUIDID(co, a.ID)
	if err != nil {
		return "", err
	}
	if a.ProviderIdentifier == "" {
		switch a.Channel {
		case convo.ChannelChatapp:
			a.ProviderIdentifier = fmt.Sprintf("1%014d", s.seq+uint64(len(co.accounts))+100000)
		case convo.ChannelBotapp:
			a.ProviderIdentifier = "bot_" + id[:min(8, len(id))]
		default:
			a.ProviderIdentifier = "widget_" + id[:min(8, len(id))]
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
	return id, nil
}

// newUUIDID is newID for the ids the service shows as UUIDs (channel
// accounts, webchat widgets, contacts, conversations): a given id must be
// one, unless the server was built [WithReadableIDs].
func (s *Server) newUUIDID(co *company, id string) (string, error) {
	if id != "" && !s.cfg.readableIDs && !isUUID(id) {
		return "", fieldErr("id", "id %q is not a UUID (e.g. 0b6f2c1e-1111-4a5b-9c3d-000000000001; leave it out for a generated one)", id)
	}
	return s.newID(co, id)
}

// isUUID reports whether id has the textual form of a UUID (RFC 9562), any
// version, hex digits in either case.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}

// newID returns id when it is free in the company, or a new UUID when id
// is "". Ids are unique within a company, not across the server: tenants
// loaded from one fixture each hold its ids. A message id is free-form;
// other ids are UUIDs ([newUUIDID]).
func (s *Server) newID(co *company, id string) (string, error) {
	if id == "" {
		return newUUID(), nil
	}
	if co.object(id) != nil {
		return "", fieldErr("id", "id %q is already used", id)
	}
	return id, nil
}

func (s *Server) addContact(co *company, ct Contact) (string, error) {
	acc := co.accountsByID[ct.ChannelAccountID]
	if acc == nil {
		return "", fieldErr("channel", "unknown account %q", ct.ChannelAccountID)
	}
	var norm string
	if ct.PhoneNumber != "" {
		var err error
		if norm, err = phone.Normalize(ct.PhoneNumber); err != nil {
			return "", fieldErr("phone", "%q: %v", ct.PhoneNumber, err)
		}
	} else if acc.channel == convo.ChannelChatapp {
		return "", fieldErr("phone", "a chatapp contact needs a phone")
	}
	id, err := s.newUUIDID(co, ct.ID)
	if err != nil {
		return "", err
	}
	ident := ct.ChannelIdentifier
	if ident == "" {
		ident = defaultIdentifier(acc.channel, norm, id)
	}
	other, dupField, dup := co.contactOn(acc.id, norm), "phone", norm
	if norm == "" {
		other, dupField, dup = co.contactsByIdent[identKey{acc.id, ident}], "channel_identifier", "#"+ident
	}
	if other != nil {
		return "", fieldErr(dupField, "%s is already contact %s on account %s (a contact is unique per account and phone)", dup, other.id, acc.id)
	}
	created, err := s.when(ct.CreatedAt, ct.CreatedAgo, "created_at", "created_ago")
	if err != nil {
		return "", err
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
	if err := cn.seedTags(co, ct.Tags, ct.TagIDs); err != nil {
		return "", err
	}
	if ct.SequenceName != "" {
		cn.sequence, cn.sequenceName = SequenceScheduled, ct.SequenceName
		if ct.SequenceStatus == SequenceCanceled {
			cn.sequence = SequenceCanceled
		}
	}
	co.contacts.put(id, cn)
	if norm != "" {
		k := phoneKey(norm)
		cn.samePhone = co.contactsByPhone[k]
		co.contactsByPhone[k] = cn
	} else {
		co.contactsByIdent[identKey{acc.id, ident}] = cn
	}
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

// checkTagName refuses a tag name the API could not show: GET
// /chatapp/contacts/lookup joins a contact's tag names with "," in
// tag_names, so a name holding a comma would read as two tags.
func checkTagName(name string) error {
	switch {
	case name == "":
		return errors.New("a tag name is empty")
	case strings.Contains(name, ","):
		return fmt.Errorf("%q holds a comma: tag_names joins the names with \",\", so it would read as two tags", name)
	}
	return nil
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

// seedTags gives the contact the tags names; ids, when given, are their
// ids (in the same order), as an export keeps them.
func (ct *contact) seedTags(co *company, names, ids []string) error {
	if len(ids) > 0 && len(ids) != len(names) {
		return fieldErr("tag_ids", "%d ids for %d tags", len(ids), len(names))
	}
	for i, name := range names {
		if err := checkTagName(name); err != nil {
			return within(fmt.Sprintf("tags[%d]", i), err)
		}
		if len(ids) == 0 {
			ct.addTag(co.tag(name))
			continue
		}
		t, err := co.tagWithID(name, ids[i])
		if err != nil {
			return err
		}
		ct.addTag(t)
	}
	return nil
}

// tagWithID returns the company's tag called name, creating it with id.
func (co *company) tagWithID(name, id string) (*tag, error) {
	t := co.tagsByName[name]
	if t == nil {
		if other := co.tagsByID[id]; other != nil {
			return nil, fieldErr("tag_ids", "id %q is already tag %q", id, other.name)
		}
		t = &tag{id: id, name: name}
		co.tagsByName[name] = t
		co.tagsByID[id] = t
	}
	if t.id != id {
		return nil, fieldErr("tag_ids", "tag %q already has id %q", name, t.id)
	}
	return t, nil
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
	ct := co.contacts.get(cv.ContactID)
	if ct == nil {
		return "", fieldErr("contact", "unknown contact %q", cv.ContactID)
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
	id, err := s.newUUIDID(co, cv.ID)
	if err != nil {
		return "", err
	}
	created, err := s.when(cv.CreatedAt, cv.CreatedAgo, "created_at", "created_ago")
	if err != nil {
		return "", err
	}
	s.seq++
	conv := co.newConversation()
	*conv = conversation{
		ID: id, status: status, company: co, contact: ct, account: ct.account,
		assignedTo: cv.AssignedTo, createdAt: created, createdAt0: created, createdSeq: s.seq, unreadOverride: cv.UnreadCount,
	}
	if len(cv.Messages) > 0 {
		// Sized once for the messages added next, not grown by doubling.
		conv.msgs = make([]*message, 0, len(cv.Messages))
	}
	co.conversations = append(co.conversations, conv)
	co.noteMove(conv, s.seq)
	co.convsByID.put(id, conv)
	ct.conversationCount++
	for k, m := range cv.Messages {
		if _, err := s.addMessageTo(co, conv, m); err != nil {
			return "", within(fmt.Sprintf("messages[%d]", k), err)
		}
	}
	return id, nil
}
