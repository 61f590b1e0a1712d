package contract

import (
	"os"
	"testing"
	"time"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/wirerecord"
)

// seedFixture gives the fake what every scenario needs to bite: several
// conversations in each status, media in each media_status, a system message,
// and conversations waiting for an answer.
func seedFixture(s *fake.Server) {
	now := s.Clock().Now()
	co := s.Company()
	sales := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", DisplayName: "Sales", ProviderIdentifier: "5511900000001"})
	bot := co.AddChannel(fake.ChannelAccount{Channel: "botapp", DisplayName: "Support bot"})
	web := co.AddWebchatWidget("Site chat")
	for i, acct := range []string{sales, sales, sales, bot, web, sales} {
		phone := []string{"+55 11 98765-0001", "+55 11 98765-0002", "+55 11 98765-0003", "+55 11 98765-0004", "+55 11 98765-0005", "+55 11 98765-0006"}[i]
		ct := co.AddContact(fake.Contact{ChannelAccountID: acct, PhoneNumber: phone, Name: "Contact " + phone[len(phone)-1:]})
		status := []string{"open", "open", "resolved", "open", "archived", "open"}[i]
		cv := co.AddConversation(fake.Conversation{ContactID: ct, Status: convo.ConversationStatus(status)})
		co.Inbound(cv, "Hello, anyone there?", now.Add(-time.Duration(10+i)*time.Hour))
		if i%2 == 0 {
			co.Reply(cv, fake.SenderAgent, "Hi! How can I help?", now.Add(-time.Duration(9+i)*time.Hour))
		}
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Text: "receipt", At: now.Add(-time.Duration(8+i) * time.Hour),
			Media:     &fake.Media{MimeType: "image/jpeg", Filename: "receipt.jpg", Data: []byte("\xff\xd8 jpeg bytes")},
			Reactions: []fake.Reaction{{Emoji: "👍", Direction: "outbound"}}})
		co.AddMessage(cv, fake.Message{Sender: fake.SenderContact, Type: "image", At: now.Add(-time.Duration(7+i) * time.Hour),
			Media: &fake.Media{MediaStatus: "unknown", MimeType: "image/png"}})
		co.AddMessage(cv, fake.Message{Sender: fake.SenderSystem, Type: "system", At: now.Add(-time.Duration(6+i) * time.Hour)})
		co.Inbound(cv, "Still waiting…", now.Add(-time.Duration(5+i)*time.Hour))
		co.Inbound(cv, "An old message", now.Add(-60*24*time.Hour))
	}
}

func TestContractAgainstFake(t *testing.T) {
	s := fake.New(t, fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))), fake.WithHandlerMiddleware(wirerecord.Middleware(t)))
	seedFixture(s)
	Run(t, Target{
		NewClient: func(opts ...convo.Option) (*convo.Client, error) {
			return convo.NewClient(append([]convo.Option{convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL())}, opts...)...)
		},
		Now:          s.Clock().Now,
		AnomalyCalls: 10,
	})
}

// TestContractAgainstRealServer runs the same read-only scenarios against a
// real server when CONVO_CONTRACT_BASE_URL and CONVO_CONTRACT_API_KEY are set.
// CONVO_CONTRACT_ANOMALY_CALLS (default 1) bounds the calls to the anomalies
// endpoint, which the service limits to about one pass per day.
func TestContractAgainstRealServer(t *testing.T) {
	base, key := os.Getenv("CONVO_CONTRACT_BASE_URL"), os.Getenv("CONVO_CONTRACT_API_KEY")
	if base == "" || key == "" {
		t.Skip("set CONVO_CONTRACT_BASE_URL and CONVO_CONTRACT_API_KEY to run the contract against a real server")
	}
	calls := 1
	if os.Getenv("CONVO_CONTRACT_ANOMALY_CALLS") == "0" {
		calls = 0
	} else if os.Getenv("CONVO_CONTRACT_ANOMALY_CALLS") == "all" {
		calls = 10
	}
	Run(t, Target{
		NewClient: func(opts ...convo.Option) (*convo.Client, error) {
			return convo.NewClient(append([]convo.Option{convo.WithAPIKey(key), convo.WithBaseURL(base)}, opts...)...)
		},
		Now:          time.Now,
		AnomalyCalls: calls,
	})
}
