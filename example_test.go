package convo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The examples run against package fake, the whole service in-process, most
// of them on its demo data (fake.DemoSeed: Acme's support and sales numbers,
// a bot, contacts such as Ana, Bruno and Carla, and their conversations).
// In your code the base URL is the service's own (it ends with /v1) and the
// key comes from your secrets:
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
	fmt.Println(client.BaseURL() == s.URL(), err)

	// A base URL must end with /v1.
	_, err = convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL("https://api.example.com"))
	fmt.Println(err != nil)
	// Output:
	// true <nil>
	// true
}

func ExampleChannelsService_List() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	accounts, err := s.Client().Channels.List(context.Background())
	if err != nil {
		log.Fatal(err)
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
	// chatapp "Acme Support": no caption limit, images: true, template outside window: true
	// chatapp "Acme Sales": no caption limit, images: true, template outside window: true
	// botapp "Acme Help Bot": captions up to 1024, images: true, template outside window: false
}

func ExampleConversationsService_All() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	// Pages are fetched as the loop advances; break stops fetching.
	params := &convo.ListConversationsParams{Assigned: convo.Bool(false), Limit: 2}
	for conv, err := range s.Client().Conversations.All(context.Background(), params) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Println(conv.Channel, conv.ChannelIdentifier, conv.UnreadCount, "unread")
	}
	// Output:
	// botapp tg-48213977 1 unread
	// webchat visitor-91c2 0 unread
	// chatapp 5521998765432 3 unread
	// webchat visitor-7f3a 2 unread
	// chatapp 5511987654321 0 unread
}

func ExampleMessagesService_List() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// Ana's latest conversation: the conversation id comes from Conversations.List.
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5511987654321", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	// Newest first. Without Since, the last 30 days are read; Window says so.
	page, err := client.Messages.List(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 4})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("window:", page.Window.RecentWindowDays, "days")
	for _, m := range page.Items {
		if m.Media != nil {
			fmt.Printf("%s %s media=%s %q\n", m.Direction, m.Type, m.Media.MediaStatus, m.Media.Filename)
		} else {
			fmt.Printf("%s %s %q\n", m.Direction, m.Type, m.TextOrEmpty())
		}
	}
	fmt.Println("more:", page.HasMore())
	// Output:
	// window: 30 days
	// inbound image media=unknown ""
	// inbound text "It still says 'in transit'… can you help?"
	// inbound audio media=available "voice-note.ogg"
	// inbound text "Thanks! 🙏"
	// more: true
}

func ExampleMessagesService_All() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5511987654321", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	// Pages are fetched as the loop advances; break stops fetching. The first
	// error ends the sequence.
	for m, err := range client.Messages.All(ctx, convs.Items[0].ID, &convo.ListMessagesParams{Limit: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		if m.Media.Available() {
			fmt.Println("latest file:", m.Type, m.Media.Filename)
			break
		}
	}
	// Output:
	// latest file: audio voice-note.ogg
}

func ExampleAnomaliesService_Get() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	// Meant for a periodic sweep (about once a day), not for polling.
	report, err := s.Client().Anomalies.Get(context.Background(), &convo.AnomaliesParams{
		Include:        []convo.Bucket{convo.BucketUnassigned},
		ThresholdHours: 4,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("unanswered:", report.Buckets.Unanswered.Count, "never engaged:", report.Buckets.NeverEngaged.Count)
	for _, it := range report.Buckets.Unanswered.Items {
		fmt.Printf("  on %s waiting %.1fh, assigned: %v\n", it.Channel, it.WaitingHours, it.Assigned)
	}
	if u := report.Buckets.Unassigned; u != nil {
		fmt.Println("unassigned:", u.Count)
	}
	// Output:
	// unanswered: 4 never engaged: 2
	//   on webchat waiting 12.5h, assigned: false
	//   on botapp waiting 7.8h, assigned: true
	//   on chatapp waiting 7.0h, assigned: false
	//   on chatapp waiting 5.0h, assigned: true
	// unassigned: 2
}

func ExampleAttachmentsService_Download() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5511987654321", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	page, err := client.Messages.List(ctx, convs.Items[0].ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range page.Items {
		if m.Media == nil {
			continue
		}
		// Download streams the file into any io.Writer (a file in real code).
		// A message whose media_id is null is ErrNoMedia, and no request is
		// sent for it.
		n, err := client.Attachments.Download(ctx, m, io.Discard)
		var noMedia *convo.NoMediaError
		switch {
		case errors.As(err, &noMedia):
			fmt.Printf("%s: no file (%s)\n", m.Type, noMedia.MediaStatus)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Printf("%s %s: %d bytes\n", m.Type, m.Media.Filename, n)
		}
	}
	// Output:
	// image: no file (unknown)
	// audio voice-note.ogg: 2048 bytes
	// image tracking.png: 68 bytes
}

func ExampleContactsService_Lookup() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()

	// The SDK never normalizes a phone behind your back: do it where you want.
	phone, err := convo.NormalizePhone("+55 (11) 98765-4321")
	if err != nil {
		log.Fatal(err)
	}
	// PhoneNumberID (the support number) picks Ana's contact on that number.
	contact, err := client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumberID: "5511940000001", PhoneNumber: phone})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(contact.Name, contact.PhoneNumber, contact.TagNames(), *contact.Email)

	_, err = client.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "5511000000000"})
	fmt.Println("not found:", errors.Is(err, convo.ErrContactNotFound))
	// Output:
	// Ana Souza 5511987654321 [vip customer] ana.souza@example.com
	// not found: true
}

func ExampleSequencesService_Cancel() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	// Carla is in the Onboarding sequence. Canceled == false (nothing was
	// scheduled) is a success, not an error.
	for range 2 {
		res, err := s.Client().Sequences.Cancel(context.Background(), &convo.CancelSequenceParams{PhoneNumber: "5531988881234"})
		if err != nil {
			log.Fatal(err)
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

	_, err := s.Client().Messages.List(context.Background(), "no-such-conversation", nil)

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
		log.Fatal(err)
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
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client := s.Client()

	// Do calls any endpoint with the same authentication, retries and typed
	// errors as the typed methods: the ones the typed client does not cover
	// (sending, templates…), or a known one read into your own type, as here.
	// out receives the envelope's data; query is url.Values, a map or a
	// struct with url tags; escape any identifier put in the path with
	// url.PathEscape.
	var out struct {
		Items []struct {
			DisplayName string `json:"display_name"`
		} `json:"items"`
	}
	if err := client.Do(context.Background(), "GET", "/channels", nil, nil, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(out.Items), out.Items[0].DisplayName)

	// An endpoint the service does not have is a typed error like any other.
	err := client.Do(context.Background(), "GET", "/no-such-endpoint", nil, nil, nil)
	var apiErr *convo.Error
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// 3 Acme Support
	// true 404
}
