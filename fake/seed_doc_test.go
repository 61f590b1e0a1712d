package fake

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go"
)

// seedOfConversations is a seed of one company with n contacts and n
// conversations of one message each.
func seedOfConversations(n int) *Seed {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cs := CompanySeed{
		ID:          "c1000000-0000-4000-8000-000000000000",
		Channels:    []ChannelAccount{{ID: "a1000000-0000-4000-8000-000000000000", Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511000000000"}},
		AllowFuture: true,
	}
	for i := range n {
		ct := fmt.Sprintf("c0000000-0000-4000-8000-%012d", i)
		cs.Contacts = append(cs.Contacts, Contact{ID: ct, ChannelAccountID: cs.Channels[0].ID, Name: fmt.Sprintf("<Ana & %d>", i), PhoneNumber: fmt.Sprintf("55%011d", i)})
		cs.Conversations = append(cs.Conversations, Conversation{ID: fmt.Sprintf("d0000000-0000-4000-8000-%012d", i), ContactID: ct,
			Messages: []Message{{MessageID: fmt.Sprintf("e0000000-0000-4000-8000-%012d", i), Sender: SenderContact, Text: "olá \u2028 <b>", At: now.Add(-time.Duration(i+1) * time.Second)}}})
	}
	return &Seed{Now: &now, Companies: []CompanySeed{cs}}
}

func TestEncodeSeedIsJSONMarshalsDocument(t *testing.T) {
	big := seedOfConversations(3000)
	for _, tc := range []struct {
		name string
		seed *Seed
	}{
		{"the sample (now, two companies)", sampleSeed(t)},
		{"the demo data", DemoSeed()},
		{"many conversations (several pieces)", big},
		{"no companies", &Seed{}},
		{"no company listed", &Seed{Companies: []CompanySeed{}}},
		{"an empty company", &Seed{Companies: []CompanySeed{{}}}},
		{"conversations only", &Seed{Companies: []CompanySeed{{Conversations: big.Companies[0].Conversations[:2]}}}},
		{"contacts only", &Seed{Companies: []CompanySeed{{Contacts: big.Companies[0].Contacts[:2]}}}},
		{"contacts after other fields", &Seed{Companies: []CompanySeed{{APIKey: "k", Contacts: big.Companies[0].Contacts[:1]}, {}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := encodeSeed(tc.seed)
			want := encode(tc.seed)
			var got, wantAny any
			require.NoError(t, json.Unmarshal(doc.bytes(), &got), "%s", doc.bytes())
			require.NoError(t, json.Unmarshal(want, &wantAny))
			assert.Equal(t, wantAny, got, "the same document as json.Marshal's, but for the order of fields and spaces")

			decoded, err := doc.decode()
			require.NoError(t, err)
			assert.Equal(t, encode(tc.seed), encode(decoded), "it decodes to the seed")
		})
	}
}

func TestEncodeSeedWritesPiecesThatFitTheDocument(t *testing.T) {
	for _, tc := range []struct {
		name      string
		seed      *Seed
		minPieces int
	}{
		{"a test's seed", DemoSeed(), 1},
		{"a large seed", seedOfConversations(20_000), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := encodeSeed(tc.seed)
			total, room := 0, 0
			for _, p := range doc.pieces {
				assert.LessOrEqual(t, cap(p), maxPiece)
				total, room = total+len(p), room+cap(p)
			}
			assert.GreaterOrEqual(t, len(doc.pieces), tc.minPieces, "written in pieces, not in one growing buffer")
			assert.Equal(t, len(doc.bytes()), total)
			assert.LessOrEqual(t, room, 2*total, "no piece is much larger than what it holds")
		})
	}
}

// What Reset brings back from the pieces is the seed the server started
// with, to the byte of its export.
func TestResetFromThePiecesBringsBackTheStartData(t *testing.T) {
	seed := seedOfConversations(200)
	s, err := NewHandler(WithClock(NewManualClock(*seed.Now)), WithSeed(seed))
	require.NoError(t, err)
	start := encode(s.ExportSeed())
	co := s.Company()
	add := func() {
		co.AddContact(Contact{ChannelAccountID: co.Channels()[0].ID, PhoneNumber: "5511999990000"})
		require.NotEqual(t, start, encode(s.ExportSeed()))
	}
	add()
	s.Reset()
	assert.Equal(t, string(start), string(encode(s.ExportSeed())), "Server.Reset")
	add()
	require.NoError(t, co.Reset())
	assert.Equal(t, string(start), string(encode(s.ExportSeed())), "Company.Reset")
}
