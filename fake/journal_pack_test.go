package fake

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A packed header unpacks to the header's copy, as http.Header.Clone makes
// it (a name without values kept with nil values), and its budget size is
// what rawSize counts for the same header unpacked.
func TestPackHeader(t *testing.T) {
	long := strings.Repeat("v", 700) // past the stack buffer
	for _, tc := range []struct {
		name string
		h    http.Header
	}{
		{"nil", nil},
		{"empty", http.Header{}},
		{"bearer", http.Header{"Authorization": {"Bearer sk-0123456789"}, "Accept": {"application/json"}}},
		{"two values, no scheme, x-api-key", http.Header{"Authorization": {"sk-1"}, "X-Api-Key": {"a", "b"}, "X-Echo": {"1", "2", ""}}},
		{"a name without values", http.Header{"X-Empty": nil, "X-Zero": {}}},
		{"long values", http.Header{"X-Long": {long, long}, "Cookie": {long}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			packed, size := packHeader(tc.h, 5)
			assert.Equal(t, len(packed)+5, cap(packed), "room for the body")
			want := http.Header{}
			for k, vs := range tc.h.Clone() {
				if len(vs) == 0 {
					vs = nil
				}
				want[k] = vs
			}
			assert.Equal(t, want, unpackHeader(packed))
			unpacked := entry{header: tc.h}
			assert.Equal(t, unpacked.rawSize(), (&entry{packedSize: size}).rawSize())
		})
	}
}

// An entry recorded with a body keeps the body after the packed header,
// and builds the same Request as an entry holding the header unpacked.
func TestPackedEntryBuildsAsUnpacked(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	h := http.Header{"Authorization": {"Bearer " + key}, "X-Echo": {"a " + key}}
	body := []byte(`{"k":"` + key + `"}`)
	packed, size := packHeader(h, len(body))
	n := len(packed)
	packed = append(packed, body...)
	keys := &keySet{keys: []string{key}}
	a := entry{req: Request{Method: "POST"}, path: "/v1/x/" + key, rawQuery: "k=" + key, packed: packed, packedSize: size, body: packed[n:], keys: keys}
	b := entry{req: Request{Method: "POST"}, path: "/v1/x/" + key, rawQuery: "k=" + key, header: h, body: body, keys: keys}
	assert.Equal(t, b.rawSize(), a.rawSize())
	a.build(journalBodyMax)
	b.build(journalBodyMax)
	assert.Equal(t, b.req, a.req)
	assert.Nil(t, a.packed, "a built entry holds only its Request")
	assert.Equal(t, `{"k":"[REDACTED]"}`, string(a.req.Body))
}
