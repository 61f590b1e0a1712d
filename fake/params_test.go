package fake_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
)

// Integer parameters (limit of listMessages, listConversations and
// getAnomalies, threshold_hours of getAnomalies) take plain decimal digits
// only, leading zeros allowed, within their bounds (docs/behaviour.md,
// Strict input).
func TestIntegerParameters(t *testing.T) {
	s, b := newBasic(t)
	conv := b.co.AddConversation(fake.Conversation{Contact: b.ana})
	endpoints := []struct {
		name, path, param string
		max               int
	}{
		{"messages limit", "/conversations/" + conv + "/messages", "limit", 100},
		{"conversations limit", "/conversations", "limit", 100},
		{"anomalies limit", "/conversations/anomalies", "limit", 100},
		{"anomalies threshold", "/conversations/anomalies", "threshold_hours", 24},
	}
	values := []struct {
		v  string
		ok func(max int) bool
	}{
		{"", never}, {" 5", never}, {"5 ", never}, {"+5", never}, {"-1", never}, {"0", never}, {"1e2", never},
		{"5.0", never}, {"0x10", never}, {"abc", never}, {"99999999999999999999999", never},
		{"1", always}, {"05", always}, {"0000005", always},
		{"24", always}, {"25", func(max int) bool { return max >= 25 }},
		{"100", func(max int) bool { return max >= 100 }}, {"101", never},
	}
	for _, ep := range endpoints {
		for _, v := range values {
			t.Run(ep.name+"="+v.v, func(t *testing.T) {
				r := get(t, s, ep.path+"?"+ep.param+"="+url.QueryEscape(v.v))
				if v.ok(ep.max) {
					assert.Equal(t, 200, r.Status, "%s", r.Body)
					return
				}
				assertError(t, r, 400, "INVALID_PARAM", fmt.Sprintf("%s must be an integer from 1 to %d", ep.param, ep.max), "/api/v1"+ep.path, "GET", "")
			})
		}
	}
}

func never(int) bool { return false }

func always(int) bool { return true }

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

	assert.Panics(t, func() { b.co.AddContact(fake.Contact{Account: b.chat, Phone: "5511933334444", Name: "x\x00"}) })
}
