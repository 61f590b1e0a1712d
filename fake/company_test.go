package fake_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A media file name that is a path cannot be seeded (docs/behaviour.md,
// Attachments); TestLoadSeedErrorsNameThePlace has the JSON seed.
func TestFilenameIsNeverAPath(t *testing.T) {
	_, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{ContactID: b.ana})
	for _, fn := range []string{"uploads/2026/a.png", `C:\tmp\a.png`, "/var/storage/a.png"} {
		assert.Panics(t, func() {
			b.co.AddMessage(conv, fake.Message{Media: &fake.Media{MimeType: "image/png", Filename: fn}})
		}, fn)
	}
}

// Another company's resources are "not found" on every operation that takes
// an id or a phone, and never appear in lists or counts (docs/behaviour.md,
// Companies (tenancy)).
func TestTenancyEveryEndpoint(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	other := s.AddCompany("other-key")
	oacc := other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511977770000"})
	oct := other.AddContact(fake.Contact{ChannelAccountID: oacc, PhoneNumber: "5521922221111", SequenceName: "S", Tags: []string{"t"}})
	oconv := other.AddConversation(fake.Conversation{ContactID: oct})
	other.Inbound(oconv, "waiting", t0.Add(-5*time.Hour))
	om := other.AddMessage(oconv, fake.Message{Sender: fake.SenderContact, At: t0.Add(-4 * time.Hour), Media: &fake.Media{MimeType: "image/png"}})
	other.AddConversation(fake.Conversation{ContactID: oct})
	tag := other.TagID("t")
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               convo.ErrorCode
	}{
		{"messages", "GET", "/v1/conversations/" + oconv + "/messages", nil, 404, "CONVERSATION_NOT_FOUND"},
		{"attachment", "GET", "/v1/attachments/" + s.MediaID(om), nil, 404, "MEDIA_NOT_FOUND"},
		{"lookup", "GET", "/v1/chatapp/contacts/lookup?phone_number=5521922221111", nil, 404, "CONTACT_NOT_FOUND"},
		{"lookup by their number", "GET", "/v1/chatapp/contacts/lookup?phone_number_id=5511977770000&phone_number=5521922221111", nil, 404, "CONTACT_NOT_FOUND"},
		{"custom fields", "PATCH", "/v1/chatapp/contacts/custom-fields", map[string]any{"phone_number": "5521922221111", "custom_fields": map[string]string{"a": "b"}}, 404, "CONTACT_NOT_FOUND"},
		{"tags", "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": "5521922221111", "tag_ids": tag}, 404, "CONTACT_NOT_FOUND"},
		{"cancel", "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521922221111"}, 404, "CONTACT_NOT_FOUND"},
		{"create on their number", "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": "5511977770000", "phone_number": "5521900000000", "name": "X"}, 404, "CHANNEL_NOT_FOUND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, tc.body)
			assertError(t, r, tc.status, tc.code, "", errPath(tc.path), tc.method, "")
			// The owner sees it.
			ro := call(t, s, tc.method, tc.path, tc.body, bearer("other-key"))
			if tc.code == "CHANNEL_NOT_FOUND" {
				assert.Equal(t, 201, ro.Status, "%s", ro.Body)
			} else {
				assert.Equal(t, 200, ro.Status, "%s", ro.Body)
			}
		})
	}
	assert.Equal(t, `{"items":[],"next_cursor":null}`, get(t, s, "/conversations?status=all&channel_id="+oacc).Data(t, 200))
	assert.Equal(t, `{"items":[],"next_cursor":null}`, get(t, s, "/conversations?status=all&phone=5521922221111").Data(t, 200))
	raw := get(t, s, "/conversations/anomalies?include=unassigned").Data(t, 200)
	assert.Contains(t, raw, `"unanswered":{"count":0,"items":[]}`)
	assert.Contains(t, raw, `"never_engaged":{"count":0}`)
	assert.NotContains(t, get(t, s, "/channels").Data(t, 200), oacc)
	// A messages cursor of another company's conversation is no key to it.
	for i := 0; i < 2; i++ {
		other.Inbound(oconv, "more", t0.Add(-time.Duration(i+1)*time.Minute))
	}
	r := get(t, s, "/conversations/"+oconv+"/messages?limit=1", bearer("other-key"))
	var p msgPage
	require.NoError(t, json.Unmarshal([]byte(r.Data(t, 200)), &p))
	require.NotNil(t, p.NextCursor)
	assertError(t, get(t, s, "/conversations/"+oconv+"/messages?cursor="+url.QueryEscape(*p.NextCursor)), 404, "CONVERSATION_NOT_FOUND", "", "/api/v1/conversations/"+oconv+"/messages", "GET", "")
}

// Server.Companies, Server.CompanyByKey.
func TestCompaniesAccessors(t *testing.T) {
	s := newServer(t)
	k2 := s.AddCompany("k2")
	k3 := s.AddCompany("k3")
	all := s.Companies()
	require.Len(t, all, 3)
	assert.Equal(t, []string{s.Company().ID(), k2.ID(), k3.ID()}, []string{all[0].ID(), all[1].ID(), all[2].ID()})
	assert.Equal(t, "k3", all[2].APIKey())
	got, ok := s.CompanyByKey("k2")
	require.True(t, ok)
	assert.Equal(t, k2.ID(), got.ID())
	got, ok = s.CompanyByKey(fake.DefaultAPIKey)
	require.True(t, ok)
	assert.Equal(t, s.Company().ID(), got.ID())
	for _, k := range []string{"", "k", "k22", "K2"} {
		_, ok = s.CompanyByKey(k)
		assert.False(t, ok, k)
	}
	// Seeded companies are reachable too.
	require.NoError(t, s.Load(&fake.Seed{Companies: []fake.CompanySeed{{}, {APIKey: "seeded"}}}))
	require.Len(t, s.Companies(), 2)
	got, ok = s.CompanyByKey("seeded")
	require.True(t, ok)
	assert.Equal(t, s.Companies()[1].ID(), got.ID())
	_, ok = s.CompanyByKey("k2")
	assert.False(t, ok, "Load replaced the companies")
}

// The fake never prints a key, nor another tenant's id: an error about a
// key says it is taken, and a seed's names the company by its place.
func TestErrorsNameNeitherTheKeyNorTheOtherCompany(t *testing.T) {
	const secret = "sk-very-secret-key-123"
	s := newServer(t, fake.WithAPIKey(secret))

	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		s.AddCompany(secret)
		return ""
	}()
	assert.NotContains(t, msg, secret)
	assert.NotContains(t, msg, s.Company().ID())
	assert.Contains(t, msg, fake.ErrAPIKeyInUse.Error())
	_, err := s.AddCompanySeed(fake.CompanySeed{APIKey: secret})
	assert.ErrorIs(t, err, fake.ErrAPIKeyInUse)
	_, err = s.AddCompanySeed(fake.CompanySeed{APIKey: "k-new", ID: s.Company().ID()})
	assert.ErrorIs(t, err, fake.ErrCompanyIDInUse)

	err = s.Load(&fake.Seed{Companies: []fake.CompanySeed{{APIKey: "other-secret-key"}, {APIKey: "other-secret-key"}}})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "other-secret-key")
	assert.Contains(t, err.Error(), "companies[1].api_key")
}
