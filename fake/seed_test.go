package fake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

func loadSample(t *testing.T) *fake.Seed {
	t.Helper()
	f, err := os.Open("testdata/sample-seed.json")
	require.NoError(t, err)
	defer f.Close()
	seed, err := fake.LoadSeed(f)
	require.NoError(t, err)
	return seed
}

func TestSampleSeedLoads(t *testing.T) {
	s := fake.New(t, fake.WithSeed(loadSample(t)))
	assert.True(t, s.Clock().Manual(), "a seed with now runs on a frozen clock")
	assert.Equal(t, t0, s.Clock().Now())
	assert.Equal(t, "sample-key", s.APIKey())

	r := get(t, s, "/channels")
	data := r.Data(t, 200)
	assert.Contains(t, data, `"id":"0b6f2c1e-1111-4a5b-9c3d-000000000001"`)
	assert.NotContains(t, data, "0b6f2c1e-1111-4a5b-9c3d-000000000003") // the widget

	p := readMessages(t, s, "c0000000-3333-4a5b-9c3d-000000000001", nil)
	assert.Equal(t, []string{"m-6", "m-5", "m-4", "m-3", "m-2", "m-1"}, ids(p.Items))
	raw, _ := json.Marshal(p.Items[4])
	assert.JSONEq(t, `{"message_id":"m-2","direction":"outbound","type":"text","status":"read","text":"Let me check.","media":null,
	  "reactions":[{"emoji":"👍","direction":"inbound","reacted_at":"2026-11-21T09:00:00.000Z"}],
	  "sent_at":"2026-11-21T08:10:00.000Z","delivered_at":"2026-11-21T08:10:01.000Z","read_at":"2026-11-21T08:11:00.000Z","failure_reason":null,
	  "raw":{"provider_message_id":"pmid.m2","origin":"agent","content":{"type":"text","body":"Let me check."}}}`, string(raw))

	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321")
	assert.JSONEq(t, `{"id":"5a1c0000-2222-4a5b-9c3d-000000000001","phone_number":"5511987654321","name":"Ana Souza","email":"ana@example.com","gender":"female","tag_names":"vip,customer"}`, r.Data(t, 200))
	ct, ok := s.Contact("5a1c0000-2222-4a5b-9c3d-000000000001")
	require.True(t, ok)
	assert.Equal(t, fake.SequenceScheduled, ct.SequenceStatus)
	assert.Equal(t, map[string]string{"plan": "gold"}, ct.CustomFields)

	// The second company sees only its own data.
	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5521977776666", bearer("second-company-key"))
	assert.Equal(t, 200, r.Status)
	assert.Equal(t, 404, get(t, s, "/chatapp/contacts/lookup?phone_number=5521977776666").Status)

	// automation-only on the bot conversation.
	an := get(t, s, "/conversations/anomalies?include=automation_only").Data(t, 200)
	assert.Contains(t, an, `"automation_only":{"count":1,"items":[{"conversation_id":"c0000000-3333-4a5b-9c3d-000000000002"`)
}

// A seed that does not load names the JSON path of the fault, down to the
// field, and its reason (SEED.md).
func TestLoadSeedErrorsNameThePlace(t *testing.T) {
	const (
		one  = `{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],`
		head = `{"companies":[{"channels":[{"ref":"c","channel":"chatapp"},{"ref":"b","channel":"botapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],`
		conv = head + `"conversations":[{"contact":"a",`
		msgs = conv + `"messages":[`
	)
	const (
		uuid1    = "0b6f2c1e-1111-4a5b-9c3d-00000000000a"
		uuidHint = " (e.g. 0b6f2c1e-1111-4a5b-9c3d-000000000001; leave it out for a generated one)"
	)
	tests := []struct{ doc, want string }{
		{`{"companies":[`, "seed: "},
		{"{\n  \"companies\": [}\n", "line 2, column"},
		{`{"now":"yesterday","companies":[]}`, `seed: now: "yesterday" is not an RFC 3339 date-time`},
		{`{"version":2,"companies":[]}`, `seed: version: unknown field`},
		{`{"companies":[{"unknown":1}]}`, `seed: companies[0].unknown: unknown field "unknown"`},
		{`{"companies":[{},{"channels":[]}]}`, "companies[1].api_key: missing; every company but the first needs an API key of its own"},
		{`{"companies":[{"channels":[{"channel":"sms"}]}]}`, "companies[0].channels[0].channel: channel sms has no accounts"},
		{`{"companies":[{"channels":[{"channel":"telegram"}]}]}`, `companies[0].channels[0].channel: unknown channel "telegram"`},
		{`{"companies":[{"channels":[{"channel":1}]}]}`, "companies[0].channels[0].channel (line 1, column 39): want string"},
		{`{"companies":[{},{"api_key":"k","channels":[{"channel":"chatapp"},{"channel":7}]}]}`,
			`companies[1].channels[1].channel (line 1, column 78): want string, got JSON number`},
		{`{"companies":[{"channels":[{"channel":"chatapp","provider_identifier":"1"},{"channel":"chatapp","provider_identifier":"1"}]}]}`,
			`companies[0].channels[1].provider_identifier: provider identifier "1" is already used`},
		{`{"companies":[{"channels":[{"channel":"chatapp","provider_identifier":"1"}],"contacts":[{"channel":"nope","phone":"5511987654321"}]}]}`,
			`companies[0].contacts[0].channel: unknown channel "nope"`},
		{one + `"contacts":[{"channel":"c","phone":"123"}]}]}`, `companies[0].contacts[0].phone: "123": phone number must have 8 to 15 digits`},
		{one + `"contacts":[{"channel":"c","phone":"+55 (11) abc 88888-0004"}]}]}`,
			`companies[0].contacts[0].phone: "+55 (11) abc 88888-0004": phone number must be a country code plus digits; only spaces and + - ( ) . may separate them`},
		{one + `"contacts":[{"channel":"c"}]}]}`, `companies[0].contacts[0].phone: a chatapp contact needs a phone`},
		{one + `"contacts":[{"channel":"c","phone":"5511987654321"},{"channel":"c","phone":"+55 11 98765-4321"}]}]}`,
			`companies[0].contacts[1].phone: 5511987654321 is already contact`},
		{`{"companies":[{"contacts":[{"channel":"x","tags":["a",3]}]}]}`, `companies[0].contacts[0].tags[1] (line 1`},
		{`{"companies":[{"channels":[{"channel":"chatapp"}],"contacts":[{"channel":"x"},{"channel":"x","colour":"red"}]}]}`,
			`seed: companies[0].contacts[1].colour: unknown field`},
		{conv + `"status":"closed"}]}]}`, `companies[0].conversations[0].status: unknown status "closed"`},
		{head + `"conversations":[{"contact":"zed"}]}]}`, `companies[0].conversations[0].contact: unknown contact "zed"`},
		{conv + `"created_ago":"soon"}]}]}`, `companies[0].conversations[0].created_ago: bad duration "soon"`},
		{conv + `"unread_count":-1}]}]}`, "companies[0].conversations[0].unread_count: -1 is negative"},
		{head + `"conversations":[{"id":"` + uuid1 + `","contact":"a"},{"id":"` + uuid1 + `","contact":"a"}]}]}`, `companies[0].conversations[1].id: id "` + uuid1 + `" is already used`},
		{`{"companies":[{"channels":[{"channel":"chatapp"},{"id":"acc-1","channel":"botapp"}]}]}`, `seed: companies[0].channels[1].id: id "acc-1" is not a UUID` + uuidHint},
		{`{"companies":[{"channels":[{"id":"widget","channel":"webchat"}]}]}`, `seed: companies[0].channels[0].id: id "widget" is not a UUID` + uuidHint},
		{one + `"contacts":[{"id":"ana","channel":"c","phone":"5511987654321"}]}]}`, `seed: companies[0].contacts[0].id: id "ana" is not a UUID` + uuidHint},
		{head + `"conversations":[{"id":"c-1","contact":"a"}]}]}`, `seed: companies[0].conversations[0].id: id "c-1" is not a UUID` + uuidHint},
		{head + `"conversations":[{"id":"` + uuid1 + `x","contact":"a"}]}]}`, `seed: companies[0].conversations[0].id: id "` + uuid1 + `x" is not a UUID`},
		{msgs + `{"text":"x"},{"sender":"contact","status":"read"}]}]}]}`,
			`seed: companies[0].conversations[0].messages[1].status: an inbound message has no delivery status (null); remove "status"`},
		{msgs + `{"direction":"inbound","sender":"system","status":"sent"}]}]}]}`,
			`seed: companies[0].conversations[0].messages[0].status: an inbound message has no delivery status (null); remove "status"`},
		{msgs + `{"text":"x"},{"sender":"martian"}]}]}]}`, `seed: companies[0].conversations[0].messages[1].sender: unknown sender "martian"`},
		{msgs + `{"direction":"sideways"}]}]}]}`, `companies[0].conversations[0].messages[0].direction: unknown direction "sideways"`},
		{msgs + `{"sender":"agent","direction":"inbound"}]}]}]}`, `companies[0].conversations[0].messages[0].direction: sender agent cannot send a message inbound`},
		{msgs + `{"sender":"agent","status":"delivred"}]}]}]}`, `companies[0].conversations[0].messages[0].status: unknown status "delivred"`},
		{msgs + `{"ago":"yesterday"}]}]}]}`, `companies[0].conversations[0].messages[0].ago: bad duration "yesterday"`},
		{msgs + `{"at":"2026-01-01T00:00:00Z","ago":"1h"}]}]}]}`, `companies[0].conversations[0].messages[0].at: give at or ago, not both`},
		{msgs + `{"type":"image","media":{"status":"lost"}}]}]}]}`, `companies[0].conversations[0].messages[0].media.status: unknown status "lost"`},
		{msgs + `{"type":"image","media":{"data_base64":"%%%"}}]}]}]}`, `companies[0].conversations[0].messages[0].media.data_base64: not base64`},
		{msgs + `{"type":"image","media":{"mime_type":"image/png","filename":"s3/bucket/a.png"}}]}]}]}`,
			`companies[0].conversations[0].messages[0].media.filename: "s3/bucket/a.png" is a path`},
		{`{"companies":[{"conversations":[{"contact":"a","messages":[{"media":{"url":"http://x"}}]}]}]}`,
			`seed: companies[0].conversations[0].messages[0].media.url: unknown field`},
		{msgs + `{"reactions":[{"emoji":"x"},{"emoji":"y","direction":"up"}]}]}]}]}`, `companies[0].conversations[0].messages[0].reactions[1].direction: unknown direction "up"`},
		{msgs + `{"reactions":[{"emoji":""}]}]}]}]}`, `companies[0].conversations[0].messages[0].reactions[0].emoji: emoji is empty`},
		{msgs + `{"reactions":[{"emoji":"x","at":"now"}]}]}]}]}`, `companies[0].conversations[0].messages[0].reactions[0].at: "now" is not an RFC 3339 date-time`},
		{msgs + `{"reactions":[{"emoji":"x","ago":"soon"}]}]}]}]}`, `companies[0].conversations[0].messages[0].reactions[0].ago: bad duration "soon"`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := fake.LoadSeed(strings.NewReader(tc.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadReplacesAndRestoresOnError(t *testing.T) {
	s := newServer(t)
	co := s.Company()
	b := seedBasic(t, s)
	require.NoError(t, s.Load(loadSample(t)))
	_, ok := s.Contact(b.ana)
	assert.False(t, ok, "Load replaces the state")
	assert.Equal(t, co.ID(), s.Company().ID(), "the default company keeps its id")
	assert.Len(t, co.Contacts(), 3, "old handles stay valid")

	now := t0.Add(-72 * time.Hour)
	bad := &fake.Seed{Now: &now, Companies: []fake.CompanySeed{{Channels: []fake.ChannelAccount{{Channel: "sms"}}}}}
	require.Error(t, s.Load(bad))
	assert.Len(t, co.Contacts(), 3, "a failed load keeps the previous state")
	assert.Equal(t, t0, s.Clock().Now(), "a seed that does not load does not move the clock")

	s.Clear()
	assert.Empty(t, co.Contacts())
	assert.Equal(t, "sample-key", s.APIKey())
	assert.JSONEq(t, `{"items":[]}`, get(t, s, "/channels").Data(t, 200))
	require.NoError(t, s.Load(&fake.Seed{Now: &now}))
	assert.Equal(t, now, s.Clock().Now())
}

// A seed's now on a real clock: Load refuses it and changes nothing
// (docs/behaviour.md, The fake); TestLoadReplacesAndRestoresOnError has the
// manual clock.
func TestSeedNowOnARealClock(t *testing.T) {
	now := t0.Add(-72 * time.Hour)
	real, err := fake.NewHandler()
	require.NoError(t, err)
	before := real.Clock().Now()
	err = real.Load(&fake.Seed{Now: &now, Companies: []fake.CompanySeed{{}}})
	require.Error(t, err)
	assert.ErrorIs(t, err, fake.ErrRealClock)
	assert.Contains(t, err.Error(), "seed: now: the server's clock is real")
	assert.NotContains(t, err.Error(), "WithClock", "the text names no Go call")
	assert.WithinDuration(t, before, real.Clock().Now(), time.Minute, "the real clock was not shifted")
	// Without now, a real clock loads fine.
	require.NoError(t, real.Load(fake.DemoSeed()))
	// WithSeed with a now and a real clock fails the start clearly.
	_, err = fake.NewHandler(fake.WithClock(fake.NewRealClock()), fake.WithSeed(&fake.Seed{Now: &now}))
	require.Error(t, err)
}

// Ids of channel accounts, webchat widgets, contacts and conversations are
// UUIDs, as the service's are (docs/behaviour.md, The fake): Go seeding
// refuses another id as a seed document does, unless the server was built
// WithReadableIDs, whose ids are then whatever the test gives. Message ids
// are free-form either way.
func TestSeedIDsAreUUIDs(t *testing.T) {
	_, b := newBasic(t)
	assert.PanicsWithValue(t, `fake: conversation.id: id "c-1" is not a UUID (e.g. 0b6f2c1e-1111-4a5b-9c3d-000000000001; leave it out for a generated one)`, func() {
		b.co.AddConversation(fake.Conversation{ID: "c-1", ContactID: b.ana})
	})
	uuid := "0b6f2c1e-1111-4a5b-9c3d-0000000000AB"
	assert.Equal(t, uuid, b.co.AddConversation(fake.Conversation{ID: uuid, ContactID: b.ana}), "upper-case hex is a UUID too")

	readable := newServer(t, fake.WithReadableIDs())
	co := readable.Company()
	acc := co.AddChannel(fake.ChannelAccount{ID: "acc-1", Channel: "chatapp", ProviderIdentifier: "5511940000001"})
	ct := co.AddContact(fake.Contact{ID: "ana", ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	assert.Equal(t, "c-1", co.AddConversation(fake.Conversation{ID: "c-1", ContactID: ct}))
	assert.Equal(t, "acc-1", acc)
}

// DecodeSeed reads the seed documents it is given into the Seed that
// encoding/json makes of them, on every Go version (encoding/json/v2 on Go
// 1.27): the sample seed, the demo data and an export with media,
// reactions, tags and custom fields.
func TestDecodeSeed_AsEncodingJSON(t *testing.T) {
	sample, err := os.ReadFile("testdata/sample-seed.json")
	require.NoError(t, err)
	demo, err := json.Marshal(fake.DemoSeed())
	require.NoError(t, err)
	s := fake.New(t, fake.WithSeed(loadSample(t)))
	export, err := json.Marshal(s.ExportSeed())
	require.NoError(t, err)
	for name, doc := range map[string][]byte{"sample": sample, "demo": demo, "export": export} {
		t.Run(name, func(t *testing.T) {
			var want fake.Seed
			dec := json.NewDecoder(bytes.NewReader(doc))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&want))
			got, err := fake.DecodeSeed(bytes.NewReader(doc))
			require.NoError(t, err)
			assert.Equal(t, want, *got)
		})
	}
}

// shortSized tells a size smaller than what it holds.
type shortSized struct{ io.Reader }

func (shortSized) Size() int64 { return 10 }

// DecodeSeed reads the whole document whatever the reader tells of its
// size: a Len, a Size (right or too small), a file's Stat, or nothing.
func TestDecodeSeed_Readers(t *testing.T) {
	doc, err := os.ReadFile("testdata/sample-seed.json")
	require.NoError(t, err)
	want, err := fake.DecodeSeed(iotest.OneByteReader(bytes.NewReader(doc)))
	require.NoError(t, err)
	file, err := os.Open("testdata/sample-seed.json")
	require.NoError(t, err)
	defer file.Close()
	for name, r := range map[string]io.Reader{
		"Len":             bytes.NewReader(doc),
		"Size":            io.NewSectionReader(bytes.NewReader(doc), 0, int64(len(doc))),
		"Size, too small": shortSized{bytes.NewReader(doc)},
		"Stat":            file,
		"nothing":         io.MultiReader(bytes.NewReader(doc)),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := fake.DecodeSeed(r)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}
