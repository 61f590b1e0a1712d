package fake_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/convoapi/convo-go/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Spec §4.1 rule 3, §4.3, §8, D4: integer parameters take plain decimal
// digits only (leading zeros allowed), within their bounds.
func TestAuditIntegerParameterEdges(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
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

	assert.Panics(t, func() { b.co.AddContact(fake.Contact{Account: b.chat, Phone: "5511933334444", Name: "x\x00"}) })
}

func mustContact(t *testing.T, s *fake.Server, id string) fake.ContactState {
	t.Helper()
	c, ok := s.Contact(id)
	require.True(t, ok)
	return c
}

func TestMalformedBodies(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	tests := []struct {
		name, contentType, body, msg string
	}{
		{"not JSON", "application/json", `{"phone_number":`, "The request body must be a JSON object"},
		{"JSON array", "application/json", `[1,2]`, "The request body must be a JSON object"},
		{"JSON string", "application/json", `"x"`, "The request body must be a JSON object"},
		{"form content type", "application/x-www-form-urlencoded", `phone_number=1`, "Content-Type must be application/json"},
		{"no content type", "", `{"phone_number":"5511987654321"}`, "Content-Type must be application/json"},
		{"wrong field type", "application/json", `{"phone_number":5511987654321,"phone_number_id":"x","name":"A"}`, "phone_number must be a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", s.URL()+"/chatapp/contacts", strings.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+s.APIKey())
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			raw := readAll(t, res)
			assertError(t, resp{res.StatusCode, res.Header, raw}, 400, "INVALID_PARAM", tc.msg, "/api/v1/chatapp/contacts", "POST", "")
		})
	}
	_ = b
}

// §7: the oversized-body answer (the fake's own 400) comes after 401 and is
// in the envelope, for an authenticated request.
func TestAuditOversizedBody(t *testing.T) {
	s := newServer(t)
	big := `{"phone_number":"` + strings.Repeat("1", 1<<20) + `"}`
	r := callRaw(t, s, "POST", "/v1/chatapp/sequences/cancel", big, bearer(s.APIKey()), header{"Content-Type", "application/json"})
	assertError(t, r, 400, "INVALID_PARAM", "The request body is larger than 1 MiB.", "/api/v1/chatapp/sequences/cancel", "POST", "")
}
