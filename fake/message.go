package fake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
)

// message is a stored message, in the smallest form that serves every read:
// 64 bytes plus its text for a text message with a UUID id. The id is kept
// as 16 bytes when it is a UUID written the way the fake writes them
// (lowercase, hyphenated), the time as Unix nanoseconds, the direction,
// type, sender and status as small codes; what few messages have (media,
// reactions, a failure reason, delivered and read times other than the ones
// the status implies, an id or a type of another form) is in more. The wire
// form is made from it when the message is read (wire), never kept with it.
type message struct {
	conv   *conversation
	text   string       // "" is null
	more   *messageMore // nil for a message with nothing of the above
	at     int64        // Unix nanoseconds (the storage order, with the id)
	uuid   [16]byte     // the id, unless more.id is set
	out    bool         // outbound; else inbound
	typ    uint8        // index in messageTypes; typeOther: more.typ
	sender uint8        // index in senders
	status uint8        // index in messageStatuses; 0 is none (null)
}

// messageMore is what a message rarely has.
type messageMore struct {
	id                  string            // the id when it is not a UUID in the fake's form
	typ                 convo.MessageType // the type when it is none of messageTypes
	media               *media
	reactions           []reaction
	failureReason       string
	deliveredAt, readAt *time.Time // given by the seed; else the status implies them
}

// The codes of a message's enumerations.
var (
	messageTypes = []convo.MessageType{convo.MessageText, convo.MessageImage, convo.MessageDocument,
		convo.MessageAudio, convo.MessageVideo, convo.MessageSticker, convo.MessageLocation,
		convo.MessageContact, convo.MessageSystem, convo.MessageUnsupported}
	senders         = []Sender{SenderContact, SenderAgent, SenderPhone, SenderAutomation, SenderSystem}
	messageStatuses = []string{"", "queued", "sent", "delivered", "read", "failed"}
)

// typeOther is the type code of a type that is not in messageTypes.
const typeOther = 0xff

// The earliest and latest times a message can have: those of Unix
// nanoseconds in an int64 (1677-09-21 to 2262-04-11).
var (
	minMessageTime = time.Unix(0, -1<<63)
	maxMessageTime = time.Unix(0, 1<<63-1)
)

// nanos is t in Unix nanoseconds, held to the range a message's time can
// have (a query may ask for any time).
func nanos(t time.Time) int64 {
	switch {
	case t.Before(minMessageTime):
		return minMessageTime.UnixNano()
	case t.After(maxMessageTime):
		return maxMessageTime.UnixNano()
	}
	return t.UnixNano()
}

func codeOf[T comparable](table []T, v T) (uint8, bool) {
	for i, t := range table {
		if t == v {
			return uint8(i), true
		}
	}
	return 0, false
}

// extra returns m.more, made on first use.
func (m *message) extra() *messageMore {
	if m.more == nil {
		m.more = &messageMore{}
	}
	return m.more
}

// setID stores id: as 16 bytes when it is a UUID in the fake's form, else
// as it is.
func (m *message) setID(id string) { m.setParsedID(parseID(id)) }

// setParsedID is setID of an id parsed already.
func (m *message) setParsedID(id parsedID) {
	if id.isUUID {
		m.uuid = id.uuid
		return
	}
	m.extra().id = id.text
}

// parseUUID reads a UUID written the way newUUID writes them (lowercase,
// hyphenated): only that form turns back into the same string. It reads
// each hex pair through a table, in one pass: a load parses every id it
// stores, and a copy of the digits then hex.Decode took twice as long.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	var bad byte
	for i, at := range uuidPairs {
		hi, lo := hexValue[s[at]], hexValue[s[at+1]]
		bad |= hi | lo
		u[i] = hi<<4 | lo
	}
	if bad > 0xf { // a byte that is no lowercase hex digit
		return [16]byte{}, false
	}
	return u, true
}

// uuidPairs are the offsets of the 16 hex pairs of a hyphenated UUID.
var uuidPairs = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue is the value of each lowercase hex digit, 0xff for any other
// byte.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
	}
	return t
}()

// formatUUID writes u as newUUID does.
func formatUUID(u [16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], u[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], u[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], u[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], u[8:10])
	out[23] = '-'
	hex.Encode(out[24:], u[10:])
	return string(out[:])
}

// id is the message id.
func (m *message) id() string {
	if m.more != nil && m.more.id != "" {
		return m.more.id
	}
	return formatUUID(m.uuid)
}

// hasUUID reports whether the id is kept as 16 bytes.
func (m *message) hasUUID() bool { return m.more == nil || m.more.id == "" }

// compareID orders messages by id as strings compare: two UUIDs in the
// fake's form compare as their bytes do.
func (m *message) compareID(o *message) int {
	if m.hasUUID() && o.hasUUID() {
		return bytes.Compare(m.uuid[:], o.uuid[:])
	}
	return strings.Compare(m.id(), o.id())
}

// before reports whether m comes before o in a conversation's storage
// order: by time, then id.
func (m *message) before(o *message) bool {
	if m.at != o.at {
		return m.at < o.at
	}
	return m.compareID(o) < 0
}

// time is when the message was sent, in UTC.
func (m *message) time() time.Time { return time.Unix(0, m.at).UTC() }

func (m *message) direction() convo.Direction {
	if m.out {
		return convo.DirectionOutbound
	}
	return convo.DirectionInbound
}

func (m *message) msgType() convo.MessageType {
	if m.typ == typeOther {
		return m.more.typ
	}
	return messageTypes[m.typ]
}

func (m *message) setType(t convo.MessageType) {
	if c, ok := codeOf(messageTypes, t); ok {
		m.typ = c
		return
	}
	m.typ = typeOther
	m.extra().typ = t
}

func (m *message) from() Sender { return senders[m.sender] }

// statusText is the delivery status, "" for none (null).
func (m *message) statusText() string { return messageStatuses[m.status] }

func (m *message) media() *media {
	if m.more == nil {
		return nil
	}
	return m.more.media
}

func (m *message) reactions() []reaction {
	if m.more == nil {
		return nil
	}
	return m.more.reactions
}

func (m *message) failureReason() string {
	if m.more == nil {
		return ""
	}
	return m.more.failureReason
}

// deliveredAt is the seed's delivered time, else the one the status
// implies: a second after the message when delivered or read.
func (m *message) deliveredAt() *time.Time {
	if m.more != nil && m.more.deliveredAt != nil {
		t := *m.more.deliveredAt
		return &t
	}
	if st := m.statusText(); st == "delivered" || st == "read" {
		t := m.time().Add(time.Second)
		return &t
	}
	return nil
}

// readAt is the seed's read time, else the one the status implies: a
// minute after the message when read.
func (m *message) readAt() *time.Time {
	if m.more != nil && m.more.readAt != nil {
		t := *m.more.readAt
		return &t
	}
	if m.statusText() == "read" {
		t := m.time().Add(time.Minute)
		return &t
	}
	return nil
}

// sentAt is the message's time, except while it is queued (null).
func (m *message) sentAt() *time.Time {
	if m.statusText() == "queued" {
		return nil
	}
	t := m.time()
	return &t
}

// messageWire is a message as GET /conversations/{conversation_id}/messages
// shows it.
type messageWire struct {
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
}

// wire is the message as the API shows it.
func (m *message) wire() messageWire {
	w := messageWire{MessageID: m.id(), Direction: m.direction(), Type: m.msgType(),
		Status: optString(m.statusText()), Text: optString(m.text), Media: m.media(),
		Reactions: m.reactions(), SentAt: (*stamp)(m.sentAt()), DeliveredAt: (*stamp)(m.deliveredAt()),
		ReadAt: (*stamp)(m.readAt()), FailureReason: optString(m.failureReason()), Raw: raw{m}}
	if w.Reactions == nil {
		w.Reactions = []reaction{}
	}
	return w
}

// encode is the message in JSON, as the API shows it.
func (m *message) encode() []byte {
	b, _ := json.Marshal(m.wire()) // nothing in a message fails to encode
	return b
}

// raw is the raw object of a message: an internal-looking form of the
// content, outside the contract (docs/behaviour.md, "Messages"). It carries
// the sender kind and never a URL or a storage path; system and unsupported
// messages have none (null).
type raw struct{ m *message }

// MarshalJSON implements json.Marshaler.
func (r raw) MarshalJSON() ([]byte, error) {
	m := r.m
	typ := m.msgType()
	if typ == convo.MessageSystem || typ == convo.MessageUnsupported {
		return []byte("null"), nil
	}
	var c struct {
		Body     *string           `json:"body,omitempty"`
		FileSize *int64            `json:"file_size,omitempty"`
		MimeType *string           `json:"mime_type,omitempty"`
		Type     convo.MessageType `json:"type"`
	}
	c.Body, c.Type = optString(m.text), typ
	if md := m.media(); md != nil && md.MediaID != nil {
		c.MimeType, c.FileSize = md.MimeType, md.FileSize
	}
	return json.Marshal(struct {
		Content           any    `json:"content"`
		Origin            Sender `json:"origin"`
		ProviderMessageID string `json:"provider_message_id"`
	}{c, m.from(), "pmid." + strings.ReplaceAll(m.id(), "-", "")})
}
