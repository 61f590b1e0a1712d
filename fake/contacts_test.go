package fake_test

import (
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
	assert.Equal(t, "5521999990000", ct.PhoneNumber)

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
	ana2 := b.co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: "5511987654321", Name: "Ana (2)", Email: "ana@example.com", Gender: "female"})
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
