package fake

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/stretchr/testify/require"
)

// randomMessage is a message with every field drawn at random, strings
// included that encoding/json escapes (HTML, control characters, invalid
// UTF-8, U+2028).
func randomMessage(r *rand.Rand) *message {
	strs := []string{"", "hello", "Olá, tudo bem? 👋", "<b>&amp;</b>", "a\"b\\c", "line\nbreak\ttab\r\b\f", "\x00\x1f\x7f", "bad \xff utf8", "sep \u2028 \u2029", "image/png", "f0000000-0000-4000-8000-000000000001"}
	str := func() string { return strs[r.IntN(len(strs))] }
	ptr := func() *string {
		if r.IntN(3) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	loc := time.FixedZone("X", -3*3600)
	at := func() stamp {
		return stamp(time.Date(2020+r.IntN(10), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), loc))
	}
	stampPtr := func() *stamp {
		if r.IntN(2) == 0 {
			return nil
		}
		t := at()
		return &t
	}
	types := []convo.MessageType{convo.MessageText, convo.MessageImage, convo.MessageSystem, convo.MessageUnsupported, "document", "x<y"}
	m := &message{
		MessageID: str(), Direction: convo.Direction(str()), Type: types[r.IntN(len(types))],
		Status: ptr(), Text: ptr(), SentAt: stampPtr(), DeliveredAt: stampPtr(), ReadAt: stampPtr(), FailureReason: ptr(),
		sender: Sender(str()),
	}
	if r.IntN(2) == 0 {
		m.Media = &media{MediaID: ptr(), MediaStatus: convo.MediaStatus(str()), MimeType: ptr(), Filename: ptr()}
		if r.IntN(2) == 0 {
			n := r.Int64N(1<<40) - 5
			m.Media.FileSize = &n
		}
	}
	switch r.IntN(3) {
	case 1:
		m.Reactions = []reaction{}
	case 2:
		for range 1 + r.IntN(3) {
			m.Reactions = append(m.Reactions, reaction{Emoji: str(), Direction: convo.Direction(str()), ReactedAt: at()})
		}
	}
	if r.IntN(5) > 0 {
		m.Raw = raw{m}
	}
	return m
}

// The hand-written wire form is json.Marshal's, byte for byte.
func TestAppendMessageIsJSONMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		m := randomMessage(r)
		want, err := json.Marshal(m)
		require.NoError(t, err)
		m.encode()
		require.Equal(t, string(want), string(m.encoded))
	}
}
