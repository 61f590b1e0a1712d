package convo_test

import (
	"context"
	"fmt"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// ExampleAttachment_Expired shows that an address's expiry is judged on the
// service's clock: the fake's manual clock, years away from the machine's.
func ExampleAttachment_Expired() {
	clock := fake.NewManualClock(time.Date(2001, 1, 1, 9, 0, 0, 0, time.UTC))
	s := fake.NewServer(fake.WithClock(clock), fake.WithAttachmentTTL(15*time.Minute))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: clock.Now().Add(-time.Hour),
		Media: &fake.Media{MimeType: "image/png", Filename: "a.png", Data: []byte("png")}})

	c := s.Client()
	ctx := context.Background()
	page, err := c.Messages.List(ctx, conv, nil)
	if err != nil {
		panic(err)
	}
	att, err := c.Attachments.ForMessage(ctx, page.Items[0])
	if err != nil {
		panic(err)
	}
	fmt.Println("expired:", att.Expired())
	// Output: expired: false
}
