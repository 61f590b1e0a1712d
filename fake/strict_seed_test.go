package fake_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// Each row of the one strictness of seed documents (as of the API's bodies):
// what encoding/json or the loader used to take silently is refused,
// naming the place.
func TestLoadSeedStrictness(t *testing.T) {
	const (
		chat = `{"now":"2026-11-22T10:00:00Z","companies":[{"channels":[{"ref":"c","channel":"chatapp"}],`
		msgs = chat + `"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],"conversations":[{"contact":"a","messages":[`
		end  = `]}]}]}`
	)
	tests := []struct{ name, doc, want string }{
		{"a key twice", `{"companies":[{"api_key":"k1","api_key":"k2"}]}`,
			"seed: companies[0].api_key is given more than once; give it once"},
		{"a key in another case", `{"companies":[{"api_key":"k1","API_KEY":"k2"}]}`,
			`seed: companies[0].API_KEY: keys are case-sensitive: write "api_key"`},
		{"a key twice, deep", msgs + `{"text":"a","text":"b"}` + end,
			"seed: companies[0].conversations[0].messages[0].text is given more than once"},
		{"a tag name with a comma", chat + `"contacts":[{"channel":"c","phone":"5511987654321","tags":["vip","a,b"]}]}]}`,
			`seed: companies[0].contacts[0].tags[1]: "a,b" holds a comma`},
		{"an empty tag name", chat + `"contacts":[{"channel":"c","phone":"5511987654321","tags":[""]}]}]}`,
			`seed: companies[0].contacts[0].tags[0]: a tag name is empty`},
		{"text on a system message", msgs + `{"sender":"system","text":"Conversation assigned"}` + end,
			`seed: companies[0].conversations[0].messages[0].text: a system message has no text of its own`},
		{"text on an unsupported message", msgs + `{"type":"unsupported","text":"?"}` + end,
			`seed: companies[0].conversations[0].messages[0].text: a unsupported message has no text of its own`},
		{"media on a text message", msgs + `{"type":"text","text":"hi","media":{"mime_type":"image/png","content":"x"}}` + end,
			`seed: companies[0].conversations[0].messages[0].media: a text message carries no media`},
		{"media on a system message", msgs + `{"sender":"system","type":"system","media":{"status":"no_reference"}}` + end,
			`seed: companies[0].conversations[0].messages[0].media: a system message carries no media`},
		{"a mime_type that is no MIME type", msgs + `{"type":"image","media":{"mime_type":"png","content":"x"}}` + end,
			`seed: companies[0].conversations[0].messages[0].media.mime_type: "png" is not a MIME type`},
		{"a mime_type with spaces", msgs + `{"type":"document","media":{"status":"unknown","mime_type":"application/ pdf"}}` + end,
			`seed: companies[0].conversations[0].messages[0].media.mime_type: "application/ pdf" is not a MIME type`},
		{"a message at the zero time", msgs + `{"text":"x","at":"0001-01-01T00:00:00.000Z"}` + end,
			`seed: companies[0].conversations[0].messages[0].at: 0001-01-01T00:00:00.000Z is the zero time`},
		{"a conversation created at the zero time, with an offset", chat + `"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],"conversations":[{"contact":"a","created_at":"0000-12-31T23:00:00-01:00"}]}]}`,
			`seed: companies[0].conversations[0].created_at: 0000-12-31T23:00:00-01:00 is the zero time`},
		{"a contact created at the zero time", chat + `"contacts":[{"channel":"c","phone":"5511987654321","created_at":"0001-01-01T00:00:00Z"}]}]}`,
			`seed: companies[0].contacts[0].created_at: 0001-01-01T00:00:00Z is the zero time`},
		{"a reaction at the zero time", msgs + `{"text":"x","reactions":[{"emoji":"x","at":"0001-01-01T00:00:00Z"}]}` + end,
			`seed: companies[0].conversations[0].messages[0].reactions[0].at: 0001-01-01T00:00:00Z is the zero time`},
		{"a message after now", msgs + `{"text":"from the future","at":"2026-11-22T10:00:01Z"}` + end,
			`seed: companies[0].conversations[0].messages[0].at: 2026-11-22T10:00:01Z is after now (2026-11-22T10:00:00Z)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.LoadSeed(strings.NewReader(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// When a document breaks the strictness rule and has another fault too,
// the error is the same as ever: the rule's unless the document is not one
// JSON value.
func TestDecodeSeedErrorOrder(t *testing.T) {
	const twice = "seed: companies[0].api_key is given more than once; give it once"
	tests := []struct{ name, doc, want, not string }{
		{"and a wrong type", `{"companies":[{"api_key":"k1","api_key":2}]}`, twice, ""},
		{"and an unknown field", `{"companies":[{"api_key":"k1","api_key":"k2","colour":1}]}`, twice, ""},
		{"and a second value", `{"companies":[{"api_key":"k1","api_key":"k2"}]} {}`, "seed: more than one JSON value", ""},
		{"and a syntax error", `{"companies":[{"api_key":"k1","api_key":"k2"}]`, "seed: ", "more than once"},
		{"alone, after whitespace", " \n" + `{"companies":[{"api_key":"k1","api_key":"k2"}]}` + "\n\t", twice, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fake.DecodeSeed(strings.NewReader(tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.not != "" {
				assert.NotContains(t, err.Error(), tt.not)
			}
		})
	}
}

// The Go seeding methods keep the same rules: a bad entry panics, as any
// bad seed does.
func TestSeedingStrictness(t *testing.T) {
	s := newServer(t)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"a tag with a comma", func() { co.TagContact(ct, "a,b") }, `"a,b" holds a comma`},
		{"a tag id of a name with a comma", func() { co.TagID("a,b") }, `"a,b" holds a comma`},
		{"text on a system message", func() { co.AddMessage(cv, fake.Message{Sender: fake.SenderSystem, Text: "x"}) }, "a system message has no text of its own"},
		{"media on a text message", func() {
			co.AddMessage(cv, fake.Message{Type: convo.MessageText, Media: &fake.Media{MimeType: "image/png"}})
		}, "a text message carries no media"},
		{"a bad mime_type", func() { co.AddMessage(cv, fake.Message{Media: &fake.Media{MimeType: "image", Content: "x"}}) }, `"image" is not a MIME type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				tt.f()
				return "no panic"
			}()
			assert.Contains(t, msg, tt.want)
		})
	}
}

// Whatever ExportSeed writes loads back: a clock moved back before some
// messages included (the export says so with allow_future).
func TestExportSeed_ClockMovedBack(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	s := newServer(t, fake.WithClock(clock))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	co.Inbound(cv, "hello", now)
	clock.Advance(-48 * time.Hour)

	doc, err := json.Marshal(s.ExportSeed())
	require.NoError(t, err)
	assert.Contains(t, string(doc), `"allow_future":true`)
	loaded, err := fake.LoadSeed(strings.NewReader(string(doc)))
	require.NoError(t, err, "the export loads back")
	again := newServer(t, fake.WithSeed(loaded), fake.WithDefaultCompanyID(loaded.Companies[0].ID))
	redo, err := json.Marshal(again.ExportSeed())
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(redo))
}
