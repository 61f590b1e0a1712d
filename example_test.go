package convo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The examples run against package fake, the whole service in-process, which
// each example starts and seeds itself. In your code the base URL is the
// service's own (it ends with /v1) and the key comes from your secrets:
//
//	client, err := convo.NewClient() // reads CONVO_API_KEY and CONVO_BASE_URL

func ExampleNewClient() {
	s := fake.NewServer()
	defer s.Close()

	// Without options, NewClient reads CONVO_API_KEY and CONVO_BASE_URL.
	client, err := convo.NewClient(
		convo.WithAPIKey(s.APIKey()),
		convo.WithBaseURL(s.URL()), // ends with /v1
		convo.WithUserAgent("my-app/1.2"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(client.BaseURL() == s.URL())

	// A base URL must end with /v1.
	_, err = convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL("https://api.example.com"))
	fmt.Println(err != nil)
	// Output:
	// true
	// true
}

func ExampleChannelsService_List() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support BR", ProviderIdentifier: "5511940000001"})
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot", ProviderIdentifier: "acme_bot"})
	client := s.Client()

	accounts, err := client.Channels.List(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range accounts {
		caption := "no caption limit" // max_caption_length null
		if a.Capabilities.MaxCaptionLength != nil {
			caption = fmt.Sprintf("captions up to %d", *a.Capabilities.MaxCaptionLength)
		}
		fmt.Printf("%s %q: %s, images: %v, template outside window: %v\n",
			a.Channel, a.DisplayName, caption, a.Supports(convo.MessageImage), a.Capabilities.RequiresTemplateOutsideWindow)
	}
	// Output:
	// chatapp "Support BR": no caption limit, images: true, template outside window: true
	// botapp "Bot": captions up to 1024, images: true, template outside window: false
}

func ExampleConversationsService_All() {
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

	// Pages are fetched as the loop advances; break stops fetching.
	params := &convo.ListConversationsParams{Assigned: convo.Bool(false), Limit: 2}
	for conv, err := range client.Conversations.All(context.Background(), params) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(conv.ID, conv.Channel, conv.UnreadCount, "unread")
	}
	// Output:
	// c-1 chatapp 1 unread
	// c-2 chatapp 1 unread
	// c-3 chatapp 1 unread
}

func ExampleMessagesService_List() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ID: "c-1", ContactID: ana})
	co.AddMessage(conv, fake.Message{MessageID: "m-1", Sender: fake.SenderContact, Type: "audio", At: now.Add(-3 * time.Hour),
		Media: &fake.Media{MediaStatus: convo.MediaUnknown}})
	co.AddMessage(conv, fake.Message{MessageID: "m-2", Sender: fake.SenderContact, Text: "my receipt", At: now.Add(-2 * time.Hour),
		Media: &fake.Media{MimeType: "image/png", Data: []byte("receipt data")}})
	co.AddMessage(conv, fake.Message{MessageID: "m-3", Sender: fake.SenderAgent, Text: "Thanks, got it.", At: now.Add(-time.Hour)})
	client := s.Client()

	// Newest first. Without Since, the last 30 days are read; Window says so.
	page, err := client.Messages.List(context.Background(), conv, &convo.ListMessagesParams{Limit: 50})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("window:", page.Window.RecentWindowDays, "days")
	for _, m := range page.Items {
		switch {
		case m.Media != nil:
			fmt.Printf("%s %s media=%s text=%q\n", m.MessageID, m.Type, m.Media.MediaStatus, m.TextOrEmpty())
		default:
			fmt.Printf("%s %s %q\n", m.MessageID, m.Type, m.TextOrEmpty())
		}
	}
	fmt.Println("more:", page.HasMore())
	// Output:
	// window: 30 days
	// m-3 text "Thanks, got it."
	// m-2 image media=available text="my receipt"
	// m-1 audio media=unknown text=""
	// more: false
}

func ExampleMessagesService_All() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.AddMessage(conv, fake.Message{MessageID: "m-1", Sender: fake.SenderContact, At: now.Add(-3 * time.Hour),
		Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})
	co.AddMessage(conv, fake.Message{MessageID: "m-2", Sender: fake.SenderContact, At: now.Add(-2 * time.Hour),
		Media: &fake.Media{MimeType: "application/pdf", Data: []byte("pdf")}})
	co.AddMessage(conv, fake.Message{MessageID: "m-3", Sender: fake.SenderAgent, Text: "Thanks!", At: now.Add(-time.Hour)})
	client := s.Client()

	// Pages are fetched as the loop advances; break stops fetching. The first
	// error ends the sequence.
	for m, err := range client.Messages.All(context.Background(), conv, &convo.ListMessagesParams{Limit: 100}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if m.Media.Available() {
			fmt.Println("latest message with a file:", m.MessageID)
			break
		}
	}
	// Output:
	// latest message with a file: m-2
}

func ExampleAnomaliesService_Get() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})
	co.Inbound(co.AddConversation(fake.Conversation{ID: "c-1", ContactID: ana}), "Where is my order?", now.Add(-6*time.Hour-30*time.Minute))
	bruno := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5521998765432"})
	co.Reply(co.AddConversation(fake.Conversation{ID: "c-2", ContactID: bruno}), fake.SenderAutomation, "Welcome!", now.Add(-time.Hour))
	client := s.Client()

	// Meant for a periodic sweep (about once a day), not for polling.
	report, err := client.Anomalies.Get(context.Background(), &convo.AnomaliesParams{
		Include:        []convo.Bucket{convo.BucketUnassigned},
		ThresholdHours: 4,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("unanswered:", report.Buckets.Unanswered.Count, "never engaged:", report.Buckets.NeverEngaged.Count)
	for _, it := range report.Buckets.Unanswered.Items {
		fmt.Printf("  %s on %s waiting %.1fh\n", it.ConversationID, it.Channel, it.WaitingHours)
	}
	if u := report.Buckets.Unassigned; u != nil {
		fmt.Println("unassigned:", u.Count)
	}
	// Output:
	// unanswered: 1 never engaged: 1
	//   c-1 on chatapp waiting 6.5h
	// unassigned: 1
}

func ExampleAttachmentsService_Download() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.AddMessage(conv, fake.Message{MessageID: "m-1", Sender: fake.SenderContact, Type: "audio", At: now.Add(-2 * time.Hour),
		Media: &fake.Media{MediaStatus: convo.MediaUnknown}})
	co.AddMessage(conv, fake.Message{MessageID: "m-2", Sender: fake.SenderContact, At: now.Add(-time.Hour),
		Media: &fake.Media{MimeType: "text/plain", Data: []byte("receipt data")}})
	client := s.Client()
	ctx := context.Background()

	page, err := client.Messages.List(ctx, conv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range page.Items {
		if m.Media == nil {
			continue
		}
		// Download streams the file into any io.Writer (here stdout; a file
		// in real code). A message whose media_id is null is ErrNoMedia, and
		// no request is sent for it.
		n, err := client.Attachments.Download(ctx, m, os.Stdout)
		var noMedia *convo.NoMediaError
		switch {
		case errors.As(err, &noMedia):
			fmt.Printf("%s: no file (%s)\n", m.MessageID, noMedia.MediaStatus)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Printf(" <- %s: %d bytes\n", m.MessageID, n)
		}
	}
	// Output:
	// receipt data <- m-2: 12 bytes
	// m-1: no file (unknown)
}

func ExampleContactsService_Lookup() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana Souza", Tags: []string{"vip", "lead"}})
	client := s.Client()
	ctx := context.Background()

	// The SDK never normalizes a phone behind your back: do it where you want.
	phone, err := convo.NormalizePhone("+55 (11) 98765-4321")
	if err != nil {
		fmt.Println(err)
		return
	}
	contact, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: "109876543210", PhoneNumber: phone})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(contact.Name, contact.PhoneNumber, contact.TagNames(), contact.Email == nil)

	_, err = client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511000000000"})
	fmt.Println("not found:", errors.Is(err, convo.ErrContactNotFound))
	// Output:
	// Ana Souza 5511987654321 [vip lead] true
	// not found: true
}

func ExampleSequencesService_Cancel() {
	s := fake.NewServer()
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", SequenceName: "Onboarding"})
	client := s.Client()

	// Canceled == false (nothing was scheduled) is a success, not an error.
	for range 2 {
		res, err := client.Sequences.Cancel(context.Background(), &convo.CancelSequenceParams{PhoneNumber: "5511987654321"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Canceled, res.Message)
	}
	// Output:
	// true Sequence canceled successfully.
	// false No scheduled sequence to cancel.
}

func ExampleError() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()

	_, err := client.Messages.List(context.Background(), "no-such-conversation", nil)

	// Branch on the code, never on the text: with errors.Is and a sentinel…
	if errors.Is(err, convo.ErrConversationNotFound) {
		fmt.Println("no such conversation")
	}
	// …or with errors.As, for the status, the code and the id to quote to support.
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.ErrorID != "", apiErr.Path)
	}
	// Output:
	// no such conversation
	// 404 CONVERSATION_NOT_FOUND true /api/v1/conversations/no-such-conversation/messages
}

func ExampleError_unauthorized() {
	s := fake.NewServer()
	defer s.Close()
	client, err := convo.NewClient(convo.WithAPIKey("wrong-key"), convo.WithBaseURL(s.URL()))
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = client.Channels.List(context.Background())
	fmt.Println(errors.Is(err, convo.ErrUnauthorized))
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	// Output:
	// true
	// 401 UNAUTHORIZED Invalid or missing API key.
}

func ExampleNormalizePhone() {
	for _, in := range []string{"+55 (11) 98765-4321", "12-34"} {
		n, err := convo.NormalizePhone(in)
		fmt.Printf("%q %q %v\n", in, n, errors.Is(err, convo.ErrInvalidPhone))
	}
	// Output:
	// "+55 (11) 98765-4321" "5511987654321" false
	// "12-34" "" true
}

func ExampleClient_Do() {
	s := fake.NewServer()
	defer s.Close()
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: "5511940000001"})
	client := s.Client()

	// Do calls any endpoint with the same authentication, retries and typed
	// errors as the typed methods: the ones the typed client does not cover
	// (sending, templates…), or a known one read into your own type, as here.
	// out receives the envelope's data; query is url.Values, a map or a
	// struct with url tags; escape any identifier put in the path with
	// url.PathEscape.
	var out struct {
		Items []struct {
			Channel     string `json:"channel"`
			DisplayName string `json:"display_name"`
		} `json:"items"`
	}
	if err := client.Do(context.Background(), "GET", "/channels", nil, nil, &out); err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range out.Items {
		fmt.Println(a.Channel, a.DisplayName)
	}

	// An endpoint the service does not have is a typed error like any other.
	err := client.Do(context.Background(), "GET", "/no-such-endpoint", nil, nil, nil)
	var apiErr *convo.Error
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// chatapp Support
	// true 404
}
