package fake

import (
	"encoding/json"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/stretchr/testify/assert"
)

// wireMessage is a message of spec §2.3. No field ever holds a URL or a
// storage path (rule 1).
type wireMessage struct {
	MessageID     string         `json:"message_id"`
	Direction     string         `json:"direction"`
	Type          string         `json:"type"`
	Status        *string        `json:"status"`
	Text          *string        `json:"text"`
	Media         *wireMedia     `json:"media"`
	Reactions     []wireReaction `json:"reactions"`
	SentAt        *string        `json:"sent_at"`
	DeliveredAt   *string        `json:"delivered_at"`
	ReadAt        *string        `json:"read_at"`
	FailureReason *string        `json:"failure_reason"`
	Raw           map[string]any `json:"raw"`
}

// wireMedia is the media block: always present on a media message (rule 2),
// media_id null unless available (rule 3).
type wireMedia struct {
	MediaID     *string `json:"media_id"`
	MediaStatus string  `json:"media_status"`
	MimeType    *string `json:"mime_type"`
	FileSize    *int64  `json:"file_size"`
	Filename    *string `json:"filename"`
}

// wireReaction is a reaction entry (D15).
type wireReaction struct {
	Emoji     string `json:"emoji"`
	Direction string `json:"direction"`
	ReactedAt string `json:"reacted_at"`
}

// referenceEncoding is the encoding/json rendering appendMessage must match.
func referenceEncoding(m *message) []byte {
	wm := wireMessage{
		MessageID: m.id, Direction: string(m.direction), Type: string(m.typ), Status: m.status, Text: m.text,
		Reactions: make([]wireReaction, 0, len(m.reactions)),
		SentAt:    optTime(m.sentAt), DeliveredAt: optTime(m.deliveredAt), ReadAt: optTime(m.readAt),
		FailureReason: m.failureReason,
	}
	if m.typ != "system" && m.typ != "unsupported" {
		wm.Raw = rawFor(m)
	}
	if md := m.media; md != nil {
		wm.Media = &wireMedia{MediaStatus: string(md.status), MimeType: md.mime, FileSize: md.size, Filename: md.filename}
		if md.status == convo.MediaAvailable {
			id := md.id
			wm.Media.MediaID = &id
		}
	}
	for _, r := range m.reactions {
		wm.Reactions = append(wm.Reactions, wireReaction{Emoji: r.emoji, Direction: string(r.direction), ReactedAt: formatTime(r.at)})
	}
	b, _ := json.Marshal(wm)
	return b
}

func TestAppendMessageMatchesEncodingJSON(t *testing.T) {
	str := func(s string) *string { return &s }
	at := time.Date(2026, 11, 22, 10, 0, 0, 123e6, time.UTC)
	size := int64(2048)
	tests := map[string]*message{
		"plain text": {id: "0b9c-11", direction: convo.DirectionInbound, sender: SenderContact, typ: "text", text: str("hello"), at: at, sentAt: &at},
		"escapes": {id: "id<&>\"\\", direction: convo.DirectionOutbound, sender: SenderAgent, typ: "text",
			text: str("<b>\"quoted\" & \\ \n\t\x01 é 😀 \u2028 \xff</b>"), status: str("failed"), failureReason: str("a\u2029b"),
			at: at, sentAt: &at, deliveredAt: &at, readAt: &at},
		"media available": {id: "m-1", direction: convo.DirectionInbound, sender: SenderContact, typ: "image", at: at,
			media:     &media{id: "media-1", status: convo.MediaAvailable, mime: str("image/png"), size: &size, filename: str("a b.png")},
			reactions: []reaction{{emoji: "👍", direction: convo.DirectionOutbound, at: at}, {emoji: "<3", direction: convo.DirectionInbound, at: at}}},
		"media unknown": {id: "m-2", direction: convo.DirectionInbound, sender: SenderContact, typ: "document", at: at,
			media: &media{status: "unknown", mime: str("application/pdf")}},
		"system": {id: "m-3", direction: convo.DirectionOutbound, sender: SenderSystem, typ: "system", at: at},
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, string(referenceEncoding(m)), string(appendMessage(nil, m)))
		})
	}
}

func TestAppendTimeFastMatchesTheLayout(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 22, 10, 4, 5, 123456789, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2024, 2, 29, 7, 8, 9, 5e6, time.FixedZone("x", -3*3600)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		assert.Equal(t, string(appendTime(nil, tm)), string(appendTimeFast(nil, tm)), tm.String())
	}
}
