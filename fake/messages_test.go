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
	s := newServer(t)
	b := seedBasic(t, s)
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
	co.AddMessage(conv, fake.Message{MessageID: "m-sys", Sender: fake.SenderSystem, Text: "ignored", At: at(5)})
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

func TestMessagesWindowAndSince(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	old := b.co.Inbound(conv, "old", t0.Add(-40*24*time.Hour))
	edge := b.co.Inbound(conv, "edge", t0.Add(-30*24*time.Hour)) // exactly at the window start: inside
	recent := b.co.Inbound(conv, "recent", t0.Add(-time.Hour))

	p := readMessages(t, s, conv, nil)
	assert.Equal(t, []string{recent, edge}, ids(p.Items))
	assert.Equal(t, map[string]any{"recent_window_days": float64(30), "since": "2026-10-23T10:00:00.000Z"}, p.Window)

	p = readMessages(t, s, conv, url.Values{"since": {"2026-09-01T00:00:00Z"}})
	assert.Equal(t, []string{recent, edge, old}, ids(p.Items))
	assert.Equal(t, "2026-09-01T00:00:00.000Z", p.Window["since"])

	p = readMessages(t, s, conv, url.Values{"since": {"2026-11-22T09:00:00.000Z"}})
	assert.Equal(t, []string{recent}, ids(p.Items))
}

func TestMessagesLimitValidation(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	for i := 0; i < 120; i++ {
		b.co.Inbound(conv, fmt.Sprint(i), t0.Add(-time.Duration(i+1)*time.Minute))
	}
	tests := []struct {
		q    string
		want int // items; 0: INVALID_PARAM
	}{
		{"", 50}, {"limit=1", 1}, {"limit=100", 100}, {"limit=0", 0}, {"limit=101", 0}, {"limit=abc", 0},
		{"limit=5.5", 0}, {"limit=-1", 0}, {"limit=", 0}, {"limit=%2B5", 0}, {"limit=1e2", 0},
	}
	for _, tc := range tests {
		t.Run(tc.q, func(t *testing.T) {
			r := get(t, s, "/conversations/"+conv+"/messages?"+tc.q)
			if tc.want == 0 {
				assertError(t, r, 400, "INVALID_PARAM", "limit must be an integer from 1 to 100", "/api/v1/conversations/"+conv+"/messages", "GET", "")
				return
			}
			var p msgPage
			require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
			assert.Len(t, p.Items, tc.want)
		})
	}
	r := get(t, s, "/conversations/"+conv+"/messages?since=yesterday")
	assertError(t, r, 400, "INVALID_PARAM", "", "/api/v1/conversations/"+conv+"/messages", "GET", "")
	assert.Contains(t, string(r.Body), "since")
}

func TestMessagesNotFoundIncludingOtherCompany(t *testing.T) {
	s := newServer(t)
	other := s.AddCompany("other-key")
	acc := other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := other.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222"})
	theirs := other.AddConversation(fake.Conversation{ContactID: ct})
	for _, id := range []string{theirs, "00000000-0000-4000-8000-000000000000"} {
		r := get(t, s, "/conversations/"+id+"/messages")
		assertError(t, r, 404, "CONVERSATION_NOT_FOUND", "Conversation not found.", "/api/v1/conversations/"+id+"/messages", "GET", "")
	}
	assert.Equal(t, 200, get(t, s, "/conversations/"+theirs+"/messages", bearer("other-key")).Status)
}

func TestMessagesCursorStableWhileMessagesArrive(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock))
	b := seedBasic(t, s)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	var all []string
	for i := 0; i < 25; i++ {
		// Several messages share a timestamp: ties are ordered by id.
		all = append([]string{b.co.Inbound(conv, fmt.Sprint(i), t0.Add(-time.Duration(25-i/2)*time.Minute))}, all...)
	}
	// all is not necessarily in read order for ties; read order is the truth to compare.
	var got []string
	q := url.Values{"limit": {"7"}}
	for page := 0; ; page++ {
		p := readMessages(t, s, conv, q)
		got = append(got, ids(p.Items)...)
		// New messages keep arriving between pages, some at the same instant.
		clock.Advance(time.Second)
		b.co.Inbound(conv, "new", time.Time{})
		b.co.Reply(conv, fake.SenderAgent, "new reply", time.Time{})
		if p.NextCursor == nil {
			break
		}
		require.Less(t, page, 10)
		q = url.Values{"limit": {"7"}, "cursor": {*p.NextCursor}}
	}
	assert.Len(t, got, 25)
	assert.ElementsMatch(t, all, got)
	seen := map[string]bool{}
	for _, id := range got {
		assert.False(t, seen[id], "repeated %s", id)
		seen[id] = true
	}
}

func TestMessagesForgedCursor(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
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
	s := newServer(t)
	b := seedBasic(t, s)
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
