package fake

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// The stored message is kept small on purpose: a million of them is the
// scale the fake is built for.
func TestMessageRecordSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(message{}), uintptr(64))
}

func TestParseUUIDTakesOnlyTheFakesForm(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"0b6f2c1e-1111-4a5b-9c3d-000000000001", true},
		{newUUID(), true},
		{"0B6F2C1E-1111-4A5B-9C3D-000000000001", false}, // upper case would not come back the same
		{"0b6f2c1e11114a5b9c3d000000000001", false},
		{"0b6f2c1e-1111-4a5b-9c3d-00000000000g", false},
		{"{0b6f2c1e-1111-4a5b-9c3d-000000000001}", false},
		{"msg-1", false},
		{"", false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			u, ok := parseUUID(tc.id)
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.id, formatUUID(u))
			}
		})
	}
}

// parseUUID takes a string exactly when it is the fake's form of the bytes
// it reads: every byte value at every place of a UUID tried.
func TestParseUUIDIsFormatUUIDsInverse(t *testing.T) {
	id := []byte("0b6f2c1e-1111-4a5b-9c3d-00000000000f")
	for at := range id {
		orig := id[at]
		for c := range 256 {
			id[at] = byte(c)
			u, ok := parseUUID(string(id))
			if want := formatUUID(u) == string(id); ok != want {
				t.Fatalf("parseUUID(%q): ok %v, want %v", id, ok, want)
			}
		}
		id[at] = orig
	}
}

// Messages with ids of both forms sort as their ids do as strings.
func TestMessageOrderIsTheStringOrderOfIDs(t *testing.T) {
	ids := []string{"0b6f2c1e-1111-4a5b-9c3d-000000000001", "0b6f2c1e-1111-4a5b-9c3d-00000000000a",
		"ffffffff-1111-4a5b-9c3d-000000000001", "0b6f2c1e-1111-4a5b-9c3d-00000000000", "custom-1",
		"Z", "0b6f2c1e-1111-4a5b-9c3d-0000000000011", "0b6f2c1e-1111-4a5b-9c3d-000000000001x"}
	for range 10 {
		ids = append(ids, newUUID())
	}
	for _, a := range ids {
		for _, b := range ids {
			ma, mb := &message{at: 5}, &message{at: 5}
			ma.setID(a)
			mb.setID(b)
			assert.Equal(t, strings.Compare(a, b), ma.compareID(mb), "%s vs %s", a, b)
			assert.Equal(t, a < b, ma.before(mb))
		}
	}
	early, late := &message{at: 1}, &message{at: 2}
	early.setID("z")
	late.setID("a")
	assert.True(t, early.before(late), "time first, then id")
}

func TestMessageCodesComeBack(t *testing.T) {
	for _, typ := range append(slices.Clone(messageTypes), "hologram") {
		m := &message{}
		m.setType(typ)
		assert.Equal(t, typ, m.msgType())
	}
	for i, s := range senders {
		m := &message{sender: uint8(i)}
		assert.Equal(t, s, m.from())
	}
}

func TestNanosHoldsAnyTimeInRange(t *testing.T) {
	for _, tc := range []struct {
		at   time.Time
		want int64
	}{
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), minMessageTime.UnixNano()},
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), maxMessageTime.UnixNano()},
		{time.Date(2026, 3, 10, 12, 0, 0, 5, time.UTC), time.Date(2026, 3, 10, 12, 0, 0, 5, time.UTC).UnixNano()},
	} {
		assert.Equal(t, tc.want, nanos(tc.at), tc.at)
	}
}

// The times a status implies are not stored; those given otherwise are.
func TestMessageKeepsOnlyTheTimesItsStatusDoesNotImply(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	implied, other := at.Add(time.Second), at.Add(3*time.Second)
	read := at.Add(time.Minute)
	for _, tc := range []struct {
		name                string
		status              string
		delivered, readAt   *time.Time
		wantMore            bool
		wantDelivered, want *time.Time
	}{
		{"implied", "delivered", &implied, nil, false, &implied, nil},
		{"read implied", "read", &implied, &read, false, &implied, &read},
		{"other delivered", "delivered", &other, nil, true, &other, nil},
		{"queued delivered", "queued", &implied, nil, true, &implied, nil},
		{"none", "delivered", nil, nil, false, &implied, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &message{at: at.UnixNano()}
			m.status, _ = codeOf(messageStatuses, tc.status)
			m.setTimes(tc.delivered, tc.readAt)
			assert.Equal(t, tc.wantMore, m.more != nil)
			assert.Equal(t, tc.wantDelivered, m.deliveredAt())
			assert.Equal(t, tc.want, m.readAt())
		})
	}
}

func TestMessageOutOfRangeTimeIsRefused(t *testing.T) {
	const acc, ct = "0b6f2c1e-1111-4a5b-9c3d-000000000001", "0b6f2c1e-1111-4a5b-9c3d-000000000002"
	seed := func(at time.Time) *Seed {
		return &Seed{Companies: []CompanySeed{{
			Channels: []ChannelAccount{{ID: acc, Channel: convo.ChannelChatapp}},
			Contacts: []Contact{{ID: ct, ChannelAccountID: acc, PhoneNumber: "5511999990000"}},
			Conversations: []Conversation{{ContactID: ct, CreatedAt: at,
				Messages: []Message{{Text: "hi", At: at}}}},
		}}}
	}
	s := New(t)
	err := s.Load(seed(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "companies[0].conversations[0].messages[0].at: 1500-01-01T00:00:00Z is out of range")
	require.NoError(t, s.Load(seed(time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC))))
}

// A page read twice is encoded once; a reaction makes its message
// encoded again; the cache stays within its bound.
func TestMessageCache(t *testing.T) {
	var c messageCache
	msgs := make([]*message, 3)
	for i := range msgs {
		msgs[i] = &message{at: int64(i), text: fmt.Sprint("m", i)}
		msgs[i].setID(newUUID())
	}
	first := c.encodeAll(msgs)
	again := c.encodeAll(msgs)
	for i := range msgs {
		assert.JSONEq(t, string(msgs[i].encode()), string(first[i]))
		assert.Same(t, unsafe.SliceData(first[i]), unsafe.SliceData(again[i]), "served from the cache")
	}
	msgs[1].extra().reactions = []reaction{{Emoji: "👍", Direction: convo.DirectionInbound}}
	c.forget(msgs[1])
	after := c.encodeAll(msgs)
	assert.Contains(t, string(after[1]), "👍")

	big := strings.Repeat("x", 64<<10)
	for i := range 200 { // 200 × 64 KiB: three times the bound
		m := &message{at: int64(i), text: big}
		m.setID(newUUID())
		c.encodeAll([]*message{m})
	}
	held := 0
	for _, b := range c.messages.cur {
		held += len(b)
	}
	for _, b := range c.messages.prev {
		held += len(b)
	}
	assert.LessOrEqual(t, held, messageCacheBytes)
}

func TestWaitedIsSubHeldToADuration(t *testing.T) {
	for _, tc := range []struct{ now, at time.Time }{
		{time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)},
		{time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)},
		{maxMessageTime, minMessageTime},
		{minMessageTime, maxMessageTime},
	} {
		assert.Equal(t, tc.now.Sub(tc.at), waited(tc.now.UnixNano(), tc.at.UnixNano()), "%s - %s", tc.now, tc.at)
	}
}
