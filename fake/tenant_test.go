package fake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func tenantSeed(phone string) fake.CompanySeed {
	return fake.CompanySeed{
		Channels:      []fake.ChannelAccount{{Ref: "a", Channel: convo.ChannelChatapp}},
		Contacts:      []fake.Contact{{Ref: "c", ChannelAccountID: "a", PhoneNumber: phone}},
		Conversations: []fake.Conversation{{ContactID: "c", Messages: []fake.Message{{Text: "hi"}}}},
	}
}

func TestCompanyLoad(t *testing.T) {
	tests := []struct {
		name    string
		cs      fake.CompanySeed
		wantErr string
		want    int // contacts of the company after
	}{
		{"replaces the data", tenantSeed("5511900000009"), "", 1},
		{"empties", fake.CompanySeed{}, "", 0},
		{"a bad seed changes nothing", fake.CompanySeed{Contacts: []fake.Contact{{ChannelAccountID: "nope"}}},
			"seed: company.contacts[0].channel: unknown channel", 2},
		{"a key another company has", fake.CompanySeed{APIKey: fake.DefaultAPIKey},
			"seed: company.api_key: the API key is already used by another company", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			def := s.Company()
			require.NoError(t, def.Load(tenantSeed("5511900000001")))
			co := s.AddCompany("tenant-key")
			require.NoError(t, co.Load(tenantSeed("5511900000001")))
			cs := tenantSeed("5511900000002")
			cs.Channels[0].ID, cs.Contacts[0].ID = "a0000000-0000-4000-8000-000000000002", "c0000000-0000-4000-8000-000000000002"
			require.NoError(t, co.Load(fake.CompanySeed{Channels: append(cs.Channels, fake.ChannelAccount{Channel: convo.ChannelBotapp}),
				Contacts: append(cs.Contacts, fake.Contact{ChannelAccountID: "a0000000-0000-4000-8000-000000000002", PhoneNumber: "5511900000003"})}))
			err := co.Load(tt.cs)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				_, ok := s.Contact("c0000000-0000-4000-8000-000000000002")
				assert.True(t, ok, "the previous data is kept, and indexed")
			} else {
				require.NoError(t, err)
			}
			assert.Len(t, co.Contacts(), tt.want)
			assert.Len(t, def.Contacts(), 1, "the other company is untouched")
			assert.Equal(t, "tenant-key", co.APIKey())
		})
	}
}

func TestCompanyRequests(t *testing.T) {
	s := newServer(t)
	co := s.AddCompany("tenant-key")
	get(t, s, "/channels")
	get(t, s, "/channels", bearer("tenant-key"))
	get(t, s, "/conversations", bearer("tenant-key"))
	get(t, s, "/channels", bearer("wrong"))
	reqs := co.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/conversations", reqs[1].Path)
	co.ClearRequests()
	assert.Empty(t, co.Requests())
	assert.Len(t, s.Requests(), 2, "the default company's and the unauthenticated request stay")
	assert.Len(t, s.Company().Requests(), 1)
}

func TestAddCompanySeed(t *testing.T) {
	tests := []struct {
		name    string
		cs      fake.CompanySeed
		wantErr string
	}{
		{"with data", fake.CompanySeed{APIKey: "k2", ID: "e0000000-0000-4000-8000-000000000002", Channels: tenantSeed("5511900000001").Channels}, ""},
		{"no key", fake.CompanySeed{}, "seed: company.api_key: api key is empty"},
		{"a used key", fake.CompanySeed{APIKey: fake.DefaultAPIKey}, "seed: company.api_key: the API key is already used by another company"},
		{"bad data", fake.CompanySeed{APIKey: "k2", Contacts: []fake.Contact{{ChannelAccountID: "x"}}}, "seed: company.contacts[0].channel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			co, err := s.AddCompanySeed(tt.cs)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Len(t, s.Companies(), 1, "nothing added")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "e0000000-0000-4000-8000-000000000002", co.ID())
			assert.Len(t, s.Companies(), 2)
			cs, ok := co.ExportSeed()
			require.True(t, ok)
			assert.Len(t, cs.Channels, 1)
		})
	}
}

// fixture is one seed company with explicit ids everywhere (UUIDs and a
// free-form message id), as a team's fixture file has them.
func fixture() fake.CompanySeed {
	return fake.CompanySeed{
		Channels: []fake.ChannelAccount{{ID: "a0000000-0000-4000-8000-00000000000a", Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"}},
		Contacts: []fake.Contact{{ID: "c0000000-0000-4000-8000-00000000000c", ChannelAccountID: "a0000000-0000-4000-8000-00000000000a",
			PhoneNumber: "5511987654321", Name: "Ana"}},
		Conversations: []fake.Conversation{{ID: "d0000000-0000-4000-8000-00000000000d", ContactID: "c0000000-0000-4000-8000-00000000000c",
			Messages: []fake.Message{{MessageID: "msg-1", Text: "hi"}}}},
	}
}

// Ids are unique within a company only: two companies load one fixture, and
// each reads and changes its own objects under the same ids.
func TestTenantsFromOneFixture(t *testing.T) {
	s := newServer(t)
	one, two := fixture(), fixture()
	one.APIKey, two.APIKey = "k-one", "k-two"
	a, err := s.AddCompanySeed(one)
	require.NoError(t, err)
	b, err := s.AddCompanySeed(two)
	require.NoError(t, err, "the same ids load in a second company")

	b.SetStatus("d0000000-0000-4000-8000-00000000000d", convo.ConversationResolved)
	b.AddReaction("msg-1", fake.Reaction{Emoji: "👍"})
	ca, _ := a.Conversation("d0000000-0000-4000-8000-00000000000d")
	cb, _ := b.Conversation("d0000000-0000-4000-8000-00000000000d")
	assert.Equal(t, convo.ConversationOpen, ca.Status, "the other company's change is not seen")
	assert.Equal(t, convo.ConversationResolved, cb.Status)
	assert.Equal(t, a.ID(), ca.CompanyID)
	ma, _ := a.Message("msg-1")
	mb, _ := b.Message("msg-1")
	assert.Empty(t, ma.Reactions)
	assert.Len(t, mb.Reactions, 1)
	cta, ok := a.Contact("c0000000-0000-4000-8000-00000000000c")
	require.True(t, ok)
	assert.Equal(t, a.ID(), cta.CompanyID)

	// Over the API, each key sees its own conversation.
	for _, key := range []string{"k-one", "k-two"} {
		r := get(t, s, "/conversations?status=all", bearer(key))
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Contains(t, string(r.Body), "d0000000-0000-4000-8000-00000000000d")
	}
	r := get(t, s, "/conversations?status=resolved", bearer("k-one"))
	assert.NotContains(t, string(r.Body), "d0000000", "k-one sees its own open conversation only")
	r = get(t, s, "/conversations?status=resolved", bearer("k-two"))
	assert.Contains(t, string(r.Body), "d0000000")

	// A company's own ids still clash within it.
	_, err = s.AddCompanySeed(fake.CompanySeed{APIKey: "k-three", Channels: append(fixture().Channels, fixture().Channels[0])})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `seed: company.channels[1].id: id "a0000000-0000-4000-8000-00000000000a" is already used`)

	// A seed with two companies from one fixture loads too.
	require.NoError(t, s.Load(&fake.Seed{Companies: []fake.CompanySeed{fixture(), two}}))
	got, ok := s.Contact("c0000000-0000-4000-8000-00000000000c")
	require.True(t, ok)
	assert.Equal(t, s.Company().ID(), got.CompanyID, "Server.Contact looks in the default company first")
}
