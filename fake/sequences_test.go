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

func TestCancelSequenceOnceThenFalse(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	b.co.ScheduleSequence(b.ana, "Onboarding")
	body := map[string]string{"phone_number_id": b.chatPNID, "phone_number": b.anaPhone}
	r := call(t, s, "POST", "/v1/chatapp/sequences/cancel", body)
	assert.JSONEq(t, `{"canceled":true,"message":"Sequence canceled successfully."}`, r.Data(t, 200))
	ct, _ := s.Contact(b.ana)
	assert.Equal(t, fake.SequenceCanceled, ct.SequenceStatus)
	r = call(t, s, "POST", "/v1/chatapp/sequences/cancel", body)
	assert.JSONEq(t, `{"canceled":false,"message":"No scheduled sequence to cancel."}`, r.Data(t, 200))
}

func TestCancelSequenceCompanyWideMostRecent(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
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

func TestCancelSequenceErrors(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
	const p = "/api/v1/chatapp/sequences/cancel"
	assertError(t, call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{}), 400, "MISSING_PARAM", "phone_number is required", p, "POST", "")
	assertError(t, call(t, s, "POST", "/v1/chatapp/sequences/cancel", map[string]string{"phone_number": "5599999999999"}), 404, "CONTACT_NOT_FOUND", "Contact not found.", p, "POST", "")
	// CANCEL_FAILED through a fault rule.
	s.AddFault(fake.Fault{Method: "POST", Path: "/chatapp/sequences/cancel", Status: 500, Code: convo.CodeCancelFailed, Message: "The sequence could not be canceled.", Times: 1})
	body := map[string]string{"phone_number": b.anaPhone}
	assertError(t, call(t, s, "POST", "/v1/chatapp/sequences/cancel", body), 500, "CANCEL_FAILED", "The sequence could not be canceled.", p, "POST", "")
	assert.Equal(t, 200, call(t, s, "POST", "/v1/chatapp/sequences/cancel", body).Status)
}

// Fifty concurrent cancels of one scheduled sequence: exactly one says
// canceled true.
func TestConcurrentSequenceCancelExactlyOnce(t *testing.T) {
	s := newServer(t)
	b := seedBasic(t, s)
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
