package fake_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

type msgPage struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"next_cursor"`
	Window     map[string]any   `json:"window"`
}

func readMessages(t *testing.T, s *fake.Server, conv string, q url.Values) msgPage {
	t.Helper()
	r := get(t, s, "/conversations/"+conv+"/messages?"+q.Encode())
	var p msgPage
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
	return p
}

func ids(items []map[string]any) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it["message_id"].(string))
	}
	return out
}

func TestMessagesExactShapes(t *testing.T) {
	s, b := newBasic(t)
	co := b.co
	conv := co.AddConversation(fake.Conversation{ContactID: b.ana})
	at := func(h int) time.Time { return t0.Add(-time.Duration(h) * time.Hour) }
	mText := co.AddMessage(conv, fake.Message{MessageID: "m-text", Sender: fake.SenderContact, Text: "Hi there", At: at(10),
		Reactions: []fake.Reaction{{Emoji: "👍", Direction: convo.DirectionOutbound, ReactedAt: at(9)}}})
	mImg := co.AddMessage(conv, fake.Message{MessageID: "m-img", Sender: fake.SenderAgent, Text: "Our catalog", Status: "read", At: at(8),
		Media: &fake.Media{MimeType: "image/jpeg", Filename: "catalog.jpg", Data: []byte("jpegdata")}})
	co.AddMessage(conv, fake.Message{MessageID: "m-unknown", Sender: fake.SenderContact, Type: "audio", At: at(7),
		Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "audio/ogg"}})
	co.AddMessage(conv, fake.Message{MessageID: "m-noref", Sender: fake.SenderContact, Type: "document", At: at(6)})
	co.AddMessage(conv, fake.Message{MessageID: "m-sys", Sender: fake.SenderSystem, At: at(5)})
	co.AddMessage(conv, fake.Message{MessageID: "m-unsup", Sender: fake.SenderContact, Type: "unsupported", At: at(4)})
	co.AddMessage(conv, fake.Message{MessageID: "m-failed", Sender: fake.SenderAutomation, Text: "Reminder", Status: "failed", FailureReason: "outside session window", At: at(3)})
	mediaID := s.MediaID(mImg)
	require.NotEmpty(t, mediaID)
	_ = mText

	r := get(t, s, "/conversations/"+conv+"/messages")
	data := r.Data(t, 200)
	assert.JSONEq(t, `{"items":[
	 {"message_id":"m-failed","direction":"outbound","type":"text","status":"failed","text":"Reminder","media":null,"reactions":[],
	  "sent_at":"2026-11-22T07:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":"outside session window",
	  "raw":{"provider_message_id":"pmid.mfailed","origin":"automation","content":{"type":"text","body":"Reminder"}}},
	 {"message_id":"m-unsup","direction":"inbound","type":"unsupported","status":null,"text":null,"media":null,"reactions":[],
	  "sent_at":"2026-11-22T06:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
	 {"message_id":"m-sys","direction":"outbound","type":"system","status":null,"text":null,"media":null,"reactions":[],
	  "sent_at":"2026-11-22T05:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,"raw":null},
	 {"message_id":"m-noref","direction":"inbound","type":"document","status":null,"text":null,
	  "media":{"media_id":null,"media_status":"no_reference","mime_type":null,"file_size":null,"filename":null},"reactions":[],
	  "sent_at":"2026-11-22T04:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,
	  "raw":{"provider_message_id":"pmid.mnoref","origin":"contact","content":{"type":"document"}}},
	 {"message_id":"m-unknown","direction":"inbound","type":"audio","status":null,"text":null,
	  "media":{"media_id":null,"media_status":"unknown","mime_type":"audio/ogg","file_size":null,"filename":null},"reactions":[],
	  "sent_at":"2026-11-22T03:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,
	  "raw":{"provider_message_id":"pmid.munknown","origin":"contact","content":{"type":"audio"}}},
	 {"message_id":"m-img","direction":"outbound","type":"image","status":"read","text":"Our catalog",
	  "media":{"media_id":"`+mediaID+`","media_status":"available","mime_type":"image/jpeg","file_size":8,"filename":"catalog.jpg"},"reactions":[],
	  "sent_at":"2026-11-22T02:00:00.000Z","delivered_at":"2026-11-22T02:00:01.000Z","read_at":"2026-11-22T02:01:00.000Z","failure_reason":null,
	  "raw":{"provider_message_id":"pmid.mimg","origin":"agent","content":{"type":"image","body":"Our catalog","mime_type":"image/jpeg","file_size":8}}},
	 {"message_id":"m-text","direction":"inbound","type":"text","status":null,"text":"Hi there","media":null,
	  "reactions":[{"emoji":"👍","direction":"outbound","reacted_at":"2026-11-22T01:00:00.000Z"}],
	  "sent_at":"2026-11-22T00:00:00.000Z","delivered_at":null,"read_at":null,"failure_reason":null,
	  "raw":{"provider_message_id":"pmid.mtext","origin":"contact","content":{"type":"text","body":"Hi there"}}}
	],"next_cursor":null,"window":{"recent_window_days":30,"since":"2026-10-23T10:00:00.000Z"}}`, data)
	// No URL or storage path anywhere, no count.
	assert.NotContains(t, data, "http")
	assert.NotContains(t, data, "/_files")
	assert.NotContains(t, data, "count")
}

func TestMessagesForgedCursor(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	conv2 := b.co.AddConversation(fake.Conversation{ContactID: b.ana, Status: convo.ConversationResolved})
	for i := 0; i < 3; i++ {
		b.co.Inbound(conv, "x", t0.Add(-time.Duration(i+1)*time.Minute))
	}
	p := readMessages(t, s, conv, url.Values{"limit": {"1"}})
	require.NotNil(t, p.NextCursor)
	good := *p.NextCursor
	payload, sig, _ := strings.Cut(good, ".")
	tampered := payload[:len(payload)-2] + "AA." + sig
	for name, c := range map[string]string{
		"garbage": "abc", "empty": "", "tampered": tampered, "no signature": payload, "bad base64": "!!!.!!!",
	} {
		t.Run(name, func(t *testing.T) {
			r := get(t, s, "/conversations/"+conv+"/messages?cursor="+url.QueryEscape(c))
			assertError(t, r, 400, "INVALID_PARAM", "", "/api/v1/conversations/"+conv+"/messages", "GET", "")
		})
	}
	// A real cursor of another conversation is not valid here.
	r := get(t, s, "/conversations/"+conv2+"/messages?cursor="+url.QueryEscape(good))
	assertError(t, r, 400, "INVALID_PARAM", "", "/api/v1/conversations/"+conv2+"/messages", "GET", "")
}

func TestReactionsAreNeverItems(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	m := b.co.Reply(conv, fake.SenderAgent, "Deal?", t0.Add(-time.Hour))
	b.co.AddReaction(m, fake.Reaction{Emoji: "❤️"})
	b.co.AddReaction(m, fake.Reaction{Emoji: "👍", ReactedAt: t0.Add(-10 * time.Minute)})
	p := readMessages(t, s, conv, nil)
	require.Len(t, p.Items, 1)
	raw, _ := json.Marshal(p.Items[0]["reactions"])
	assert.JSONEq(t, `[{"emoji":"❤️","direction":"inbound","reacted_at":"2026-11-22T09:01:00.000Z"},
	  {"emoji":"👍","direction":"inbound","reacted_at":"2026-11-22T09:50:00.000Z"}]`, string(raw))
}

// listMessages (docs/behaviour.md, Messages and Attachments): the media block is present on every
// media type (image, document, audio, video, sticker), media_id is null
// unless available, the other types have media null, and system and
// unsupported messages have text, media and raw null whatever was seeded.
// A default filename does not depend on the machine's MIME database.
func TestMediaBlockByType(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	noRef := `{"media_id":null,"media_status":"no_reference","mime_type":null,"file_size":null,"filename":null}`
	tests := []struct {
		name  string
		msg   fake.Message
		media string // expected JSON of media; "" for null
		text  string // expected JSON of text
	}{
		{"image without media", fake.Message{Type: "image"}, noRef, "null"},
		{"document without media", fake.Message{Type: "document"}, noRef, "null"},
		{"audio without media", fake.Message{Type: "audio"}, noRef, "null"},
		{"video without media", fake.Message{Type: "video"}, noRef, "null"},
		{"sticker without media", fake.Message{Type: "sticker"}, noRef, "null"},
		{"sticker unknown", fake.Message{Type: "sticker", Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "image/webp", FileSize: 300}},
			`{"media_id":null,"media_status":"unknown","mime_type":"image/webp","file_size":300,"filename":null}`, "null"},
		{"image explicit no_reference", fake.Message{Type: "image", Text: "caption", Media: &fake.Media{MediaStatus: convo.MediaNoReference, MimeType: "image/png"}}, noRef, `"caption"`},
		{"text", fake.Message{Text: "hi"}, "", `"hi"`},
		{"location", fake.Message{Type: "location"}, "", "null"},
		{"contact card", fake.Message{Type: "contact"}, "", "null"},
		{"system", fake.Message{Sender: fake.SenderSystem, Type: "system"}, "", "null"},
		{"unsupported", fake.Message{Type: "unsupported"}, "", "null"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.msg.MessageID = fmt.Sprintf("m%02d", i)
			tc.msg.At = t0.Add(-time.Duration(i+1) * time.Minute)
			b.co.AddMessage(conv, tc.msg)
			p := readMessages(t, s, conv, url.Values{"limit": {"100"}})
			var it map[string]any
			for _, item := range p.Items {
				if item["message_id"] == tc.msg.MessageID {
					it = item
				}
			}
			require.NotNil(t, it)
			media, _ := json.Marshal(it["media"])
			if tc.media == "" {
				assert.Equal(t, "null", string(media))
			} else {
				assert.JSONEq(t, tc.media, string(media))
			}
			text, _ := json.Marshal(it["text"])
			assert.JSONEq(t, tc.text, string(text))
			if tc.msg.Type == "system" || tc.msg.Type == "unsupported" {
				assert.Nil(t, it["raw"])
			} else {
				assert.NotNil(t, it["raw"])
			}
			assert.Equal(t, []any{}, it["reactions"])
		})
	}
	// Available media: media_id filled; default filename from a fixed table.
	m := b.co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: t0, Media: &fake.Media{MimeType: "image/jpeg", Data: []byte("jpg")}})
	p := readMessages(t, s, conv, url.Values{"limit": {"1"}})
	media, _ := json.Marshal(p.Items[0]["media"])
	assert.JSONEq(t, `{"media_id":"`+s.MediaID(m)+`","media_status":"available","mime_type":"image/jpeg","file_size":3,"filename":"file.jpg"}`, string(media))
	assert.Equal(t, "image", p.Items[0]["type"])
}

// Without since, listMessages covers exactly the last 30 days
// (docs/behaviour.md, Messages): a message exactly 30 days old, to the
// millisecond, is inside, one a millisecond older is outside, and
// window.since is that instant. With since, window.since echoes the since
// applied, in UTC, to the millisecond, and the instant applied is the one
// echoed; a since that is not an RFC 3339 date-time is INVALID_PARAM.
func TestMessagesWindowAndSince(t *testing.T) {
	now := t0.Add(500*time.Millisecond + 700*time.Microsecond) // 10:00:00.5007
	s, b := newBasic(t, fake.WithClock(fake.NewManualClock(now)))
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	start := time.Date(2026, 10, 23, 10, 0, 0, 500_000_000, time.UTC) // now - 30 days, to the ms
	in := b.co.Inbound(conv, "edge", start)
	out := b.co.Inbound(conv, "just out", start.Add(-time.Millisecond))
	old := b.co.Inbound(conv, "old", now.Add(-40*24*time.Hour))
	recent := b.co.Inbound(conv, "recent", t0.Add(-time.Hour))
	p := readMessages(t, s, conv, nil)
	assert.Equal(t, []string{recent, in}, ids(p.Items))
	assert.Equal(t, map[string]any{"recent_window_days": float64(30), "since": "2026-10-23T10:00:00.500Z"}, p.Window)

	tests := []struct {
		since, echo string
		want        []string
	}{
		{"2026-09-01T00:00:00Z", "2026-09-01T00:00:00.000Z", []string{recent, in, out, old}},
		{"2026-10-23T10:00:00.4999999Z", "2026-10-23T10:00:00.499Z", []string{recent, in, out}},
		{"2026-10-23T10:00:00.500999999Z", "2026-10-23T10:00:00.500Z", []string{recent, in}},
		{"2026-10-23T12:00:00.500+02:00", "2026-10-23T10:00:00.500Z", []string{recent, in}},
		{"2026-10-23T10:00:00.501Z", "2026-10-23T10:00:00.501Z", []string{recent}},
		{"2026-11-22T09:00:00.000Z", "2026-11-22T09:00:00.000Z", []string{recent}},
		{"2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000Z", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.since, func(t *testing.T) {
			p := readMessages(t, s, conv, url.Values{"since": {tc.since}})
			assert.Equal(t, tc.want, ids(p.Items))
			assert.Equal(t, tc.echo, p.Window["since"])
		})
	}
	for _, bad := range []string{"2026-10-23", "2026-10-23T10:00:00", "yesterday", "", "1700000000"} {
		r := get(t, s, "/conversations/"+conv+"/messages?since="+url.QueryEscape(bad))
		assertError(t, r, 400, "INVALID_PARAM", "since must be an RFC 3339 date-time, e.g. 2026-11-22T10:04:05.123Z", "/api/v1/conversations/"+conv+"/messages", "GET", "")
	}
}

// A page holds limit messages, 50 by default; TestIntegerParameters has the
// limits refused.
func TestMessagesPageSize(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	for i := 0; i < 120; i++ {
		b.co.Inbound(conv, fmt.Sprint(i), t0.Add(-time.Duration(i+1)*time.Minute))
	}
	for q, want := range map[string]int{"": 50, "limit=1": 1, "limit=100": 100} {
		r := get(t, s, "/conversations/"+conv+"/messages?"+q)
		var p msgPage
		require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
		assert.Len(t, p.Items, want, q)
	}
}

// A messages cursor neither repeats nor skips a message that existed when
// the first page was read (docs/behaviour.md, Pagination), while new
// messages arrive between pages, some at one instant (ties are ordered by
// id), or while older ones are backfilled before, between and at the times
// of messages already read.
func TestMessagesCursorStable(t *testing.T) {
	tests := []struct {
		name     string
		n, limit int
		at       func(i int) time.Time
		between  func(b basic, conv string, page int) // besides a new message a second later
		backfill bool                                 // older messages may show on later pages
	}{
		{"while messages arrive", 25, 7, func(i int) time.Time { return t0.Add(-time.Duration(25-i/2) * time.Minute) },
			func(b basic, conv string, _ int) { b.co.Reply(conv, fake.SenderAgent, "new reply", time.Time{}) }, false},
		{"while older messages are backfilled", 40, 6, func(i int) time.Time { return t0.Add(-time.Duration(100-i/3) * time.Minute) },
			func(b basic, conv string, page int) {
				b.co.Inbound(conv, "very old", t0.Add(-200*time.Minute))
				b.co.Inbound(conv, "middle", t0.Add(-time.Duration(90-page)*time.Minute))
				b.co.Reply(conv, fake.SenderAgent, "tie", t0.Add(-95*time.Minute))
			}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := fake.NewManualClock(t0)
			s := newServer(t, fake.WithClock(clock))
			b := seedBasic(t, s)
			conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
			existing := map[string]bool{}
			for i := range tc.n {
				existing[b.co.Inbound(conv, fmt.Sprint(i), tc.at(i))] = true
			}
			seen := map[string]int{}
			q := url.Values{"limit": {fmt.Sprint(tc.limit)}}
			for page := 0; ; page++ {
				require.Less(t, page, 30)
				p := readMessages(t, s, conv, q)
				for _, id := range ids(p.Items) {
					seen[id]++
				}
				tc.between(b, conv, page)
				clock.Advance(time.Second)
				b.co.Inbound(conv, "new", time.Time{})
				if p.NextCursor == nil {
					break
				}
				q = url.Values{"limit": {fmt.Sprint(tc.limit)}, "cursor": {*p.NextCursor}}
			}
			for id := range existing {
				assert.Equal(t, 1, seen[id], "message %s seen %d times", id, seen[id])
			}
			for id, n := range seen {
				assert.Equal(t, 1, n, "message %s repeated", id)
				assert.True(t, tc.backfill || existing[id], "message %s came after the first page", id)
			}
		})
	}
}
