package fake_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
)

// A query parameter given twice is INVALID_PARAM naming it, whichever value
// comes first: never a silent first-wins.
func TestRepeatedQueryParameters(t *testing.T) {
	s := newServer(t)
	seedBasic(t, s)
	tests := []struct{ query, param string }{
		{"/conversations?limit=1&limit=500", "limit"},
		{"/conversations?limit=500&limit=1", "limit"},
		{"/conversations?status=open&status=bogus", "status"},
		{"/conversations?status=open&status=open", "status"},
		{"/conversations/anomalies?include=unassigned&include=automation_only", "include"},
		{"/conversations/anomalies?include=unassigned&include=bogus", "include"},
		{"/chatapp/contacts/lookup?phone_number=5511987654321&phone_number=1", "phone_number"},
		{"/channels?x=1;y&x=2", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, s, tc.query)
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			msg := r.JSON(t)["message"].(map[string]any)
			assert.Equal(t, "INVALID_PARAM", msg["error"])
			assert.Contains(t, msg["message"], tc.param+" is given more than once")
		})
	}
	assert.Equal(t, http.StatusOK, get(t, s, "/conversations/anomalies?include=unassigned,automation_only").Status)
}

// JSON text that encoding/json would silently change is refused naming the
// body: invalid UTF-8 (two custom-field names would collapse into one), a
// lone surrogate escape, a NUL character (in a contact's name, say).
func TestJSONBodyText(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	create := func(name string) string {
		return `{"phone_number_id":"` + b.chatPNID + `","phone_number":"5511911112222","name":"` + name + `"}`
	}
	tests := []struct {
		name, method, path, body, want string
	}{
		{"invalid UTF-8 in a field name", "PATCH", "/v1/chatapp/contacts/custom-fields",
			"{\"phone_number\":\"5511987654321\",\"custom_fields\":{\"a\xff\":\"1\",\"a\xfe\":\"2\"}}", "body is not valid UTF-8"},
		{"invalid UTF-8 in a name", "POST", "/v1/chatapp/contacts", create("Ana\xc3"), "body is not valid UTF-8"},
		{"NUL in a name", "POST", "/v1/chatapp/contacts", create(`Ana\u0000`), "NUL character"},
		{"lone high surrogate", "POST", "/v1/chatapp/contacts", create(`\ud83d`), "lone UTF-16 surrogate"},
		{"lone low surrogate", "POST", "/v1/chatapp/contacts", create(`\ude00x`), "lone UTF-16 surrogate"},
		{"high then not low", "POST", "/v1/chatapp/contacts", create(`\ud83d\u0041`), "lone UTF-16 surrogate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, tc.method, tc.path, tc.body)
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			msg := r.JSON(t)["message"].(map[string]any)
			assert.Equal(t, "INVALID_PARAM", msg["error"])
			assert.Contains(t, msg["message"], tc.want)
		})
	}
	_, found := b.co.ContactByPhone(b.chat, "5511911112222")
	assert.False(t, found, "nothing was created")
	assert.Equal(t, map[string]string{"plan": "gold"}, mustContact(t, s, b.ana).CustomFields)

	ok := call(t, s, "POST", "/v1/chatapp/contacts", create(`Ana \ud83d\ude00 \u00e9`))
	assert.Equal(t, http.StatusCreated, ok.Status, "%s", ok.Body)

	assert.Panics(t, func() {
		b.co.AddContact(fake.Contact{ChannelAccountID: b.chat, PhoneNumber: "5511933334444", Name: "x\x00"})
	})
}

func mustContact(t *testing.T, s *fake.Server, id string) fake.Contact {
	t.Helper()
	c, ok := s.Contact(id)
	require.True(t, ok)
	return c
}
