package fake

import (
	"crypto/rand"
	"crypto/sha256"
	"iter"
	"slices"
	"sort"
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
	start *startSeed

	accounts     []*account // channel accounts and webchat widgets, in creation order
	accountsByID map[string]*account

	contacts        byID[*contact]
	contactsByPhone map[uint64]*contact // phoneKey(normalized phone) -> a contact with it, the others by samePhone
	// A contact is unique per account and phone, or, without a phone, per
	// account and channel identifier: contactOn finds the first kind
	// among those with the phone, contactsByIdent holds the others.
	contactsByIdent map[identKey]*contact

	conversations []*conversation // creation order
	convBlock     []conversation  // where newConversation takes the next one from
	convsByID     byID[*conversation]

	media map[string]*media // media_id -> media of this company

	// messages finds the company's messages by id. Ids are unique within
	// a company, across accounts, contacts, conversations and messages
	// (object), but only within it: two tenants loaded from one fixture
	// hold the same ids, each its own.
	messages byID[*message]
	// encoded keeps the JSON of the company's messages read lately.
	encoded messageCache

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
	order   []*conversation
	orderMu sync.Mutex
	// cursorSeq is the latest moment (insert sequence) a conversation
	// cursor of the company lists the conversations as of.
	cursorSeq atomic.Uint64
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

// contactOn returns the contact with the given normalized phone on the
// account, nil for none.
func (co *company) contactOn(accountID, norm string) *contact {
	for ct := range co.withPhone(norm) {
		if ct.account.id == accountID {
			return ct
		}
	}
	return nil
}

// withPhone yields the company's contacts with the given normalized phone,
// on every account.
func (co *company) withPhone(norm string) iter.Seq[*contact] {
	return func(yield func(*contact) bool) {
		for ct := co.contactsByPhone[phoneKey(norm)]; ct != nil; ct = ct.samePhone {
			if !yield(ct) {
				return
			}
		}
	}
}

// newConversation returns a zero conversation of the company. They are
// made in blocks, each next to the one before in memory, so that a pass over
// them all (the anomaly report reads every one) reads memory in order, which
// the processor fetches ahead, rather than objects scattered among the
// messages and contacts made between them. Blocks grow from 8 to 1,024, so
// that a small company sets little aside.
func (co *company) newConversation() *conversation {
	if len(co.convBlock) == cap(co.convBlock) {
		co.convBlock = make([]conversation, 0, min(max(8, 2*cap(co.convBlock)), 1024))
	}
	co.convBlock = co.convBlock[:len(co.convBlock)+1]
	return &co.convBlock[len(co.convBlock)-1]
}

// phoneKey is a normalized phone (8 to 15 digits, phone.Normalize) as a
// map key: its digit count and its value, one for one. A number key is
// hashed and compared without reading the phone's bytes elsewhere in the
// heap, which, when the map grows past a million contacts, every move of
// an entry would.
func phoneKey(norm string) uint64 {
	var v uint64
	for i := range len(norm) {
		v = v*10 + uint64(norm[i]-'0')
	}
	return uint64(len(norm))<<56 | v
}

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
	customFields      map[string]string // nil until one is set
	samePhone         *contact          // the next contact of the company with the same phone
	sequence          string            // "", SequenceScheduled, SequenceCanceled
	sequenceName      string
	createdAt         time.Time
	lastMessageAt     time.Time // latest message of any of its conversations
	conversationCount int
}

// conversation is a stored conversation. Its item of GET /conversations
// is made from it when it is read (wire).
type conversation struct {
	// What the anomaly report reads of every conversation comes first,
	// together (computeAnomalies).
	// They fit in one 64-byte cache line, which a report over a million
	// conversations is bound by.
	lastInbound   *message // derived from msgs, maintained on insert (see recompute)
	lastInboundAt int64    // lastInbound's time, Unix nanoseconds (no pointer to follow)
	repliesAfter  int32    // outbound replies (agent, phone, automation) after lastInbound, not failed
	humanAfter    int32    // of which from a person (agent, phone)
	assignedTo    string
	status        convo.ConversationStatus
	account       *account

	ID string

	company    *company
	contact    *contact
	createdAt  time.Time
	createdSeq uint64
	// createdAt0 is createdAt before any message: a backfilled message can
	// move createdAt back, but a conversation cursor sorts a conversation
	// that had no message yet by the createdAt it had then, so a cursor stays valid while messages arrive.
	createdAt0 time.Time

	msgs []*message // sorted ascending by (at, id)
	// version moves whenever a message is added or changes: a message page
	// kept encoded is good while it has not moved (messageCache).
	version uint64

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
		contacts:        newByID[*contact](),
		contactsByPhone: map[uint64]*contact{},
		contactsByIdent: map[identKey]*contact{},
		convsByID:       newByID[*conversation](),
		media:           map[string]*media{},
		tagsByName:      map[string]*tag{},
		tagsByID:        map[string]*tag{},
		anomalyCache:    map[anomalyCacheKey]*anomalyResult{},
		messages:        newByID[*message](),
	}
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// newToken is the secret part of a temporary attachment URL: 130 random
// bits in base32, safe in a path.
func newToken() string { return rand.Text() }

// insertMessage places m in c.msgs (binary search; appending is the common
// case) and updates the derived fields.
func (c *conversation) insertMessage(m *message, seq uint64) {
	c.version++
	n := len(c.msgs)
	if n == 0 || c.msgs[n-1].before(m) {
		c.msgs = append(c.msgs, m)
		c.appendDerived(m)
	} else {
		i := sort.Search(n, func(i int) bool { return m.before(c.msgs[i]) })
		c.msgs = slices.Insert(c.msgs, i, m)
		c.recompute()
	}
	at := m.time()
	if at.After(c.lastMessageAt) {
		c.lastMessageAt = at
		c.noteLastMessageAt(seq, at)
		c.company.noteMove(c, seq)
	}
	if at.Before(c.createdAt) {
		c.createdAt = at // a conversation cannot start after its first message
	}
	if ct := c.contact; at.After(ct.lastMessageAt) {
		ct.lastMessageAt = at
	}
	c.syncLastInbound()
}

// syncLastInbound keeps lastInboundAt, which the anomaly report reads, beside the other fields it reads.
func (c *conversation) syncLastInbound() {
	c.lastInboundAt = 0
	if c.lastInbound != nil {
		c.lastInboundAt = c.lastInbound.at
	}
}

// countsAsInbound: the contact spoke. System messages (by sender or by
// type) never count.
func (m *message) countsAsInbound() bool {
	return !m.out && m.from() != SenderSystem && m.msgType() != convo.MessageSystem
}

// countsAsReply: something was sent to the contact (docs/behaviour.md, "Anomaly report": unanswered).
// System messages (by sender or by type) never count.
func (m *message) countsAsReply() bool {
	s := m.from()
	return m.out && m.msgType() != convo.MessageSystem && (s == SenderAgent || s == SenderPhone || s == SenderAutomation)
}

// failed: the message has status failed, so nothing went out.
func (m *message) failed() bool { return m.statusText() == "failed" }

func (m *message) human() bool { s := m.from(); return s == SenderAgent || s == SenderPhone }

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

// noteLastMessageAt records that last_message_at became at at seq. A
// point no cursor can ask for is replaced rather than kept: the latest point
// was made after every cursor handed out so far (no listing's moment lies
// between it and seq), so a bulk load keeps one point per conversation,
// not one per message.
func (c *conversation) noteLastMessageAt(seq uint64, at time.Time) {
	h := c.lmaHistory
	if n := len(h); n > 0 && h[n-1].seq > c.company.cursorSeq.Load() {
		h[n-1] = lmaPoint{seq: seq, at: at}
		return
	}
	c.lmaHistory = append(h, lmaPoint{seq: seq, at: at})
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
