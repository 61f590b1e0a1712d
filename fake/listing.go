package fake

import "slices"

// This file holds the listings a tool shows a company with (cmd/convofake's
// page and admin API): they read the store under the read lock and nothing
// else. Unlike the same reads through the API, they add no journal entry,
// take no rate-limit token, neither read nor fill the anomaly cache, create
// no temporary file link and never move the clock, so that looking at a
// company changes nothing the API answers.

// Channels returns the company's channel accounts and webchat widgets
// (Channel convo.ChannelWebchat), in creation order; nil when the company
// no longer exists. GET /channels lists the accounts, never the widgets.
func (c *Company) Channels() []ChannelAccount {
	var out []ChannelAccount
	c.read(func(co *company) {
		out = make([]ChannelAccount, 0, len(co.accounts))
		for _, a := range co.accounts {
			out = append(out, ChannelAccount{ID: a.id, Channel: a.channel, DisplayName: a.displayName, ProviderIdentifier: a.provider})
		}
	})
	return out
}

// Conversations returns the company's conversations of every status, in
// the order of GET /conversations: the most recent last_message_at first
// (created_at for a conversation without messages), ties by id descending.
func (c *Company) Conversations() []Conversation {
	var out []Conversation
	c.read(func(co *company) {
		convs := slices.Clone(co.conversations)
		slices.SortFunc(convs, func(a, b *conversation) int {
			if listsBefore(a.listKey(), a.ID, b.listKey(), b.ID) {
				return -1
			}
			return 1
		})
		out = make([]Conversation, len(convs))
		for i, cv := range convs {
			out[i] = cv.state()
		}
	})
	return out
}

// Messages returns the messages of the company's conversation, oldest
// first (by time, then id), each as [Server.Message] shows it; false when
// the company has no such conversation. Unlike the API's read, it has no
// time window: every message is listed.
func (c *Company) Messages(conversationID string) ([]Message, bool) {
	var out []Message
	found := false
	c.read(func(co *company) {
		cv := co.convsByID.get(conversationID)
		if cv == nil {
			return
		}
		found = true
		out = make([]Message, len(cv.msgs))
		for i, m := range cv.msgs {
			out[i] = m.state()
		}
	})
	return out, found
}

// LastMessage returns the latest message of the company's conversation
// (by time, then id); false when there is none.
func (c *Company) LastMessage(conversationID string) (Message, bool) {
	var out Message
	found := false
	c.read(func(co *company) {
		if cv := co.convsByID.get(conversationID); cv != nil && len(cv.msgs) > 0 {
			out, found = cv.msgs[len(cv.msgs)-1].state(), true
		}
	})
	return out, found
}

// AnomalyBuckets returns the ids of the company's conversations in each
// bucket of GET /conversations/anomalies (all four, by name: unanswered,
// never_engaged, unassigned, automation_only), worst first (never_engaged:
// in creation order), as the report would compute them now on the server's
// clock with threshold_hours thresholdHours (1 to 24; another value is
// taken as [DefaultThresholdHours]). Every member is listed, not only the
// report's 100 worst. It computes from the store: the report's cache is
// neither read nor filled, so the next API call answers as it would have.
func (c *Company) AnomalyBuckets(thresholdHours int) map[string][]string {
	if thresholdHours < 1 || thresholdHours > 24 {
		thresholdHours = DefaultThresholdHours
	}
	now := c.s.clock.Now()
	out := map[string][]string{}
	for _, b := range validBuckets {
		out[b] = []string{}
	}
	c.read(func(co *company) {
		w := newAnomalyWindow(thresholdHours)
		members := map[string][]*conversation{}
		for _, cv := range co.conversations {
			for _, b := range w.bucketsOf(cv, now).names() {
				members[b] = append(members[b], cv)
			}
		}
		for b, cs := range members {
			if b != BucketNeverEngaged {
				slices.SortFunc(cs, func(x, y *conversation) int {
					if worse(x, y) {
						return -1
					}
					return 1
				})
			}
			for _, cv := range cs {
				out[b] = append(out[b], cv.ID)
			}
		}
	})
	return out
}

// MediaData returns the company's available file with that media_id, with
// its content in Data (as [Company.AddMessage] takes it); false when the
// company has none. Unlike GET /attachments/{media_id}, it gives no
// temporary link.
func (c *Company) MediaData(mediaID string) (Media, bool) {
	var out Media
	found := false
	c.read(func(co *company) {
		md := co.media[mediaID]
		if md == nil || md.MediaID == nil {
			return
		}
		found = true
		out = Media{MediaStatus: md.MediaStatus, MediaID: *md.MediaID, MimeType: deref(md.MimeType), Filename: deref(md.Filename),
			FileSize: int64(len(md.data)), Data: slices.Clone(md.data)}
	})
	return out, found
}

// read runs f on the company under the read lock; not at all when the
// company no longer exists.
func (c *Company) read(f func(co *company)) {
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	if co := c.s.byID[c.id]; co != nil {
		f(co)
	}
}
