package fake_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// MISSING_PARAM names the field, for each required field of each contact
// operation (createContact, lookupContact, updateContactCustomFields,
// removeContactTags, cancelSequence), when absent, null or empty; a refused
// request creates nothing.
func TestMissingParamNamesEachField(t *testing.T) {
	s, b := newBasic(t)
	before := len(b.co.Contacts())
	full := map[string]map[string]any{
		"POST /v1/chatapp/contacts":                 {"phone_number_id": b.chatPNID, "phone_number": "5511911112222", "name": "X"},
		"PATCH /v1/chatapp/contacts/custom-fields":  {"phone_number": b.anaPhone, "custom_fields": map[string]string{"a": "b"}},
		"DELETE /v1/chatapp/contacts/tags":          {"phone_number": b.anaPhone, "tag_ids": "x"},
		"POST /v1/chatapp/sequences/cancel":         {"phone_number": b.anaPhone},
		"GET /v1/chatapp/contacts/lookup?(query)":   {"phone_number": b.anaPhone},
		"PATCH /v1/chatapp/contacts/custom-fields ": {"phone_number": b.anaPhone, "custom_fields": map[string]string{}},
	}
	required := map[string][]string{
		"POST /v1/chatapp/contacts":                {"phone_number_id", "phone_number", "name"},
		"PATCH /v1/chatapp/contacts/custom-fields": {"phone_number", "custom_fields"},
		"DELETE /v1/chatapp/contacts/tags":         {"phone_number", "tag_ids"},
		"POST /v1/chatapp/sequences/cancel":        {"phone_number"},
		"GET /v1/chatapp/contacts/lookup?(query)":  {"phone_number"},
	}
	for ep, fields := range required {
		method, p, _ := strings.Cut(ep, " ")
		p = strings.TrimSuffix(p, "?(query)")
		for _, field := range fields {
			for _, variant := range []string{"absent", "null", "empty"} {
				t.Run(ep+" "+field+" "+variant, func(t *testing.T) {
					body := map[string]any{}
					for k, v := range full[ep] {
						body[k] = v
					}
					switch variant {
					case "absent":
						delete(body, field)
					case "null":
						body[field] = nil
					case "empty":
						if field == "custom_fields" {
							t.Skip("an empty object merges nothing; it is not missing")
						}
						body[field] = ""
					}
					var r resp
					if method == "GET" {
						if variant == "null" {
							t.Skip("no null in a query string")
						}
						q := url.Values{}
						for k, v := range body {
							q.Set(k, v.(string))
						}
						r = get(t, s, strings.TrimPrefix(p, "/v1")+"?"+q.Encode())
					} else {
						r = call(t, s, method, p, body)
					}
					assertError(t, r, 400, "MISSING_PARAM", field+" is required", "/api"+p, method, "")
				})
			}
		}
	}
	assert.Len(t, b.co.Contacts(), before, "a refused create leaves nothing behind")
	// An empty custom_fields object is a valid no-op.
	r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", full["PATCH /v1/chatapp/contacts/custom-fields "])
	assert.Equal(t, 200, r.Status)
}

// On every contact operation (docs/behaviour.md, Contacts and phone
// numbers): 8 and 15 digits are valid, 7 and 16 are
// INVALID_PARAM naming phone_number, whatever the formatting.
func TestPhoneBoundsOnEveryContactEndpoint(t *testing.T) {
	s, b := newBasic(t)
	const (
		digits    = " must have 8 to 15 digits"
		notDigits = " must be a country code plus digits; only spaces and + - ( ) . may separate them"
	)
	type ep struct{ method, path string }
	eps := []ep{{"POST", "/v1/chatapp/contacts"}, {"GET", "/v1/chatapp/contacts/lookup"}, {"PATCH", "/v1/chatapp/contacts/custom-fields"},
		{"DELETE", "/v1/chatapp/contacts/tags"}, {"POST", "/v1/chatapp/sequences/cancel"}}
	for _, e := range eps {
		for _, ph := range []struct {
			v   string
			msg string // "": accepted
		}{{"1234567", digits}, {"+1 (234) 567", digits}, {"1234567890123456", digits}, {"abc", notDigits},
			{"+55 (11) abc 88888-0004", notDigits}, {"5511988880004x", notDigits}, {"55_11_98888_0004", notDigits},
			{"+55\t11988880004", notDigits}, {"５５11988880004", notDigits},
			{"12345678", ""}, {"+123 456 789 012 345", ""}, {"+55 (11) 98888.0004", ""}} {
			t.Run(e.method+" "+e.path+" "+ph.v, func(t *testing.T) {
				body := map[string]any{"phone_number_id": b.chatPNID, "phone_number": ph.v, "name": "N", "custom_fields": map[string]string{}, "tag_ids": "x"}
				var r resp
				if e.method == "GET" {
					r = get(t, s, "/chatapp/contacts/lookup?phone_number="+url.QueryEscape(ph.v))
				} else {
					r = call(t, s, e.method, e.path, body)
				}
				if ph.msg == "" {
					assert.Contains(t, []int{200, 201, 404}, r.Status, "%s", r.Body)
					return
				}
				assertError(t, r, 400, "INVALID_PARAM", "phone_number"+ph.msg, "/api"+e.path, e.method, "")
			})
		}
	}
}

// createContact (docs/behaviour.md, Contacts and phone numbers): an
// API-created contact and the same phone arriving inbound, in any
// formatting, are one contact; CONTACT_EXISTS only for the same account and
// phone; the same phone on another number is another contact; a botapp
// provider identifier is not a phone_number_id; a failed create leaves
// nothing.
func TestContactIdentity(t *testing.T) {
	s, b := newBasic(t)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	create := func(pnid, ph string) resp {
		return call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": pnid, "phone_number": ph, "name": "Zoe"})
	}
	assert.JSONEq(t, `{"message":"Contact created successfully."}`, create(b.chatPNID, "+55 (21) 97777-1111").Data(t, 201))
	n := len(b.co.Contacts())
	conv, _ := b.co.Receive(b.chat, "+55 21 977771111", "Other name", fake.Message{Text: "hi"})
	assert.Len(t, b.co.Contacts(), n, "the inbound message found the API-created contact")
	st, _ := s.Conversation(conv)
	ct, _ := s.Contact(st.ContactID)
	assert.Equal(t, "Zoe", ct.Name)
	assert.Equal(t, "5521977771111", ct.PhoneNumber)
	assert.Equal(t, b.chat, ct.ChannelAccountID)
	// The lookup finds it, by either form of the number.
	r := get(t, s, "/chatapp/contacts/lookup?phone_number_id="+b.chatPNID+"&phone_number=%2B55+21+97777-1111")
	assert.JSONEq(t, `{"id":"`+ct.ID+`","phone_number":"5521977771111","name":"Zoe","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))

	assert.Equal(t, 409, create(b.chatPNID, "5521977771111").Status)
	assert.Equal(t, 201, create("5511900000002", "5521977771111").Status, "same phone, another number")
	other, _ := b.co.ContactByPhone(chat2, "5521977771111")
	assert.NotEqual(t, ct.ID, other.ID)
	assert.Equal(t, 409, create("5511900000002", "+55 21 97777 1111").Status)
	// Created inbound first, then by the API: exists.
	b.co.Receive(chat2, "5521966662222", "", fake.Message{Text: "hello"})
	assert.Equal(t, 409, create("5511900000002", "5521966662222").Status)
	r = create("acme_bot", "5521955553333")
	assertError(t, r, 404, "CHANNEL_NOT_FOUND", "Channel not found for phone_number_id acme_bot.", "/api/v1/chatapp/contacts", "POST", "")
	_, found := b.co.ContactByPhone("", "5521955553333")
	assert.False(t, found)
}

// Without phone_number_id, the /chatapp operations search the company's
// chatapp numbers and take the contact with the most recent interaction
// (docs/behaviour.md, Contacts and phone numbers); a botapp contact that has
// a phone is not a chatapp contact.
func TestCompanyWideSearchIsChatappOnly(t *testing.T) {
	s, b := newBasic(t)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	older := b.co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: "5521944441111", Name: "On chatapp", SequenceName: "Onboarding"})
	b.co.Receive(chat2, "5521944441111", "", fake.Message{Text: "x", At: t0.Add(-2 * time.Hour)})
	bot := b.co.AddContact(fake.Contact{ChannelAccountID: b.bot, PhoneNumber: "5521944441111", Name: "On botapp", SequenceName: "Bot flow"})
	b.co.Receive(b.bot, "5521944441111", "", fake.Message{Text: "newer", At: t0.Add(-time.Hour)})
	onlyBot := b.co.AddContact(fake.Contact{ChannelAccountID: b.bot, PhoneNumber: "5521933332222", Name: "Only bot"})

	r := get(t, s, "/chatapp/contacts/lookup?phone_number=5521944441111")
	assert.JSONEq(t, `{"id":"`+older+`","phone_number":"5521944441111","name":"On chatapp","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521944441111"})
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200))
	bs, _ := s.Contact(bot)
	assert.Equal(t, fake.SequenceScheduled, bs.SequenceStatus, "the botapp contact's sequence is untouched")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	// By a botapp provider identifier: not a chatapp number either.
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number_id=acme_bot&phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	_ = onlyBot
}

// lookupContact: by phone_number_id and phone in any formatting; without
// phone_number_id, the contact of the most recent interaction among the
// company's chatapp numbers. TestErrorBodyForEveryCode, TestPhoneBounds…,
// TestMissingParam… and TestTenancyEveryEndpoint have the refusals.
func TestLookupContact(t *testing.T) {
	s, b := newBasic(t)
	r := get(t, s, "/chatapp/contacts/lookup?phone_number_id="+b.chatPNID+"&phone_number=%2B55+11+98765-4321")
	assert.JSONEq(t, `{"id":"`+b.ana+`","phone_number":"5511987654321","name":"Ana","email":null,"gender":null,"tag_names":"vip,lead"}`, r.Data(t, 200))

	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	ana2 := b.co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: "5511987654321", Name: "Ana (2)", Email: "ana@example.com", Gender: "female"})
	b.co.Receive(chat2, "5511987654321", "", fake.Message{Text: "hi", At: t0.Add(-time.Hour)})
	b.co.Receive(b.chat, "5511987654321", "", fake.Message{Text: "older", At: t0.Add(-2 * time.Hour)})
	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321")
	assert.JSONEq(t, `{"id":"`+ana2+`","phone_number":"5511987654321","name":"Ana (2)","email":"ana@example.com","gender":"female","tag_names":""}`, r.Data(t, 200))
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number_id=nope&phone_number=5511987654321"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
}

// updateContactCustomFields merges; values are strings (null is not one);
// a refused merge changes nothing. TestMissingParamNamesEachField has the
// missing fields.
func TestCustomFieldsMerge(t *testing.T) {
	s, b := newBasic(t)
	const p = "/v1/chatapp/contacts/custom-fields"
	notString := "custom_fields.plan must be a string"
	tests := []struct {
		name   string
		body   any
		status int
		code   convo.ErrorCode
		msg    string
	}{
		{"not an object", map[string]any{"phone_number": b.anaPhone, "custom_fields": "x"}, 400, "INVALID_PARAM", "custom_fields must be an object of string values"},
		{"null value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": nil}}, 400, "INVALID_PARAM", notString},
		{"number value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": 3}}, 400, "INVALID_PARAM", notString},
		{"bool value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": true}}, 400, "INVALID_PARAM", notString},
		{"object value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": map[string]any{}}}, 400, "INVALID_PARAM", notString},
		{"array value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": []string{"a"}}}, 400, "INVALID_PARAM", notString},
		{"unknown contact", map[string]any{"phone_number": "5599999999999", "custom_fields": map[string]string{}}, 404, "CONTACT_NOT_FOUND", "Contact not found."},
		{"unknown number id", map[string]any{"phone_number_id": "x", "phone_number": b.anaPhone, "custom_fields": map[string]string{}}, 404, "CONTACT_NOT_FOUND", "Contact not found."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, call(t, s, "PATCH", p, tc.body), tc.status, tc.code, tc.msg, errPath(p), "PATCH", "")
		})
	}
	assert.Equal(t, map[string]string{"plan": "gold"}, mustContact(t, s, b.ana).CustomFields, "a refused merge changes nothing")

	body := map[string]any{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "custom_fields": map[string]string{"city": "Recife", "plan": "platinum"}}
	assert.JSONEq(t, `{"message":"Custom fields updated successfully."}`, call(t, s, "PATCH", p, body).Data(t, 200))
	r := call(t, s, "PATCH", p, map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]string{"stage": "won"}})
	require.Equal(t, 200, r.Status)
	assert.Equal(t, map[string]string{"plan": "platinum", "city": "Recife", "stage": "won"}, mustContact(t, s, b.ana).CustomFields)
}

// removeContactTags: a JSON body on DELETE; several ids comma-separated,
// spaces allowed; unknown ids, duplicates and ids of tags the contact lacks
// are ignored (200); tag_ids of only commas is missing; a tag name is not a
// tag id.
func TestRemoveTags(t *testing.T) {
	s, b := newBasic(t)
	b.co.TagContact(b.ana, "churn-risk")
	vip, lead, churn := b.co.TagID("vip"), b.co.TagID("lead"), b.co.TagID("churn-risk")
	other := b.co.TagID("not-on-ana")
	const p = "/v1/chatapp/contacts/tags"
	del := func(ids any) resp {
		return call(t, s, "DELETE", p, map[string]any{"phone_number": b.anaPhone, "tag_ids": ids})
	}
	tags := func() []string { return mustContact(t, s, b.ana).Tags }
	r := call(t, s, "DELETE", p, map[string]string{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "tag_ids": vip + ", " + churn + ",unknown"})
	assert.JSONEq(t, `{"message":"Tags removed successfully."}`, r.Data(t, 200))
	assert.Equal(t, []string{"lead"}, tags())
	assert.Equal(t, 200, del("unknown-1,"+other).Status)
	assert.Equal(t, []string{"lead"}, tags())
	assertError(t, del(" , ,"), 400, "MISSING_PARAM", "tag_ids is required", errPath(p), "DELETE", "")
	assertError(t, del([]string{lead}), 400, "INVALID_PARAM", "tag_ids must be a string", errPath(p), "DELETE", "")
	assertError(t, call(t, s, "DELETE", p, map[string]string{"phone_number": "5599999999999", "tag_ids": lead}), 404, "CONTACT_NOT_FOUND", "Contact not found.", errPath(p), "DELETE", "")
	assert.Equal(t, 200, del(lead+","+lead).Status)
	assert.Empty(t, tags())
	assert.Contains(t, get(t, s, "/chatapp/contacts/lookup?phone_number="+b.anaPhone).Data(t, 200), `"tag_names":""`)
	b.co.TagContact(b.ana, "vip")
	assert.Equal(t, 200, del("vip").Status)
	assert.Equal(t, []string{"vip"}, tags())
}
