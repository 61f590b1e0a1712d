package fake_test

import (
	"fmt"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleCompany_Channels() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support"})
	co.AddWebchatWidget("Website")
	for _, ch := range co.Channels() {
		fmt.Println(ch.Channel, ch.DisplayName)
	}
	fmt.Println(len(s.Requests())) // read from the store: nothing journaled
	// Output:
	// chatapp Support
	// webchat Website
	// 0
}

func ExampleCompany_Conversations() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ana := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321", Name: "Ana"})
	bob := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222", Name: "Bob"})
	older := co.AddConversation(fake.Conversation{ContactID: ana, Status: convo.ConversationResolved})
	co.Inbound(older, "hi", now.Add(-2*time.Hour))
	newer := co.AddConversation(fake.Conversation{ContactID: bob})
	co.Inbound(newer, "hello", now.Add(-time.Hour))
	for _, cv := range co.Conversations() {
		fmt.Println(cv.ID == newer, cv.Status)
	}
	// Output:
	// true open
	// false resolved
}

func ExampleCompany_Messages() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	co.Inbound(cv, "a year ago", now.AddDate(-1, 0, 0)) // outside the API's 30-day window, listed here
	co.Reply(cv, fake.SenderAgent, "sorry for the wait", now)
	msgs, ok := co.Messages(cv)
	fmt.Println(ok, len(msgs), msgs[0].Text, "/", msgs[1].Text)
	// Output: true 2 a year ago / sorry for the wait
}

func ExampleCompany_LastMessage() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	_, ok := co.LastMessage(cv)
	fmt.Println(ok)
	co.Inbound(cv, "hello", time.Time{})
	m, ok := co.LastMessage(cv)
	fmt.Println(ok, m.Text)
	// Output:
	// false
	// true hello
}

func ExampleCompany_AnomalyBuckets() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	co.Inbound(cv, "anyone there?", now.Add(-5*time.Hour))
	b := co.AnomalyBuckets(fake.DefaultThresholdHours)
	fmt.Println(b[fake.BucketUnanswered][0] == cv, len(b[fake.BucketUnassigned]), len(b[fake.BucketNeverEngaged]))
	// Output: true 1 0
}

func ExampleCompany_MediaData() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321"})
	cv := co.AddConversation(fake.Conversation{ContactID: ct})
	id := co.AddMessage(cv, fake.Message{Media: &fake.Media{MimeType: "text/plain", Filename: "note.txt", Content: "hello"}})
	m, _ := co.Message(id)
	md, ok := co.MediaData(m.Media.MediaID)
	fmt.Println(ok, md.Filename, string(md.Data))
	// Output: true note.txt hello
}
