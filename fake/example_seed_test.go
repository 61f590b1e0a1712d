package fake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleLoadSeed() {
	// A seed is JSON (the format cmd/convofake reads; fields in fake/SEED.md).
	// Times may be relative ("ago") to the seed's now.
	doc := `{
	  "now": "2026-11-22T10:00:00Z",
	  "companies": [{
	    "channels": [{"ref": "support", "channel": "chatapp", "display_name": "Support", "provider_identifier": "5511940000001"}],
	    "contacts": [{"ref": "ana", "channel": "support", "phone": "+55 11 98765-4321", "name": "Ana"}],
	    "conversations": [{"id": "c0000000-0000-4000-8000-000000000001", "contact": "ana", "messages": [
	      {"sender": "contact", "text": "Where is my order?", "ago": "5h"}
	    ]}]
	  }]
	}`
	seed, err := fake.LoadSeed(strings.NewReader(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := fake.NewServer(fake.WithSeed(seed)) // a clock frozen at the seed's now
	defer s.Close()

	report, err := s.Client().Anomalies.Get(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	it := report.Buckets.Unanswered.Items[0]
	fmt.Println(it.ConversationID, it.WaitingHours, s.Clock().Now().Format(time.RFC3339))

	// A mistake names the JSON path of the faulty field.
	_, err = fake.LoadSeed(strings.NewReader(`{"companies": [{"channels": [{"channel": "fax"}]}]}`))
	fmt.Println(err != nil)
	// Output:
	// c0000000-0000-4000-8000-000000000001 5 2026-11-22T10:00:00Z
	// true
}

func ExampleWithSeed() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seed := &fake.Seed{Now: &now, Companies: []fake.CompanySeed{{
		Channels: []fake.ChannelAccount{{Ref: "bot", Channel: convo.ChannelBotapp, DisplayName: "Help bot", ProviderIdentifier: "acme_bot"}},
	}}}
	s := fake.NewServer(fake.WithSeed(seed))
	defer s.Close()

	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(accounts[0].DisplayName, s.Clock().Manual())
	// Output:
	// Help bot true
}

func ExampleDemoSeed() {
	// The demo data of the examples and of cmd/convofake: a company with two
	// chatapp numbers, a bot and a website chat, and conversations in every
	// state. Times are relative to the clock.
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()
	if err := s.Load(fake.DemoSeed()); err != nil {
		fmt.Println(err)
		return
	}
	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range accounts {
		fmt.Println(a.Channel, a.DisplayName)
	}
	// Output:
	// chatapp Acme Support
	// chatapp Acme Sales
	// botapp Acme Help Bot
}

func ExampleServer_Load() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()

	// Load replaces the state; a faulty seed changes nothing and says where
	// the fault is.
	bad := &fake.Seed{Companies: []fake.CompanySeed{{
		Contacts: []fake.Contact{{ChannelAccountID: "no-such-channel", PhoneNumber: "5511987654321"}},
	}}}
	fmt.Println(s.Load(bad) != nil)

	good := &fake.Seed{Companies: []fake.CompanySeed{{
		Channels: []fake.ChannelAccount{{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"}},
	}}}
	fmt.Println(s.Load(good))
	fmt.Println(len(s.Company().Contacts()))
	// Output:
	// true
	// <nil>
	// 0
}

func ExampleServer_Company() {
	s := fake.NewServer()
	defer s.Close()

	// The default company is the one Server.APIKey and Server.Client use.
	co := s.Company()
	fmt.Println(co.APIKey() == s.APIKey(), co.ID() != "")
	// Output:
	// true true
}

func ExampleServer_AddCompany() {
	s := fake.NewServer()
	defer s.Close()
	mine := s.Company()
	line := mine.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := mine.AddConversation(fake.Conversation{ContactID: mine.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})

	// Another tenant: its key sees nothing of the first company's data.
	other := s.AddCompany("other-key")
	_, err := s.Client(convo.WithAPIKey(other.APIKey())).Messages.List(context.Background(), conv, nil)
	fmt.Println(errors.Is(err, convo.ErrConversationNotFound))
	// Output:
	// true
}

func ExampleServer_Companies() {
	s := fake.NewServer()
	defer s.Close()
	s.AddCompany("key-b")
	s.AddCompany("key-c")

	for _, co := range s.Companies() { // the default company first
		fmt.Println(co.APIKey())
	}
	// Output:
	// fake-api-key
	// key-b
	// key-c
}

func ExampleServer_CompanyByKey() {
	s := fake.NewServer()
	defer s.Close()
	s.AddCompany("key-b")

	co, ok := s.CompanyByKey("key-b")
	fmt.Println(ok, co.APIKey())
	_, ok = s.CompanyByKey("unknown")
	fmt.Println(ok)
	// Output:
	// true key-b
	// false
}

func ExampleCompany_APIKey() {
	s := fake.NewServer()
	defer s.Close()
	b := s.AddCompany("key-b")

	// Each company's key authenticates as that company.
	client := s.Client(convo.WithAPIKey(b.APIKey()))
	_, err := client.Channels.List(context.Background())
	fmt.Println(b.APIKey(), err)
	// Output:
	// key-b <nil>
}

func ExampleCompany_ID() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})

	// State snapshots name their company by ID.
	st, _ := s.Contact(ana)
	fmt.Println(st.CompanyID == co.ID())
	// Output:
	// true
}

func ExampleCompany_AddChannel() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()

	// For chatapp, ProviderIdentifier is the phone_number_id of the contact
	// endpoints.
	id := co.AddChannel(fake.ChannelAccount{ID: "0b6f2c1e-1111-4a5b-9c3d-000000000001", Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: "5511940000001"})
	accounts, _ := s.Client().Channels.List(context.Background())
	fmt.Println(id, accounts[0].ID, accounts[0].ProviderIdentifier)
	// Output:
	// 0b6f2c1e-1111-4a5b-9c3d-000000000001 0b6f2c1e-1111-4a5b-9c3d-000000000001 5511940000001
}

func ExampleCompany_AddWebchatWidget() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()

	// A widget is not a channel account: it never appears in /channels, but
	// its id is the channel_account_id of its webchat conversations.
	widget := co.AddWebchatWidget("Website chat")
	visitor := co.AddContact(fake.Contact{ChannelAccountID: widget, ChannelIdentifier: "visitor-7f3a"})
	co.Inbound(co.AddConversation(fake.Conversation{ContactID: visitor}), "Hi!", now.Add(-time.Minute))

	client := s.Client()
	accounts, _ := client.Channels.List(context.Background())
	page, _ := client.Conversations.List(context.Background(), &convo.ListConversationsParams{Channel: convo.ChannelWebchat})
	fmt.Println(len(accounts), page.Items[0].Channel, page.Items[0].ChannelAccountID == widget)
	// Output:
	// 0 webchat true
}

func ExampleCompany_AddContact() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	support := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	sales := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000002"})

	// The phone is normalized; the same phone on two numbers is two contacts.
	a := co.AddContact(fake.Contact{ChannelAccountID: support, PhoneNumber: "+55 11 98765-4321", Name: "Ana", Tags: []string{"vip"}})
	b := co.AddContact(fake.Contact{ChannelAccountID: sales, PhoneNumber: "5511987654321", Name: "Ana"})
	st, _ := s.Contact(a)
	fmt.Println(a != b, st.PhoneNumber, st.Tags)
	// Output:
	// true 5511987654321 [vip]
}

func ExampleCompany_AddConversation() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})

	// Ids are UUIDs, as the service's; leave ID out for a generated one.
	conv := co.AddConversation(fake.Conversation{ID: "c0000000-0000-4000-8000-000000000001", ContactID: ana, AssignedTo: "Marta"})
	st, _ := s.Conversation(conv)
	fmt.Println(conv, st.Channel, st.Status, st.AssignedTo)
	// Output:
	// c0000000-0000-4000-8000-000000000001 chatapp open Marta
}

func ExampleCompany_AddMessage() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})

	// Any message: here an image the contact sent, with a caption and a
	// reaction from the agent.
	co.AddMessage(conv, fake.Message{MessageID: "m-1", Sender: fake.SenderContact, Text: "my receipt", At: now.Add(-time.Hour),
		Media:     &fake.Media{MimeType: "image/png", Filename: "receipt.png", Data: []byte("png")},
		Reactions: []fake.Reaction{{Emoji: "👍", Direction: convo.DirectionOutbound}}})

	page, _ := s.Client().Messages.List(context.Background(), conv, nil)
	m := page.Items[0]
	fmt.Println(m.MessageID, m.Direction, m.Type, m.TextOrEmpty(), m.Media.MediaStatus, m.Reactions[0].Emoji)
	// Output:
	// m-1 inbound image my receipt available 👍
}

func ExampleCompany_Inbound() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})

	// A text from the contact, five hours ago: an unanswered conversation.
	co.Inbound(conv, "Where is my order?", now.Add(-5*time.Hour))
	st, _ := s.Conversation(conv)
	fmt.Println(st.LastInboundAt.Format(time.Kitchen), *st.UnreadCount)
	// Output:
	// 5:00AM 1
}

func ExampleCompany_Reply() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.Inbound(conv, "Where is my order?", now.Add(-6*time.Hour))

	// Only automation answered: the conversation is no longer unanswered,
	// but it waits for a person in the automation_only bucket.
	co.Reply(conv, fake.SenderAutomation, "An agent will answer soon.", now.Add(-6*time.Hour+time.Minute))
	report, _ := s.Client().Anomalies.Get(context.Background(), &convo.AnomaliesParams{Include: []convo.Bucket{convo.BucketAutomationOnly}})
	fmt.Println(report.Buckets.Unanswered.Count, report.Buckets.AutomationOnly.Count)
	// Output:
	// 0 1
}

func ExampleCompany_Receive() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})

	// A message from a new phone creates the contact and its conversation,
	// as the service's inbound path does; the next one joins them.
	conv1, _ := co.Receive(line, "+55 11 98765-4321", "Ana", fake.Message{Text: "Hi!", At: now.Add(-2 * time.Minute)})
	conv2, _ := co.Receive(line, "5511987654321", "", fake.Message{Text: "Anyone there?", At: now.Add(-time.Minute)})
	st, _ := s.Conversation(conv1)
	fmt.Println(conv1 == conv2, len(co.Contacts()), st.MessageCount)
	// Output:
	// true 1 2
}

func ExampleCompany_AddReaction() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.Reply(conv, fake.SenderAgent, "Your order shipped.", now.Add(-time.Hour))

	co.AddReaction(msg, fake.Reaction{Emoji: "🎉"}) // from the contact
	page, _ := s.Client().Messages.List(context.Background(), conv, nil)
	r := page.Items[0].Reactions[0]
	fmt.Println(r.Emoji, r.Direction, len(page.Items))
	// Output:
	// 🎉 inbound 1
}

func ExampleCompany_Assign() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})

	co.Assign(conv, "Marta")
	page, _ := s.Client().Conversations.List(context.Background(), &convo.ListConversationsParams{Assigned: convo.Bool(true)})
	fmt.Println(len(page.Items))
	co.Assign(conv, "") // unassigned again
	page, _ = s.Client().Conversations.List(context.Background(), &convo.ListConversationsParams{Assigned: convo.Bool(true)})
	fmt.Println(len(page.Items))
	// Output:
	// 1
	// 0
}

func ExampleCompany_SetStatus() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})

	co.SetStatus(conv, convo.ConversationResolved)
	client := s.Client()
	open, _ := client.Conversations.List(context.Background(), nil) // open only, by default
	all, _ := client.Conversations.List(context.Background(), &convo.ListConversationsParams{Status: convo.ConversationAll})
	fmt.Println(len(open.Items), len(all.Items), all.Items[0].Status)
	// Output:
	// 0 1 resolved
}

func ExampleCompany_TagContact() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})

	co.TagContact(ana, "vip", "lead")
	contact, _ := s.Client().Contacts.Lookup(context.Background(), &convo.LookupContactParams{PhoneNumber: "5511987654321"})
	fmt.Println(contact.TagNames())
	// Output:
	// [vip lead]
}

func ExampleCompany_TagID() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Tags: []string{"vip", "lead"}})

	// Tag ids are company-wide; RemoveTags takes them.
	_, err := s.Client().Contacts.RemoveTags(context.Background(), &convo.RemoveTagsParams{
		PhoneNumber: "5511987654321", TagIDs: []string{co.TagID("lead")},
	})
	st, _ := s.Contact(ana)
	fmt.Println(err, st.Tags, co.TagID("vip") == st.TagIDs[0])
	// Output:
	// <nil> [vip] true
}

func ExampleCompany_ScheduleSequence() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})

	co.ScheduleSequence(ana, "Onboarding")
	res, _ := s.Client().Sequences.Cancel(context.Background(), &convo.CancelSequenceParams{PhoneNumber: "5511987654321"})
	st, _ := s.Contact(ana)
	fmt.Println(res.Canceled, st.SequenceStatus, st.SequenceName)
	// Output:
	// true canceled Onboarding
}

func ExampleCompany_Contacts() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})

	// Assert on what the code under test created.
	_, err := s.Client().Contacts.Create(context.Background(), &convo.CreateContactParams{
		PhoneNumberID: "109876543210", PhoneNumber: "5521998765432", Name: "Bruno",
	})
	for _, c := range co.Contacts() {
		fmt.Println(c.Name, c.PhoneNumber)
	}
	fmt.Println(err)
	// Output:
	// Ana 5511987654321
	// Bruno 5521998765432
	// <nil>
}

func ExampleCompany_ContactByPhone() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", CustomFields: map[string]string{"plan": "silver"}})

	_, err := s.Client().Contacts.UpdateCustomFields(context.Background(), &convo.UpdateCustomFieldsParams{
		PhoneNumber: "5511987654321", CustomFields: map[string]string{"plan": "gold"},
	})
	// Any phone form; "" as the account searches the whole company.
	st, ok := co.ContactByPhone("", "+55 11 98765-4321")
	fmt.Println(err, ok, st.CustomFields["plan"])
	// Output:
	// <nil> true gold
}

func ExampleServer_Contact() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana", Email: "ana@example.com"})

	st, ok := s.Contact(ana)
	fmt.Println(ok, st.Name, st.Email, st.PhoneNumber)
	_, ok = s.Contact("no-such-id")
	fmt.Println(ok)
	// Output:
	// true Ana ana@example.com 5511987654321
	// false
}

func ExampleServer_Conversation() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.Inbound(conv, "Hi", now.Add(-2*time.Hour))
	co.Reply(conv, fake.SenderAgent, "Hello!", now.Add(-time.Hour))

	st, _ := s.Conversation(conv)
	fmt.Println(st.Status, st.MessageCount, *st.UnreadCount, st.LastMessageAt.Format(time.Kitchen))
	// Output:
	// open 2 0 9:00AM
}

func ExampleServer_Message() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.Reply(conv, fake.SenderPhone, "Sent from my phone", now.Add(-time.Hour))

	// The sender kind is not on the wire; the state shows it.
	st, _ := s.Message(msg)
	fmt.Println(st.Direction, st.Sender, st.Type)
	// Output:
	// outbound phone text
}

func ExampleServer_MediaID() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	withFile := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Hour),
		Media: &fake.Media{MimeType: "application/pdf", Filename: "invoice.pdf", Data: []byte("%PDF")}})
	text := co.Inbound(conv, "See attached", now.Add(-time.Minute))

	att, err := s.Client().Attachments.Get(context.Background(), s.MediaID(withFile))
	fmt.Println(err, att.Filename, s.MediaID(text) == "")
	// Output:
	// <nil> invoice.pdf true
}

// DecodeSeed reads a document without loading it; null or an array is not
// a seed.
func ExampleDecodeSeed() {
	seed, err := fake.DecodeSeed(strings.NewReader(`{"companies": [{"api_key": "k1"}, {"api_key": "k2"}]}`))
	fmt.Println(len(seed.Companies), err)
	_, err = fake.DecodeSeed(strings.NewReader(`null`))
	fmt.Println(err)
	// Output:
	// 2 <nil>
	// seed: the document is null; want a JSON object ({"companies": [...]}, fake/SEED.md)
}

// DecodeSeedBytes reads a document already in memory, as strictly as
// DecodeSeed: a key given twice is refused.
func ExampleDecodeSeedBytes() {
	seed, err := fake.DecodeSeedBytes([]byte(`{"companies": [{"api_key": "k1"}]}`))
	fmt.Println(seed.Companies[0].APIKey, err)
	_, err = fake.DecodeSeedBytes([]byte(`{"companies": [], "companies": []}`))
	fmt.Println(err != nil)
	// Output:
	// k1 <nil>
	// true
}

// A server started from a document it keeps for Reset, with a change of
// the caller's (here, the API key) that Reset makes again.
func ExampleWithSeedDocument() {
	doc := []byte(`{"companies": [{"api_key": "from-the-file", "channels": [
	  {"ref": "support", "channel": "chatapp", "provider_identifier": "5511940000001"}]}]}`)
	seed, err := fake.DecodeSeedBytes(doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	edit := func(s *fake.Seed) { s.Companies[0].APIKey = "from-the-flag" }
	edit(seed)
	s := fake.NewServer(fake.WithSeedDocument(seed, doc, edit))
	defer s.Close()

	co := s.Company()
	line := co.Channels()[0].ID
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	fmt.Println(co.APIKey(), len(co.Contacts()))

	s.Reset() // back to the document, edited again
	fmt.Println(s.Company().APIKey(), len(s.Company().Contacts()))
	// Output:
	// from-the-flag 1
	// from-the-flag 0
}

// A server restarted from its saved state keeps its default company's id.
func ExampleWithDefaultCompanyID() {
	before := fake.NewServer()
	defer before.Close()
	saved := before.ExportSeed()

	after := fake.NewServer(fake.WithSeed(saved), fake.WithDefaultCompanyID(saved.Companies[0].ID))
	defer after.Close()
	fmt.Println(after.Company().ID() == before.Company().ID())
	// Output: true
}

// The syntax of a seed's relative times, days included.
func ExampleParseDuration() {
	d, err := fake.ParseDuration("2d4h")
	fmt.Println(d, err)
	d, _ = fake.ParseDuration("-90m")
	fmt.Println(d)
	_, err = fake.ParseDuration("soon")
	fmt.Println(err)
	// Output:
	// 52h0m0s <nil>
	// -1h30m0s
	// bad duration "soon" (want e.g. 90m, 3h, 2d4h)
}
