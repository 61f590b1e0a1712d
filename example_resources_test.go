package convo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleConversationsService_List() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	for i, phone := range []string{"5511911110001", "5511911110002", "5511911110003"} {
		ct := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: phone})
		conv := co.AddConversation(fake.Conversation{ID: fmt.Sprintf("c-%d", i+1), ContactID: ct})
		co.Inbound(conv, "Hello?", now.Add(-time.Duration(i+1)*time.Hour))
	}
	client := s.Client()
	ctx := context.Background()

	// One page at a time, most recent activity first; pass NextCursor back
	// for the next page (or range over Conversations.All instead).
	params := &convo.ListConversationsParams{Channel: convo.ChannelChatapp, Limit: 2}
	for {
		page, err := client.Conversations.List(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range page.Items {
			fmt.Println(c.ID, c.Status, c.LastInboundAt.Format(time.Kitchen))
		}
		if !page.HasMore() {
			break
		}
		params.Cursor = page.NextCursor
	}
	// Output:
	// c-1 open 9:00AM
	// c-2 open 8:00AM
	// c-3 open 7:00AM
}

func ExamplePage_HasMore() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	for _, phone := range []string{"5511911110001", "5511911110002"} {
		co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: phone})})
	}
	client := s.Client()

	page, err := client.Conversations.List(context.Background(), &convo.ListConversationsParams{Limit: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// HasMore is NextCursor != "": the service has a next page.
	fmt.Println(len(page.Items), page.HasMore())
	// Output:
	// 1 true
}

func ExampleMessagePage_HasMore() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	for i := range 3 {
		co.Inbound(conv, fmt.Sprintf("message %d", i+1), now.Add(-time.Duration(3-i)*time.Minute))
	}
	client := s.Client()
	ctx := context.Background()

	params := &convo.ListMessagesParams{Limit: 2}
	for {
		page, err := client.Messages.List(ctx, conv, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(len(page.Items), "messages, more:", page.HasMore())
		if !page.HasMore() {
			break
		}
		params.Cursor = page.NextCursor
	}
	// Output:
	// 2 messages, more: true
	// 1 messages, more: false
}

func ExampleMessage_TextOrEmpty() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: "audio", At: now.Add(-2 * time.Minute),
		Media: &fake.Media{MimeType: "audio/ogg", Data: []byte("ogg")}})
	co.Inbound(conv, "Did you hear my voice note?", now.Add(-time.Minute))
	client := s.Client()

	page, err := client.Messages.List(context.Background(), conv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Text is nil for a message without text (a voice note); TextOrEmpty
	// saves the nil check when "" will do.
	for _, m := range page.Items {
		fmt.Printf("%s %v %q\n", m.Type, m.Text == nil, m.TextOrEmpty())
	}
	// Output:
	// text false "Did you hear my voice note?"
	// audio true ""
}

func ExampleMedia_Available() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: "image", At: now.Add(-3 * time.Minute),
		Media: &fake.Media{MediaStatus: convo.MediaNoReference}})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-2 * time.Minute),
		Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	co.Inbound(conv, "Got them?", now.Add(-time.Minute))
	client := s.Client()

	page, err := client.Messages.List(context.Background(), conv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Available is false for a nil block, a null media_id or a status other
	// than available: only then is there a file to fetch.
	for _, m := range page.Items {
		fmt.Println(m.Type, m.Media.Available())
	}
	// Output:
	// text false
	// image true
	// image false
}

func ExampleAttachmentsService_Get() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Minute),
		Media: &fake.Media{MimeType: "application/pdf", Filename: "invoice.pdf", Data: []byte("%PDF-1.4")}})
	client := s.Client()

	// A media_id from a message's media block; Attachments.ForMessage takes
	// the message itself.
	att, err := client.Attachments.Get(context.Background(), s.MediaID(msg))
	if err != nil {
		fmt.Println(err)
		return
	}
	// URL is temporary and needs no key: treat it as a secret, do not log it.
	fmt.Println(att.Filename, att.MimeType, att.FileSize, att.ExpiresAt.After(now), att.URL != "")
	// Output:
	// invoice.pdf application/pdf 8 true true
}

func ExampleAttachmentsService_ForMessage() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: "video", At: now.Add(-2 * time.Minute),
		Media: &fake.Media{MediaStatus: convo.MediaUnknown}})
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Minute),
		Media: &fake.Media{MimeType: "image/jpeg", Filename: "photo.jpg", Data: []byte("jpeg")}})
	client := s.Client()
	ctx := context.Background()

	page, err := client.Messages.List(ctx, conv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range page.Items {
		att, err := client.Attachments.ForMessage(ctx, m)
		switch {
		case errors.Is(err, convo.ErrNoMedia): // no request was sent
			fmt.Println(m.Type, "has no file:", m.Media.MediaStatus)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Println(m.Type, att.Filename, att.MimeType)
		}
	}
	// Output:
	// image photo.jpg image/jpeg
	// video has no file: unknown
}

func ExampleAttachmentsService_DownloadAttachment() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Minute),
		Media: &fake.Media{MimeType: "text/plain", Filename: "note.txt", Data: []byte("hello")}})
	client := s.Client()
	ctx := context.Background()

	// Look at the attachment first (name, type, size), then fetch the file
	// from the same address, without asking for it again.
	att, err := client.Attachments.Get(ctx, s.MediaID(msg))
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	n, err := client.Attachments.DownloadAttachment(ctx, att, &buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(att.Filename, n, buf.String())
	// Output:
	// note.txt 5 hello
}

func ExampleContactsService_Create() {
	s := fake.NewServer()
	defer s.Close()
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	client := s.Client()
	ctx := context.Background()

	params := &convo.CreateContactParams{PhoneNumberID: "109876543210", PhoneNumber: "5511987654321", Name: "Ana Souza"}
	conf, err := client.Contacts.Create(ctx, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(conf.Message)

	// The same phone on the same number again: the contact exists already.
	_, err = client.Contacts.Create(ctx, params)
	fmt.Println(errors.Is(err, convo.ErrContactExists))
	// Output:
	// Contact created successfully.
	// true
}

func ExampleContactsService_UpdateCustomFields() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", CustomFields: map[string]string{"plan": "silver", "city": "Recife"}})
	client := s.Client()
	ctx := context.Background()

	// Fields sent are set; fields not sent stay as they are.
	_, err := client.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{
		PhoneNumberID: "109876543210",
		PhoneNumber:   "5511987654321",
		CustomFields:  map[string]string{"plan": "gold"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The contact read does not show custom fields; the fake's state does.
	state, _ := co.ContactByPhone(line, "5511987654321")
	fmt.Println(state.CustomFields["plan"], state.CustomFields["city"])
	// Output:
	// gold Recife
}

func ExampleContactsService_RemoveTags() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Tags: []string{"vip", "lead", "trial"}})
	client := s.Client()
	ctx := context.Background()

	// Tags are removed by id; the ids come from your tag records (the fake
	// hands them out with TagID).
	_, err := client.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{
		PhoneNumber: "5511987654321",
		TagIDs:      []string{co.TagID("lead"), co.TagID("trial")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	contact, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511987654321"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(contact.TagNames())
	// Output:
	// [vip]
}

func ExampleContact_TagNames() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Tags: []string{"vip", "customer"}})
	client := s.Client()

	contact, err := client.Contacts.Lookup(context.Background(), &convo.LookupContactParams{PhoneNumber: "5511987654321"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The service sends the names as one comma-separated string; TagNames
	// splits it.
	fmt.Println(strings.Join(contact.TagNames(), " + "))
	// Output:
	// vip + customer
}
