package fake_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
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

func TestLoadSeedErrorsNameThePlace(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"companies":[`, "seed: "},
		{"{\n  \"companies\": [}\n", "line 2, column"},
		{`{"companies":[{"channels":[{"channel":"sms"}]}]}`, "companies[0].channels[0].channel: channel sms has no accounts"},
		{`{"companies":[{"channels":[{"channel":"chatapp","provider_identifier":"1"}],"contacts":[{"channel":"nope","phone":"5511987654321"}]}]}`, `companies[0].contacts[0].channel: unknown channel "nope"`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"channel":"c","phone":"123"}]}]}`, `companies[0].contacts[0].phone: "123": phone number must have 8 to 15 digits`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
		   "conversations":[{"contact":"a","messages":[{"text":"x"},{"sender":"bot"}]}]}]}`, `companies[0].conversations[0].messages[1].sender: unknown sender "bot"`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
		   "conversations":[{"contact":"a","messages":[{"ago":"yesterday"}]}]}]}`, `companies[0].conversations[0].messages[0].ago: bad duration "yesterday"`},
		{`{"companies":[{"channels":[{"ref":"c","channel":"chatapp"}],"contacts":[{"ref":"a","channel":"c","phone":"5511987654321"}],
		   "conversations":[{"contact":"a","messages":[{"reactions":[{"emoji":"x","ago":"soon"}]}]}]}]}`, `companies[0].conversations[0].messages[0].reactions[0].ago: bad duration "soon"`},
		{`{"companies":[{},{"channels":[]}]}`, "companies[1].api_key: api key is empty"},
		{`{"companies":[{"unknown":1}]}`, `unknown field "unknown"`},
		{`{"companies":[{"channels":[{"channel":1}]}]}`, "companies[0].channels[0].channel (line 1, column 40): want string"},
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

	bad := &fake.Seed{Companies: []fake.CompanySeed{{Channels: []fake.ChannelAccount{{Channel: "sms"}}}}}
	require.Error(t, s.Load(bad))
	assert.Len(t, co.Contacts(), 3, "a failed load keeps the previous state")

	s.Clear()
	assert.Empty(t, co.Contacts())
	assert.Equal(t, "sample-key", s.APIKey())
	assert.JSONEq(t, `{"items":[]}`, get(t, s, "/channels").Data(t, 200))
}

func TestDemoSeed(t *testing.T) {
	clock := fake.NewManualClock(t0)
	s := newServer(t, fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()))
	co := s.Company()
	assert.Len(t, co.Contacts(), 9)
	ch := get(t, s, "/channels").Data(t, 200)
	assert.Equal(t, 3, strings.Count(ch, `"status":"connected"`))
	all := listConvs(t, s, mapQuery("status", "all", "limit", "100"))
	assert.Len(t, all.Items, 11)

	var an struct {
		Buckets map[string]struct {
			Count int `json:"count"`
		} `json:"buckets"`
	}
	require.NoError(t, json.Unmarshal([]byte(get(t, s, "/conversations/anomalies?include=unassigned,automation_only").Data(t, 200)), &an))
	assert.Equal(t, 4, an.Buckets["unanswered"].Count)      // ana (4h58m), bruno (7h), farid (7h50m, unsupported after the reply), visitor (12h29m)
	assert.Equal(t, 2, an.Buckets["never_engaged"].Count)   // the campaign and the empty conversation
	assert.Equal(t, 1, an.Buckets["automation_only"].Count) // carla
	assert.Equal(t, 2, an.Buckets["unassigned"].Count)      // bruno, visitor
	// Loaded relative to the clock: a later load moves with it.
	clock.Advance(48 * time.Hour)
	require.NoError(t, s.Load(fake.DemoSeed()))
	assert.Len(t, listConvs(t, s, mapQuery("status", "all", "since", "2026-11-24T00:00:00Z")).Items, 5)
}

func mapQuery(kv ...string) map[string][]string {
	q := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		q[kv[i]] = []string{kv[i+1]}
	}
	return q
}
