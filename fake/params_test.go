package fake_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
)

// A request body is a JSON object sent as application/json, of at most
// 1 MiB, whose text encoding/json would not silently change (invalid UTF-8:
// two custom-field names would collapse into one; a lone surrogate escape;
// a NUL character). Anything else is 400 INVALID_PARAM naming the fault and
// changes nothing (docs/behaviour.md, Strict input).
func TestRequestBodies(t *testing.T) {
	s, b := newBasic(t)
	create := func(name string) string {
		return `{"phone_number_id":"` + b.chatPNID + `","phone_number":"5511911112222","name":"` + name + `"}`
	}
	const (
		contacts  = "/v1/chatapp/contacts"
		jsonType  = "application/json"
		notObject = "The request body must be a JSON object"
		notJSON   = "Content-Type must be application/json"
		notUTF8   = "body is not valid UTF-8"
		surrogate = "body holds a lone UTF-16 surrogate escape in a string"
	)
	tests := []struct {
		name, method, path, contentType, body, msg string
	}{
		{"not JSON", "POST", contacts, jsonType, `{"phone_number":`, notObject},
		{"JSON array", "POST", contacts, jsonType, `[1,2]`, notObject},
		{"JSON string", "POST", contacts, jsonType, `"x"`, notObject},
		{"form content type", "POST", contacts, "application/x-www-form-urlencoded", `phone_number=1`, notJSON},
		{"no content type", "POST", contacts, "", `{"phone_number":"5511987654321"}`, notJSON},
		{"wrong field type", "POST", contacts, jsonType, `{"phone_number":5511987654321,"phone_number_id":"x","name":"A"}`, "phone_number must be a string"},
		{"oversized", "POST", "/v1/chatapp/sequences/cancel", jsonType, `{"phone_number":"` + strings.Repeat("1", 1<<20) + `"}`, "The request body is larger than 1 MiB."},
		{"invalid UTF-8 in a field name", "PATCH", "/v1/chatapp/contacts/custom-fields", jsonType,
			"{\"phone_number\":\"5511987654321\",\"custom_fields\":{\"a\xff\":\"1\",\"a\xfe\":\"2\"}}", notUTF8},
		{"invalid UTF-8 in a name", "POST", contacts, jsonType, create("Ana\xc3"), notUTF8},
		{"NUL in a name", "POST", contacts, jsonType, create(`Ana\u0000`), `body holds a NUL character (\u0000) in a string; no field accepts one`},
		{"lone high surrogate", "POST", contacts, jsonType, create(`\ud83d`), surrogate},
		{"lone low surrogate", "POST", contacts, jsonType, create(`\ude00x`), surrogate},
		{"high then not low", "POST", contacts, jsonType, create(`\ud83d\u0041`), surrogate},
		{"duplicate key", "POST", contacts, jsonType, `{"phone_number":"5511911112222","phone_number":"5511911113333","phone_number_id":"x","name":"A"}`,
			"phone_number is given more than once in the body; give it once"},
		{"duplicate key, escaped", "POST", contacts, jsonType, `{"n\u0061me":"B",` + create("A")[1:], "name is given more than once in the body; give it once"},
		{"duplicate key in an array's object", "POST", contacts, jsonType, `{"x":[{"a":1,"a":2}],` + create("A")[1:], "x[0].a is given more than once in the body; give it once"},
		{"duplicate nested key", "PATCH", "/v1/chatapp/contacts/custom-fields", jsonType,
			`{"phone_number":"5511987654321","custom_fields":{"plan":"a","plan":"b"}}`, "custom_fields.plan is given more than once in the body; give it once"},
		{"an empty key twice", "POST", contacts, jsonType, `{"":1,"":2}`, `"" is given more than once in the body; give it once`},
		{"an empty key twice, nested", "PATCH", "/v1/chatapp/contacts/custom-fields", jsonType,
			`{"phone_number":"5511987654321","custom_fields":{"":"a","":"b"}}`, `custom_fields."" is given more than once in the body; give it once`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			headers := []header{bearer(s.APIKey())}
			if tc.contentType != "" {
				headers = append(headers, header{"Content-Type", tc.contentType})
			}
			r := callRaw(t, s, tc.method, tc.path, tc.body, headers...)
			assertError(t, r, 400, "INVALID_PARAM", tc.msg, errPath(tc.path), tc.method, "")
		})
	}
	_, found := b.co.ContactByPhone(b.chat, "5511911112222")
	assert.False(t, found, "nothing was created")
	assert.Equal(t, map[string]string{"plan": "gold"}, mustContact(t, s, b.ana).CustomFields)

	ok := call(t, s, "POST", contacts, create(`Ana \ud83d\ude00 \u00e9`))
	assert.Equal(t, http.StatusCreated, ok.Status, "%s", ok.Body)

	assert.Panics(t, func() {
		b.co.AddContact(fake.Contact{ChannelAccountID: b.chat, PhoneNumber: "5511933334444", Name: "x\x00"})
	})
}
