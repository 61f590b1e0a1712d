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

const contactsPath = "/api/v1/chatapp/contacts"

func TestCreateContact(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	r := call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "+55 21 99999-0000", "name": "Carla"})
	assert.JSONEq(t, `{"message":"Contact created successfully."}`, r.Data(t, 201))
	ct, ok := b.co.ContactByPhone(b.chat, "5521999990000")
	require.True(t, ok)
	assert.Equal(t, "Carla", ct.Name)
	assert.Equal(t, "5521999990000", ct.Phone)

	// Same phone, any formatting, same account: CONTACT_EXISTS.
	r = call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "5521999990000", "name": "Carla 2"})
	assertError(t, r, 409, "CONTACT_EXISTS", "A contact with this phone number already exists.", contactsPath, "POST", "")

	// The same phone arriving inbound on that account is the same contact.
	conv, _ := b.co.Receive(b.chat, "+55 (21) 99999-0000", "", fake.Message{Text: "hi", At: t0})
	st, _ := s.Conversation(conv)
	assert.Equal(t, ct.ID, st.ContactID)
	// An inbound from a new phone creates the contact; the API then sees it.
	b.co.Receive(b.chat, "5521888887777", "Dora", fake.Message{Text: "hello"})
	r = call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "5521888887777", "name": "Dora"})
	assert.Equal(t, 409, r.Status)
	// The same phone on another chatapp number is another contact.
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	r = call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": "5511900000002", "phone_number": "5521999990000", "name": "Carla"})
	assert.Equal(t, 201, r.Status)
	_, ok = b.co.ContactByPhone(chat2, "5521999990000")
	assert.True(t, ok)
}

func TestCreateContactErrors(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	other := s.AddCompany("other-key")
	other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511955555555"})
	before := len(b.co.Contacts())
	tests := []struct {
		name   string
		body   any
		status int
		code   convo.ErrorCode
		msg    string
	}{
		{"no body", nil, 400, "MISSING_PARAM", "phone_number_id is required"},
		{"missing phone", map[string]string{"phone_number_id": b.chatPNID, "name": "X"}, 400, "MISSING_PARAM", "phone_number is required"},
		{"missing name", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "5521999990000"}, 400, "MISSING_PARAM", "name is required"},
		{"empty name", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "5521999990000", "name": ""}, 400, "MISSING_PARAM", "name is required"},
		{"short phone", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "1234567", "name": "X"}, 400, "INVALID_PARAM", "phone_number must have 8 to 15 digits"},
		{"long phone", map[string]string{"phone_number_id": b.chatPNID, "phone_number": "1234567890123456", "name": "X"}, 400, "INVALID_PARAM", "phone_number must have 8 to 15 digits"},
		{"unknown number", map[string]string{"phone_number_id": "000", "phone_number": "5521999990000", "name": "X"}, 404, "CHANNEL_NOT_FOUND", "Channel not found for phone_number_id 000."},
		{"botapp account", map[string]string{"phone_number_id": "acme_bot", "phone_number": "5521999990000", "name": "X"}, 404, "CHANNEL_NOT_FOUND", ""},
		{"other company's number", map[string]string{"phone_number_id": "5511955555555", "phone_number": "5521999990000", "name": "X"}, 404, "CHANNEL_NOT_FOUND", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, s, "POST", "/v1/chatapp/contacts", tc.body)
			assertError(t, r, tc.status, tc.code, tc.msg, contactsPath, "POST", "")
		})
	}
	assert.Len(t, b.co.Contacts(), before, "a failed create leaves nothing behind")
}

func TestLookupContact(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	r := get(t, s, "/chatapp/contacts/lookup?phone_number_id="+b.chatPNID+"&phone_number=%2B55+11+98765-4321")
	assert.JSONEq(t, `{"id":"`+b.ana+`","phone_number":"5511987654321","name":"Ana","email":null,"gender":null,"tag_names":"vip,lead"}`, r.Data(t, 200))

	// Without phone_number_id: the contact with the most recent interaction.
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	ana2 := b.co.AddContact(fake.Contact{Account: chat2, Phone: "5511987654321", Name: "Ana (2)", Email: "ana@example.com", Gender: "female"})
	b.co.Receive(chat2, "5511987654321", "", fake.Message{Text: "hi", At: t0.Add(-time.Hour)})
	b.co.Receive(b.chat, "5511987654321", "", fake.Message{Text: "older", At: t0.Add(-2 * time.Hour)})
	r = get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321")
	assert.JSONEq(t, `{"id":"`+ana2+`","phone_number":"5511987654321","name":"Ana (2)","email":"ana@example.com","gender":"female","tag_names":""}`, r.Data(t, 200))

	const p = "/api/v1/chatapp/contacts/lookup"
	assertError(t, get(t, s, "/chatapp/contacts/lookup"), 400, "MISSING_PARAM", "phone_number is required", p, "GET", "")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=12"), 400, "INVALID_PARAM", "phone_number must have 8 to 15 digits", p, "GET", "")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=5599999999999"), 404, "CONTACT_NOT_FOUND", "Contact not found.", p, "GET", "")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number_id=nope&phone_number=5511987654321"), 404, "CONTACT_NOT_FOUND", "Contact not found.", p, "GET", "")
	// Another company's contact is invisible.
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=5511987654321", bearer(s.AddCompany("k2").APIKey())), 404, "CONTACT_NOT_FOUND", "", p, "GET", "")
}

func TestCustomFieldsMerge(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	body := map[string]any{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "custom_fields": map[string]string{"city": "Recife", "plan": "platinum"}}
	r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", body)
	assert.JSONEq(t, `{"message":"Custom fields updated successfully."}`, r.Data(t, 200))
	r = call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]string{"stage": "won"}})
	require.Equal(t, 200, r.Status)
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, map[string]string{"plan": "platinum", "city": "Recife", "stage": "won"}, ct.CustomFields)

	const p = "/api/v1/chatapp/contacts/custom-fields"
	tests := []struct {
		name   string
		body   any
		status int
		code   convo.ErrorCode
		msg    string
	}{
		{"missing custom_fields", map[string]any{"phone_number": b.anaPhone}, 400, "MISSING_PARAM", "custom_fields is required"},
		{"null custom_fields", map[string]any{"phone_number": b.anaPhone, "custom_fields": nil}, 400, "MISSING_PARAM", "custom_fields is required"},
		{"missing phone", map[string]any{"custom_fields": map[string]string{}}, 400, "MISSING_PARAM", "phone_number is required"},
		{"not an object", map[string]any{"phone_number": b.anaPhone, "custom_fields": "x"}, 400, "INVALID_PARAM", "custom_fields must be an object of string values"},
		{"non-string value", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"age": 3}}, 400, "INVALID_PARAM", "custom_fields.age must be a string"},
		{"unknown contact", map[string]any{"phone_number": "5599999999999", "custom_fields": map[string]string{}}, 404, "CONTACT_NOT_FOUND", "Contact not found."},
		{"unknown number id", map[string]any{"phone_number_id": "x", "phone_number": b.anaPhone, "custom_fields": map[string]string{}}, 404, "CONTACT_NOT_FOUND", "Contact not found."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", tc.body), tc.status, tc.code, tc.msg, p, "PATCH", "")
		})
	}
}

func TestRemoveTags(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	b.co.TagContact(b.ana, "churn-risk")
	vip, churn := b.co.TagID("vip"), b.co.TagID("churn-risk")
	// DELETE with a JSON body, several ids comma-separated.
	r := call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone, "tag_ids": vip + ", " + churn + ",unknown"})
	assert.JSONEq(t, `{"message":"Tags removed successfully."}`, r.Data(t, 200))
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, []string{"lead"}, ct.Tags)

	const p = "/api/v1/chatapp/contacts/tags"
	assertError(t, call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": b.anaPhone}), 400, "MISSING_PARAM", "tag_ids is required", p, "DELETE", "")
	assertError(t, call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]any{"phone_number": b.anaPhone, "tag_ids": []string{vip}}), 400, "INVALID_PARAM", "tag_ids must be a string", p, "DELETE", "")
	assertError(t, call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": "5599999999999", "tag_ids": vip}), 404, "CONTACT_NOT_FOUND", "Contact not found.", p, "DELETE", "")
}

// D26: MISSING_PARAM names the field, for each required field of each
// contact endpoint, when absent, null or empty.
func TestAuditMissingParamNamesEachField(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
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
	// An empty custom_fields object is a valid no-op.
	r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", full["PATCH /v1/chatapp/contacts/custom-fields "])
	assert.Equal(t, 200, r.Status)
}

// Spec §4.8: custom field values are strings; null is not a string.
func TestAuditCustomFieldValuesAreStrings(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	for name, v := range map[string]any{"null": nil, "number": 3, "bool": true, "object": map[string]any{}, "array": []string{"a"}} {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, "PATCH", "/v1/chatapp/contacts/custom-fields", map[string]any{"phone_number": b.anaPhone, "custom_fields": map[string]any{"plan": v}})
			assertError(t, r, 400, "INVALID_PARAM", "custom_fields.plan must be a string", "/api/v1/chatapp/contacts/custom-fields", "PATCH", "")
		})
	}
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, map[string]string{"plan": "gold"}, ct.CustomFields, "a refused merge changes nothing")
}

// D16 on every contact endpoint: 8 and 15 digits are valid, 7 and 16 are
// INVALID_PARAM naming phone_number, whatever the formatting.
func TestAuditPhoneBoundsOnEveryContactEndpoint(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	type ep struct{ method, path string }
	eps := []ep{{"POST", "/v1/chatapp/contacts"}, {"GET", "/v1/chatapp/contacts/lookup"}, {"PATCH", "/v1/chatapp/contacts/custom-fields"},
		{"DELETE", "/v1/chatapp/contacts/tags"}, {"POST", "/v1/chatapp/sequences/cancel"}}
	for _, e := range eps {
		for _, ph := range []struct {
			v  string
			ok bool
		}{{"1234567", false}, {"+1 (234) 567", false}, {"1234567890123456", false}, {"abc", false}, {"12345678", true}, {"+123 456 789 012 345", true}} {
			t.Run(e.method+" "+e.path+" "+ph.v, func(t *testing.T) {
				body := map[string]any{"phone_number_id": b.chatPNID, "phone_number": ph.v, "name": "N", "custom_fields": map[string]string{}, "tag_ids": "x"}
				var r resp
				if e.method == "GET" {
					r = get(t, s, "/chatapp/contacts/lookup?phone_number="+url.QueryEscape(ph.v))
				} else {
					r = call(t, s, e.method, e.path, body)
				}
				if ph.ok {
					assert.Contains(t, []int{200, 201, 404}, r.Status, "%s", r.Body)
					return
				}
				assertError(t, r, 400, "INVALID_PARAM", "phone_number must have 8 to 15 digits", "/api"+e.path, e.method, "")
			})
		}
	}
}

// Spec §2.7, §4.6, D24: an API-created contact and the same phone arriving
// inbound are one contact; CONTACT_EXISTS only for the same account and
// phone; the same phone on another number is allowed; a failed create
// leaves nothing.
func TestAuditContactIdentity(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	create := func(pnid, ph string) resp {
		return call(t, s, "POST", "/v1/chatapp/contacts", map[string]string{"phone_number_id": pnid, "phone_number": ph, "name": "Zoe"})
	}
	require.Equal(t, 201, create(b.chatPNID, "+55 (21) 97777-1111").Status)
	n := len(b.co.Contacts())
	conv, _ := b.co.Receive(b.chat, "5521977771111", "Other name", fake.Message{Text: "hi"})
	assert.Len(t, b.co.Contacts(), n, "the inbound message found the API-created contact")
	st, _ := s.Conversation(conv)
	ct, _ := s.Contact(st.ContactID)
	assert.Equal(t, "Zoe", ct.Name)
	assert.Equal(t, "5521977771111", ct.Phone)
	assert.Equal(t, b.chat, ct.AccountID)
	// The lookup finds it, by either form of the number.
	r := get(t, s, "/chatapp/contacts/lookup?phone_number_id="+b.chatPNID+"&phone_number=%2B55+21+97777-1111")
	assert.JSONEq(t, `{"id":"`+ct.ID+`","phone_number":"5521977771111","name":"Zoe","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))

	assert.Equal(t, 409, create(b.chatPNID, "5521977771111").Status)
	assert.Equal(t, 201, create("5511900000002", "5521977771111").Status, "same phone, another number")
	assert.Equal(t, 409, create("5511900000002", "+55 21 97777 1111").Status)
	// Created inbound first, then by the API: exists.
	b.co.Receive(chat2, "5521966662222", "", fake.Message{Text: "hello"})
	assert.Equal(t, 409, create("5511900000002", "5521966662222").Status)
	// A botapp provider identifier is not a phone_number_id (D23).
	r = create("acme_bot", "5521955553333")
	assertError(t, r, 404, "CHANNEL_NOT_FOUND", "Channel not found for phone_number_id acme_bot.", contactsPath, "POST", "")
	_, found := b.co.ContactByPhone("", "5521955553333")
	assert.False(t, found)
}

// D25 and spec §1: without phone_number_id, the /chatapp endpoints search
// the company's chatapp numbers and take the contact with the most recent
// interaction; a botapp contact that has a phone is not a chatapp contact.
func TestAuditCompanyWideSearchIsChatappOnly(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	older := b.co.AddContact(fake.Contact{Account: chat2, Phone: "5521944441111", Name: "On chatapp", Sequence: "Onboarding"})
	b.co.Receive(chat2, "5521944441111", "", fake.Message{Text: "x", At: t0.Add(-2 * time.Hour)})
	bot := b.co.AddContact(fake.Contact{Account: b.bot, Phone: "5521944441111", Name: "On botapp", Sequence: "Bot flow"})
	b.co.Receive(b.bot, "5521944441111", "", fake.Message{Text: "newer", At: t0.Add(-time.Hour)})
	onlyBot := b.co.AddContact(fake.Contact{Account: b.bot, Phone: "5521933332222", Name: "Only bot"})

	r := get(t, s, "/chatapp/contacts/lookup?phone_number=5521944441111")
	assert.JSONEq(t, `{"id":"`+older+`","phone_number":"5521944441111","name":"On chatapp","email":null,"gender":null,"tag_names":""}`, r.Data(t, 200))
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521944441111"})
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200))
	bs, _ := s.Contact(bot)
	assert.Equal(t, fake.SequenceScheduled, bs.Sequence, "the botapp contact's sequence is untouched")
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	// By a botapp provider identifier: not a chatapp number either (D23, D25).
	assertError(t, get(t, s, "/chatapp/contacts/lookup?phone_number_id=acme_bot&phone_number=5521933332222"), 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/contacts/lookup", "GET", "")
	_ = onlyBot
}

// Spec §4.9, D10: several ids comma-separated; unknown ids, duplicates and
// ids of tags the contact lacks are ignored (200); tag_ids of only commas
// is missing.
func TestAuditRemoveTagsEdges(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	vip, lead := b.co.TagID("vip"), b.co.TagID("lead")
	other := b.co.TagID("not-on-ana")
	del := func(ids string) resp {
		return call(t, s, "DELETE", "/v1/chatapp/contacts/tags", map[string]string{"phone_number": b.anaPhone, "tag_ids": ids})
	}
	assert.Equal(t, 200, del("unknown-1,"+other).Status)
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, []string{"vip", "lead"}, ct.Tags)
	assert.Equal(t, 200, del(vip+","+vip).Status)
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, []string{"lead"}, ct.Tags)
	assertError(t, del(" , ,"), 400, "MISSING_PARAM", "tag_ids is required", "/api/v1/chatapp/contacts/tags", "DELETE", "")
	assert.Equal(t, 200, del(lead).Status)
	r := get(t, s, "/chatapp/contacts/lookup?phone_number="+b.anaPhone)
	assert.Contains(t, r.Data(t, 200), `"tag_names":""`)
	// A tag name is not a tag id.
	b.co.TagContact(b.ana, "vip")
	assert.Equal(t, 200, del("vip").Status)
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, []string{"vip"}, ct.Tags)
}
