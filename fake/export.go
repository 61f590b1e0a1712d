package fake

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// This file writes the state out as a seed document: [Server.ExportSeed]
// and [Company.ExportSeed] read the store directly (not the API: nothing
// goes to the journal or the rate limits), and give every value the server
// would otherwise default (ids, times, delivery times, media ids and
// contents, tag ids), so that loading the export answers every API read as
// the original did.

// ExportSeed returns the whole state as a seed document: every company with
// its id (the default company's too, which loading ignores: give it to a
// new server with [WithDefaultCompanyID]) and API key, channel accounts and webchat widgets, contacts (tags
// with their ids, custom fields, sequences, canceled ones included) and
// conversations with their messages (media contents, reactions), and, on a
// manual clock, the clock's now. Loaded into a fresh server ([WithSeed],
// [Server.Load], or cmd/convofake's --seed and POST /_fake/seed) it answers
// every read of the API (GET /channels, GET /conversations with any filter
// and page, the messages pages, the contact lookup, the anomaly report,
// GET /attachments/{media_id} and the files) as this server does, on the
// same clock. What the API cannot read is not kept: the journal, fault
// rules, rate limits, cached anomaly reports, temporary file links, and
// tags no contact carries. Marshal it with encoding/json to get the
// document (fake/SEED.md).
func (s *Server) ExportSeed() *Seed {
	seed := &Seed{Companies: []CompanySeed{}}
	if s.clock.Manual() {
		now := s.clock.Now()
		seed.Now = &now
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.clock.Now()
	for _, co := range s.companies {
		seed.Companies = append(seed.Companies, co.export(now))
	}
	return seed
}

// ExportSeed returns the company's part of [Server.ExportSeed], with its id
// and API key; false when the company no longer exists. As the first
// company of a seed it replaces the default company's data (and key); as a
// later one it adds a company.
func (c *Company) ExportSeed() (CompanySeed, bool) {
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	co := c.s.byID[c.id]
	if co == nil {
		return CompanySeed{}, false
	}
	return co.export(c.s.clock.Now()), true
}

// export is the company as a seed company, allow_future set when a
// message is dated after now (the clock was moved back). The caller holds
// Server.mu.
func (co *company) export(now time.Time) CompanySeed {
	cs := CompanySeed{ID: co.id, APIKey: co.apiKey}
	for _, acc := range co.accounts {
		cs.Channels = append(cs.Channels, ChannelAccount{
			ID: acc.id, Channel: acc.channel, DisplayName: acc.displayName, ProviderIdentifier: acc.provider,
		})
	}
	contacts := slices.Collect(co.contacts.all())
	slices.SortFunc(contacts, func(a, b *contact) int {
		return cmp.Or(a.createdAt.Compare(b.createdAt), strings.Compare(a.id, b.id))
	})
	for _, ct := range contacts {
		cs.Contacts = append(cs.Contacts, ct.export())
	}
	for _, cv := range co.conversations {
		cs.Conversations = append(cs.Conversations, cv.export())
		if n := len(cv.msgs); n > 0 && cv.msgs[n-1].time().After(now) {
			cs.AllowFuture = true
		}
	}
	return cs
}

// export is the contact as seeding takes it back.
func (ct *contact) export() Contact {
	out := Contact{
		ID: ct.id, ChannelAccountID: ct.account.id, PhoneNumber: ct.phone, ChannelIdentifier: ct.ident,
		Name: ct.name, Email: deref(ct.email), Gender: deref(ct.gender), SequenceName: ct.sequenceName,
		CreatedAt: ct.createdAt,
	}
	if len(ct.customFields) > 0 {
		out.CustomFields = maps.Clone(ct.customFields)
	}
	for _, t := range ct.tags {
		out.Tags = append(out.Tags, t.name)
		out.TagIDs = append(out.TagIDs, t.id)
	}
	if ct.sequence == SequenceCanceled {
		out.SequenceStatus = SequenceCanceled
	}
	return out
}

// export is the conversation with its messages. Its created_at is the one
// it had before any message: loading the messages moves it back as they
// moved it here.
func (cv *conversation) export() Conversation {
	out := Conversation{
		ID: cv.ID, ContactID: cv.contact.id, Status: cv.status, AssignedTo: cv.assignedTo,
		CreatedAt: cv.createdAt0,
	}
	if cv.unreadOverride != nil {
		n := *cv.unreadOverride
		out.UnreadCount = &n
	}
	for _, m := range cv.msgs {
		out.Messages = append(out.Messages, m.export())
	}
	return out
}

// export is the message with every time explicit and its media's content.
func (m *message) export() Message {
	out := Message{
		MessageID: m.id(), Sender: m.from(), Direction: m.direction(), Type: m.msgType(),
		Text: m.text, At: m.time(), FailureReason: m.failureReason(), Status: convo.MessageStatus(m.statusText()),
		DeliveredAt: m.deliveredAt(), ReadAt: m.readAt(),
	}
	if md := m.media(); md != nil {
		out.Media = md.export()
	}
	for _, r := range m.reactions() {
		out.Reactions = append(out.Reactions, Reaction{Emoji: r.Emoji, Direction: r.Direction, ReactedAt: time.Time(r.ReactedAt)})
	}
	return out
}

// export is the media block; an available file carries its id and bytes.
func (md *media) export() *Media {
	out := &Media{MediaStatus: md.MediaStatus, MimeType: deref(md.MimeType), Filename: deref(md.Filename)}
	if md.MediaID != nil {
		out.MediaID = *md.MediaID
		out.Data = slices.Clone(md.data)
		return out
	}
	if md.FileSize != nil {
		out.FileSize = *md.FileSize
	}
	return out
}
