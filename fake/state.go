package fake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	convo "github.com/convoapi/convo-go"
)

// The in-memory model. Everything below is guarded by Server.mu, the one
// state lock (miniredis style): handlers that only read take RLock, the
// others Lock. Clock, journal, faults and rate limiter have their own leaf
// locks, never held while Server.mu is being acquired.

type company struct {
	id      string
	apiKey  string
	keyHash [32]byte // sha256(apiKey): compared in constant time (auth.go)
	// channels is the data of GET /channels, encoded, while the accounts
	// it was made from are the company's (channelsData).
	channels atomic.Pointer[channelsAnswer]
	// start is the data the company was added with, which Company.Reset
	// loads again: its seed company (AddCompanySeed, or its part of the
	// seed Server.Load loaded); nil for none.
	start *CompanySeed

	accounts     []*account // channel accounts and webchat widgets, in creation order
	accountsByID map[string]*account

	contacts        map[string]*contact
	contactsByPhone map[string][]*contact // normalized phone -> contacts on every account
	contactsByIdent map[identKey]*contact // a contact is unique per (account, phone or channel identifier)

	conversations []*conversation // creation order
	convsByID     map[string]*conversation

	media map[string]*media // media_id -> media of this company

	// index maps every id of the company (account, contact, conversation,
	// message) to its object. Ids are unique within a company only: two
	// tenants loaded from one fixture hold the same ids, each its own.
	index objectIndex

	tagsByName map[string]*tag
	tagsByID   map[string]*tag

	anomalyCache map[anomalyCacheKey]*anomalyResult
	reportMu     sync.Mutex     // guards report, which readers fill
	report       *encodedReport // the latest report made of cached results

	// order lists the conversations by list key (see listKey), most recent
	// first, ties by id descending, so that a page of the conversation list
	// is a walk from the cursor rather than a sort of the whole store.
	// Writers (under Server.mu's write lock) only note what moved, in
	// moves and unordered; the next listing (under the read lock, plus
	// orderMu) puts those in place.
	order     []*conversation
	orderMu   sync.Mutex
	unordered []*conversation // created or moved since order was last brought up to date
	// moves logs (seq, conversation) for each change of a list key, in
	// seq order; a conversation's entry with seq == its movedSeq is its
	// latest. A cursor's page uses it to find the conversations whose key
	// has changed since its first page. Compacted to the latest entries.
	moves []move
}

type move struct {
	seq  uint64
	conv *conversation
}

type identKey struct{ account, ident string }

type account struct {
	id          string
	channel     convo.Channel // chatapp, botapp, webchat (webchat: a widget, never listed in /channels)
	displayName string
	provider    string
	company     *company
}

type tag struct{ id, name string }

type contact struct {
	id                string
	account           *account
	phone             string // normalized, may be empty for botapp/webchat contacts
	ident             string // native address on the channel (conversation's channel_identifier)
	name              string
	email, gender     *string
	tags              []*tag
	customFields      map[string]string
	sequence          string // "", SequenceScheduled, SequenceCanceled
	sequenceName      string
	createdAt         time.Time
	lastMessageAt     time.Time // latest message of any of its conversations
	conversationCount int
}

// conversation is a stored conversation. Its exported fields are the item
// of GET /conversations, kept up to date as it changes (syncWire).
type conversation struct {
	// What the anomaly report reads of every conversation comes first,
	// together (computeAnomalies).
	lastInbound   *message  // derived from msgs, maintained on insert (see recompute)
	lastInboundAt time.Time // lastInbound's time
	repliesAfter  int       // outbound replies (agent, phone, automation) after lastInbound, not failed
	humanAfter    int       // of which from a person (agent, phone)
	assignedTo    string

	ID                string                   `json:"id"`
	ContactID         string                   `json:"contact_id"`
	Channel           convo.Channel            `json:"channel"`
	ChannelAccountID  string                   `json:"channel_account_id"`
	ChannelIdentifier string                   `json:"channel_identifier"`
	Status            convo.ConversationStatus `json:"status"`
	Assigned          bool                     `json:"assigned"`
	UnreadCount       int                      `json:"unread_count"`
	LastInboundAt     *stamp                   `json:"last_inbound_at"`
	LastMessageAt     *stamp                   `json:"last_message_at"`
	CreatedAt         *stamp                   `json:"created_at"`

	company    *company
	contact    *contact
	account    *account
	createdAt  time.Time
	createdSeq uint64
	// createdAt0 is createdAt before any message: a backfilled message can
	// move createdAt back, but a conversation cursor sorts a conversation
	// that had no message yet by the createdAt it had then, so a cursor stays valid while messages arrive.
	createdAt0 time.Time

	msgs []*message // sorted ascending by (at, id)

	// orderKey is the list key the conversation has in company.order
	// (valid when inOrder); movedSeq the insert sequence of its latest key
	// change (creation included).
	orderKey time.Time
	inOrder  bool
	pending  bool // in company.unordered
	movedSeq uint64

	// Derived from msgs, maintained on insert (see recompute).
	lastMessageAt  time.Time // zero when no message
	unread         int       // inbound messages after the last human reply
	lmaHistory     []lmaPoint
	unreadOverride *int
}

// lmaPoint records that last_message_at became at when the global insert
// sequence was seq; conversation cursors read the list as of their first
// page, so a conversation moving to the top does not shift later pages.
type lmaPoint struct {
	seq uint64
	at  time.Time
}

// message is a stored message. Its exported fields are the message as GET
// /conversations/{conversation_id}/messages shows it, encoded once when
// written (encoded); the others are the fake's.
type message struct {
	MessageID     string            `json:"message_id"`
	Direction     convo.Direction   `json:"direction"`
	Type          convo.MessageType `json:"type"`
	Status        *string           `json:"status"`
	Text          *string           `json:"text"`
	Media         *media            `json:"media"`
	Reactions     []reaction        `json:"reactions"`
	SentAt        *stamp            `json:"sent_at"`
	DeliveredAt   *stamp            `json:"delivered_at"`
	ReadAt        *stamp            `json:"read_at"`
	FailureReason *string           `json:"failure_reason"`
	Raw           raw               `json:"raw"`

	conv    *conversation
	sender  Sender
	at      time.Time
	seq     uint64
	encoded []byte // the exported fields in JSON
}

// encode keeps the message's JSON; it runs whenever the message changes.
func (m *message) encode() {
	m.encoded, _ = json.Marshal(m) // nothing in a message fails to encode
}

// reaction is a stored reaction, as the message read shows it.
type reaction struct {
	Emoji     string          `json:"emoji"`
	Direction convo.Direction `json:"direction"`
	ReactedAt stamp           `json:"reacted_at"`
}

// media is a stored media block, as the message read shows it: on every
// media message, media_id null unless the file is available.
type media struct {
	MediaID     *string           `json:"media_id"`
	MediaStatus convo.MediaStatus `json:"media_status"`
	MimeType    *string           `json:"mime_type"`
	FileSize    *int64            `json:"file_size"`
	Filename    *string           `json:"filename"`
	data        []byte
	company     *company
}

// raw is the raw object of a message: an internal-looking form of the
// content, outside the contract (docs/behaviour.md, "Messages"). It carries
// the sender kind and never a URL or a storage path; system and unsupported
// messages have none (null).
type raw struct{ m *message }

// MarshalJSON implements json.Marshaler.
func (r raw) MarshalJSON() ([]byte, error) {
	m := r.m
	if m == nil || m.Type == convo.MessageSystem || m.Type == convo.MessageUnsupported {
		return []byte("null"), nil
	}
	var c struct {
		Body     *string           `json:"body,omitempty"`
		FileSize *int64            `json:"file_size,omitempty"`
		MimeType *string           `json:"mime_type,omitempty"`
		Type     convo.MessageType `json:"type"`
	}
	c.Body, c.Type = m.Text, m.Type
	if md := m.Media; md != nil && md.MediaID != nil {
		c.MimeType, c.FileSize = md.MimeType, md.FileSize
	}
	return json.Marshal(struct {
		Content           any    `json:"content"`
		Origin            Sender `json:"origin"`
		ProviderMessageID string `json:"provider_message_id"`
	}{c, m.sender, "pmid." + strings.ReplaceAll(m.MessageID, "-", "")})
}

// stamp is a time as the API writes every time: UTC, milliseconds
// (formatTime).
type stamp time.Time

// MarshalText implements encoding.TextMarshaler.
func (t stamp) MarshalText() ([]byte, error) {
	return time.Time(t).UTC().AppendFormat(make([]byte, 0, len(timestampLayout)), timestampLayout), nil
}

func newCompany(apiKey string) *company {
	return &company{
		id:              newUUID(),
		apiKey:          apiKey,
		keyHash:         sha256.Sum256([]byte(apiKey)),
		accountsByID:    map[string]*account{},
		contacts:        map[string]*contact{},
		contactsByPhone: map[string][]*contact{},
		contactsByIdent: map[identKey]*contact{},
		convsByID:       map[string]*conversation{},
		media:           map[string]*media{},
		tagsByName:      map[string]*tag{},
		tagsByID:        map[string]*tag{},
		anomalyCache:    map[anomalyCacheKey]*anomalyResult{},
		index:           objectIndex{},
	}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// newToken is the secret part of a temporary attachment URL: 130 random
// bits in base32, safe in a path.
func newToken() string { return rand.Text() }

// msgLess orders messages by (at, id): the storage order of a conversation.
func msgLess(at time.Time, id string, m *message) bool {
	if !at.Equal(m.at) {
		return at.Before(m.at)
	}
	return id < m.MessageID
}

// insertMessage places m in c.msgs (binary search; appending is the common
// case) and updates the derived fields.
func (c *conversation) insertMessage(m *message, seq uint64) {
	m.seq = seq
	n := len(c.msgs)
	if n == 0 || msgLess(c.msgs[n-1].at, c.msgs[n-1].MessageID, m) {
		c.msgs = append(c.msgs, m)
		c.appendDerived(m)
	} else {
		i := sort.Search(n, func(i int) bool { return msgLess(m.at, m.MessageID, c.msgs[i]) })
		c.msgs = append(c.msgs, nil)
		copy(c.msgs[i+1:], c.msgs[i:])
		c.msgs[i] = m
		c.recompute()
	}
	if m.at.After(c.lastMessageAt) {
		c.lastMessageAt = m.at
		c.LastMessageAt = (*stamp)(&c.lastMessageAt)
		c.lmaHistory = append(c.lmaHistory, lmaPoint{seq: seq, at: m.at})
		c.company.noteMove(c, seq)
	}
	if m.at.Before(c.createdAt) {
		c.createdAt = m.at // a conversation cannot start after its first message
	}
	if ct := c.contact; m.at.After(ct.lastMessageAt) {
		ct.lastMessageAt = m.at
	}
	c.syncWire()
}

// syncWire brings the list item's derived fields up to date.
func (c *conversation) syncWire() {
	c.Assigned = c.assignedTo != ""
	c.UnreadCount = c.unreadCount()
	c.LastInboundAt = nil
	if c.lastInbound != nil {
		c.lastInboundAt = c.lastInbound.at
		c.LastInboundAt = (*stamp)(&c.lastInboundAt)
	}
}

// countsAsInbound: the contact spoke. System messages (by sender or by
// type) never count.
func (m *message) countsAsInbound() bool {
	return m.Direction == convo.DirectionInbound && m.sender != SenderSystem && m.Type != "system"
}

// countsAsReply: something was sent to the contact (docs/behaviour.md, "Anomaly report": unanswered).
// System messages (by sender or by type) never count.
func (m *message) countsAsReply() bool {
	return m.Direction == convo.DirectionOutbound && m.Type != "system" &&
		(m.sender == SenderAgent || m.sender == SenderPhone || m.sender == SenderAutomation)
}

// failed: the message has status failed, so nothing went out.
func (m *message) failed() bool { return m.Status != nil && *m.Status == "failed" }

func (m *message) human() bool { return m.sender == SenderAgent || m.sender == SenderPhone }

// appendDerived updates the derived fields for a message appended at the end.
func (c *conversation) appendDerived(m *message) {
	switch {
	case m.countsAsInbound():
		c.lastInbound = m
		c.repliesAfter, c.humanAfter = 0, 0
		c.unread++
	case m.countsAsReply():
		if c.lastInbound != nil && !m.failed() { // a failed reply never went out (docs/behaviour.md, "Anomaly report")
			c.repliesAfter++
			if m.human() {
				c.humanAfter++
			}
		}
		if m.human() {
			c.unread = 0
		}
	}
}

// recompute rebuilds the derived fields after an out-of-order insert.
func (c *conversation) recompute() {
	c.lastInbound, c.repliesAfter, c.humanAfter, c.unread = nil, 0, 0, 0
	for _, m := range c.msgs {
		c.appendDerived(m)
	}
}

// lastMessageAsOf returns last_message_at as it was when the insert sequence
// stood at seq (zero time: no message yet).
func (c *conversation) lastMessageAsOf(seq uint64) time.Time {
	h := c.lmaHistory
	i := sort.Search(len(h), func(i int) bool { return h[i].seq > seq })
	if i == 0 {
		return time.Time{}
	}
	return h[i-1].at
}

func (c *conversation) unreadCount() int {
	if c.unreadOverride != nil {
		return *c.unreadOverride
	}
	return c.unread
}

// lastInteraction is the time of the contact's latest message, or its
// creation when it has none.
func (ct *contact) lastInteraction() time.Time {
	if ct.lastMessageAt.IsZero() {
		return ct.createdAt
	}
	return ct.lastMessageAt
}

// mostRecent picks, among contacts, the one with the most recent interaction
// (POST /chatapp/sequences/cancel); ties go to the most recently created, then the larger id.
func mostRecent(cs []*contact) *contact {
	var best *contact
	for _, c := range cs {
		if best == nil {
			best = c
			continue
		}
		ci, bi := c.lastInteraction(), best.lastInteraction()
		if ci.After(bi) || ci.Equal(bi) && (c.createdAt.After(best.createdAt) ||
			c.createdAt.Equal(best.createdAt) && c.id > best.id) {
			best = c
		}
	}
	return best
}
