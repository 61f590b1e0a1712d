package fake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cursor is the base64 of its JSON, a dot, and the base64 of the first
// 16 bytes of its HMAC-SHA256 under the server's key, however many sign at
// once; it decodes back, and a cursor with a changed byte does not.
func TestCursorSigning(t *testing.T) {
	s, err := NewHandler()
	require.NoError(t, err)
	want := func(c cursor) string {
		payload, _ := json.Marshal(c)
		mac := hmac.New(sha256.New, s.cursorKey)
		mac.Write(payload)
		return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				c := cursor{Kind: "m", Conv: "conv", SinceMilli: int64(g), At: int64(i), ID: "id"}
				got := s.encodeCursor(c)
				assert.Equal(t, want(c), got)
				back, apiErr := s.decodeCursor(got, "m")
				assert.Nil(t, apiErr)
				assert.Equal(t, c, back)
			}
		})
	}
	wg.Wait()
	f := convFilters{}
	withFilters := cursor{Kind: "c", Seq: 3, At: 1, ID: "c-1", Filters: &f}
	assert.Equal(t, want(withFilters), s.encodeCursor(withFilters))
	again := cursor{Kind: "m", Conv: "conv", At: 7, ID: "id"}
	assert.Equal(t, s.encodeCursor(again), s.encodeCursor(again), "the same cursor, the same text")
	assert.Equal(t, want(again), s.encodeCursor(again))
	good := s.encodeCursor(cursor{Kind: "m", At: 1, ID: "x"})
	payload, sig, _ := strings.Cut(good, ".")
	flipped := string(rune('A' + (sig[0]-'A'+1)%26))
	for _, bad := range []string{payload + "." + flipped + sig[1:], "x" + good, "nodot", good + "."} {
		_, apiErr := s.decodeCursor(bad, "m")
		assert.NotNil(t, apiErr, bad)
	}
	_, apiErr := s.decodeCursor(good, "c")
	assert.NotNil(t, apiErr, "a cursor of another kind")
}
