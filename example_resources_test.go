package convo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleConversationsService_List() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// One page at a time, most recent activity first; pass NextCursor back
	// for the next page (or range over Conversations.All instead).
	params := &convo.ListConversationsParams{Channel: convo.ChannelChatapp, Limit: 2}
	for {
		page, err := client.Conversations.List(ctx, params)
		if err != nil {
			log.Fatal(err)
		}
		for _, c := range page.Items {
			fmt.Println(c.ChannelIdentifier, c.Status, c.LastMessageAt.Format(time.Kitchen))
		}
		if !page.HasMore() {
			break
		}
		params.Cursor = page.NextCursor
	}
	// Output:
	// 5511987654321 open 5:02AM
	// 5531988881234 open 4:02AM
	// 5521998765432 open 3:00AM
	// 5511987654321 open 10:00AM
}

func ExamplePage_HasMore() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	page, err := s.Client().Conversations.List(context.Background(), &convo.ListConversationsParams{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	// HasMore is NextCursor != "": the service has a next page.
	fmt.Println(len(page.Items), page.HasMore())
	// Output:
	// 1 true
}

func ExampleMessagePage_HasMore() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "tg-51002931"})
	if err != nil {
		log.Fatal(err)
	}

	// Farid's conversation holds three messages: a page of two leaves one.
	page, err := client.Messages.List(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	// HasMore is NextCursor != "": pass it as Cursor for the next page.
	fmt.Println(len(page.Items), page.HasMore())
	// Output:
	// 2 true
}

func ExampleMessage_TextOrEmpty() {
	// Text is nil for a message without text (a voice note); TextOrEmpty
	// saves the nil check when "" will do.
	caption := "Did you hear my voice note?"
	for _, m := range []convo.Message{{Type: convo.MessageText, Text: &caption}, {Type: convo.MessageAudio}} {
		fmt.Printf("%s %v %q\n", m.Type, m.Text == nil, m.TextOrEmpty())
	}
	// Output:
	// text false "Did you hear my voice note?"
	// audio true ""
}

func ExampleMedia_Available() {
	// Available is false for a nil block (a text), a null media_id or a status
	// other than available: only then is there a file to fetch.
	for _, m := range []*convo.Media{
		nil,
		{MediaID: "med-1", MediaStatus: convo.MediaAvailable, MimeType: "image/png"},
		{MediaStatus: convo.MediaNoReference, MimeType: "image/jpeg"},
	} {
		fmt.Println(m.Available())
	}
	// Output:
	// false
	// true
	// false
}

func ExampleAttachmentsService_Get() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5531988881234"}) // Carla's
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Messages.List(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	// A media_id from a message's media block; Attachments.ForMessage takes
	// the message itself.
	att, err := client.Attachments.Get(ctx, page.Items[0].Media.MediaID)
	if err != nil {
		log.Fatal(err)
	}
	// URL is temporary and needs no key: treat it as a secret, do not log it.
	fmt.Println(att.Filename, att.MimeType, att.FileSize, att.ExpiresAt.After(now), att.URL != "")
	// Output:
	// acme-overview.pdf application/pdf 142 true true
}

func ExampleAttachmentsService_ForMessage() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5511987654321", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	for m, err := range client.Messages.All(ctx, convs.Items[0].ID, nil) {
		if err != nil {
			log.Fatal(err)
		}
		if m.Media == nil {
			continue // a text
		}
		att, err := client.Attachments.ForMessage(ctx, m)
		switch {
		case errors.Is(err, convo.ErrNoMedia): // no request was sent
			fmt.Println(m.Type, "has no file:", m.Media.MediaStatus)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(m.Type, att.Filename, att.MimeType)
		}
	}
	// Output:
	// image has no file: unknown
	// audio voice-note.ogg audio/ogg
	// image tracking.png image/png
}

func ExampleAttachmentsService_DownloadAttachment() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5531988881234"}) // Carla's
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Messages.List(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	// Look at the attachment first (name, type, size), then fetch the file
	// from the same address, without asking for it again.
	att, err := client.Attachments.ForMessage(ctx, page.Items[0])
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := client.Attachments.DownloadAttachment(ctx, att, &buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(att.Filename, n, strings.HasPrefix(buf.String(), "%PDF"))
	// Output:
	// acme-overview.pdf 142 true
}

func ExampleContactsService_Create() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// A new contact on the support number (its provider_identifier).
	params := &convo.CreateContactParams{PhoneNumberID: "5511940000001", PhoneNumber: "5511912345678", Name: "Bia"}
	conf, err := client.Contacts.Create(ctx, params)
	if err != nil {
		log.Fatal(err)
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
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// Fields sent are set; fields not sent stay as they are (Bruno's source).
	_, err := client.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{
		PhoneNumberID: "5511940000001",
		PhoneNumber:   "5521998765432",
		CustomFields:  map[string]string{"plan": "trial"},
	})
	if err != nil {
		log.Fatal(err)
	}
	// The contact read does not show custom fields; the fake's state does.
	bruno, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5521998765432"})
	if err != nil {
		log.Fatal(err)
	}
	state, _ := s.Contact(bruno.ID)
	fmt.Println(state.CustomFields["plan"], state.CustomFields["source"])
	// Output:
	// trial instagram
}

func ExampleContactsService_RemoveTags() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// Tags are removed by id; the ids come from your tag records (the fake
	// hands them out with TagID). Carla is tagged lead and demo-requested.
	_, err := client.Contacts.RemoveTags(ctx, &convo.RemoveTagsParams{
		PhoneNumber: "5531988881234",
		TagIDs:      []string{s.Company().TagID("demo-requested")},
	})
	if err != nil {
		log.Fatal(err)
	}
	carla, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5531988881234"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(carla.TagNames())
	// Output:
	// [lead]
}

func ExampleContact_TagNames() {
	// The service sends the names as one comma-separated string, as Contacts.Lookup
	// returns it; TagNames splits it.
	contact := convo.Contact{Name: "Ana", TagNamesRaw: "vip, customer"}
	fmt.Println(strings.Join(contact.TagNames(), " + "))
	// Output:
	// vip + customer
}

func ExampleMessagesService_Pages() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5531988881234"}) // Carla's
	if err != nil {
		log.Fatal(err)
	}
	conv := convs.Items[0].ID

	// Read two pages, keeping the cursor of the last page finished...
	params := &convo.ListMessagesParams{Limit: 1}
	var saved string
	n := 0
	for page, err := range client.Messages.Pages(ctx, conv, params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(page.Items[0].TextOrEmpty())
		saved = page.NextCursor
		if n++; n == 2 {
			break // say the job stopped here
		}
	}
	// ...and resume later from it: the cursor is one parameter.
	fmt.Println("resuming")
	for m, err := range client.Messages.All(ctx, conv, &convo.ListMessagesParams{Limit: 1, Cursor: saved}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.TextOrEmpty())
	}
	// Output:
	// Meanwhile, here is our product overview.
	// Thanks for reaching out! A specialist will contact you shortly.
	// resuming
	// Hello, can I get a demo next week?
}

func ExampleConversationsService_Pages() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	for page, err := range s.Client().Conversations.Pages(context.Background(), &convo.ListConversationsParams{Limit: 5}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(len(page.Items), "conversation(s), more:", page.HasMore())
	}
	// Output:
	// 5 conversation(s), more: true
	// 3 conversation(s), more: false
}

func ExampleContactsService_Ensure() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	params := &convo.CreateContactParams{PhoneNumberID: "5511940000001", PhoneNumber: "5511912345678", Name: "Bia"}
	first, created, err := client.Contacts.Ensure(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first.Name, created)

	// Again: the same contact, found rather than created.
	again, created, err := client.Contacts.Ensure(ctx, params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.ID == first.ID, created)
	// Output:
	// Bia true
	// true false
}

// ExampleAttachment_Expired shows that an address's expiry is judged on the
// service's clock: the fake's manual clock, years away from the machine's.
func ExampleAttachment_Expired() {
	clock := fake.NewManualClock(time.Date(2001, 1, 1, 9, 0, 0, 0, time.UTC))
	s := fake.NewServer(fake.WithClock(clock), fake.WithSeed(fake.DemoSeed()), fake.WithAttachmentTTL(15*time.Minute))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5531988881234"}) // Carla's
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Messages.List(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	att, err := client.Attachments.ForMessage(ctx, page.Items[0])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("expired:", att.Expired())
	// Output: expired: false
}
