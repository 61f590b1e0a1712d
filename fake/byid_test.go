package fake

import (
	"fmt"
	"slices"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestByIDFindsEveryFormOfID(t *testing.T) {
	m := newByID[int]()
	ids := []string{newUUID(), "0B6F2C1E-1111-4A5B-9C3D-000000000001", "contact-7", ""}
	for i, id := range ids {
		m.put(id, i+1)
	}
	for i, id := range ids {
		assert.Equal(t, i+1, m.get(id), id)
	}
	assert.Zero(t, m.get(newUUID()))
	assert.Zero(t, m.get("0b6f2c1e-1111-4a5b-9c3d-000000000001"), "another form of a stored id is another id")
	assert.Equal(t, len(ids), m.len())
	got := slices.Sorted(m.all())
	assert.Equal(t, []int{1, 2, 3, 4}, got)
	for range m.all() {
		break // stopping early is allowed
	}
}

func TestGrownKeepsEveryEntry(t *testing.T) {
	for _, tc := range []struct {
		name       string
		have, more int
		same       bool
	}{
		{"a few more: the map itself", 3, 10, true},
		{"many more, into an empty map", 0, 5000, false},
		{"many more, beside entries", 2000, 5000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[int]int{}
			for i := range tc.have {
				m[i] = -i
			}
			g := grown(m, tc.more)
			assert.Equal(t, m, g)
			g[-1] = 1
			_, inM := m[-1]
			assert.Equal(t, tc.same, inM, "grown returns m itself only for a few more")
		})
	}
}

func TestPhoneKeyTellsEveryNumberApart(t *testing.T) {
	phones := []string{"00000000", "000000000", "10000000", "01000000", "55119876543210", "551198765432100", "999999999999999", "100000000000000"}
	seen := map[uint64]string{}
	for _, p := range phones {
		k := phoneKey(p)
		assert.NotContains(t, seen, k, "%s and %s", p, seen[k])
		seen[k] = p
	}
}

func TestLoadingALargeSeedKeepsEveryContactFindable(t *testing.T) {
	s, err := NewHandler(WithClock(NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))), WithJournalLimit(0))
	require.NoError(t, err)
	const n = 3000 // past grown's threshold
	cs := CompanySeed{Channels: []ChannelAccount{{Ref: "ch", Channel: convo.ChannelChatapp}}}
	for i := range n {
		cs.Contacts = append(cs.Contacts, Contact{Ref: fmt.Sprint("c", i), ChannelAccountID: "ch", PhoneNumber: fmt.Sprintf("55%011d", i)})
		cs.Conversations = append(cs.Conversations, Conversation{ContactID: fmt.Sprint("c", i),
			Messages: []Message{{Sender: SenderContact, Text: "hi", At: time.Date(2025, 12, 1, 0, 0, i, 0, time.UTC)}}})
	}
	require.NoError(t, s.Company().Load(cs))
	for _, i := range []int{0, 1, n / 2, n - 1} {
		ct, ok := s.Company().ContactByPhone("", fmt.Sprintf("+55 %011d", i))
		require.True(t, ok, i)
		assert.Equal(t, fmt.Sprintf("55%011d", i), ct.PhoneNumber)
	}
	assert.Len(t, s.Company().Conversations(), n)
}
