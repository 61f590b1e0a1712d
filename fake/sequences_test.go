package fake_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func TestCancelSequenceCompanyWideMostRecent(t *testing.T) {
	s, b := newBasic(t)
	chat2 := b.co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000002"})
	ana2 := b.co.AddContact(fake.Contact{ChannelAccountID: chat2, PhoneNumber: b.anaPhone, SequenceName: "Winback"})
	b.co.ScheduleSequence(b.ana, "Onboarding")
	b.co.Receive(chat2, b.anaPhone, "", fake.Message{Text: "recent", At: t0.Add(-time.Minute)})
	b.co.Receive(b.chat, b.anaPhone, "", fake.Message{Text: "older", At: t0.Add(-time.Hour)})
	r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200))
	c1, _ := s.Contact(b.ana)
	c2, _ := s.Contact(ana2)
	assert.Equal(t, fake.SequenceScheduled, c1.SequenceStatus)
	assert.Equal(t, fake.SequenceCanceled, c2.SequenceStatus)
}

// Fifty concurrent cancels of one scheduled sequence: exactly one says
// canceled true.
func TestConcurrentSequenceCancelExactlyOnce(t *testing.T) {
	s, b := newBasic(t)
	b.co.ScheduleSequence(b.ana, "Onboarding")
	var canceled atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
			if r.Status == 200 && strings.Contains(string(r.Body), `"canceled":true`) {
				canceled.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), canceled.Load())
}

// cancelSequence: canceled true once, then false, as 200, with or without
// phone_number_id; the contact's state says canceled; CANCEL_FAILED (a
// fault rule) leaves the sequence scheduled. TestMissingParamNamesEachField
// and TestErrorBodyForEveryCode have the other refusals.
func TestCancelSequenceStates(t *testing.T) {
	s, b := newBasic(t)
	b.co.ScheduleSequence(b.ana, "Renewal")
	for i, want := range []string{
		`{"canceled":true,"message":"Sequence canceled successfully."}`,
		`{"canceled":false,"message":"No scheduled sequence to cancel."}`,
		`{"canceled":false,"message":"No scheduled sequence to cancel."}`,
	} {
		body := map[string]string{"phone_number": "+55 11 98765-4321"}
		if i == 1 {
			body["phone_number_id"] = b.chatPNID
		}
		assert.JSONEq(t, want, call(t, s, "POST", "/v1/chatapp/sequences/cancel", body).Data(t, 200))
	}
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, fake.SequenceCanceled, ct.SequenceStatus)
	// A contact that never had a sequence: false.
	b.co.AddContact(fake.Contact{ChannelAccountID: b.chat, PhoneNumber: "5521911110000"})
	assert.JSONEq(t, `{"canceled":false,"message":"No scheduled sequence to cancel."}`,
		call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5521911110000"}).Data(t, 200))
	// CANCEL_FAILED through a fault rule; the sequence stays scheduled.
	b.co.ScheduleSequence(b.ana, "Again")
	s.AddFault(fake.Fault{Method: "POST", Path: "/chatapp/sequences/cancel", Status: 500, Code: convo.CodeCancelFailed, Message: "The sequence could not be canceled.", Times: 1})
	r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
	assertError(t, r, 500, "CANCEL_FAILED", "The sequence could not be canceled.", "/api/v1/chatapp/sequences/cancel", "POST", "")
	ct, _ = s.Contact(b.ana)
	assert.Equal(t, fake.SequenceScheduled, ct.SequenceStatus)
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": b.anaPhone})
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200), "the rule ran out")
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5599999999999"})
	assertError(t, r, 404, "CONTACT_NOT_FOUND", "Contact not found.", "/api/v1/chatapp/sequences/cancel", "POST", "")
}
