package convo_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	convo "github.com/convoapi/convo-go"
)

// The examples run against newExampleServer, a loopback stand-in for the
// service that answers with canned, spec-shaped data. In your code the base URL
// is the service's own (it ends with /v1) and the key comes from your secrets.

func ExampleNewClient() {
	srv := newExampleServer()
	defer srv.Close()

	// Without options, NewClient reads CONVO_API_KEY and CONVO_BASE_URL.
	client, err := convo.NewClient(
		convo.WithAPIKey("example-key"),
		convo.WithBaseURL(srv.URL+"/v1"),
		convo.WithUserAgent("my-app/1.2"),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(client.BaseURL() == srv.URL+"/v1")

	// A base URL must end with /v1.
	_, err = convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL("https://api.example.com"))
	fmt.Println(err != nil)
	// Output:
	// true
	// true
}

func ExampleChannelsService_List() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

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
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

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
	// c-1 chatapp 2 unread
	// c-2 botapp 0 unread
	// c-3 webchat 1 unread
}

func ExampleMessagesService_List() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Newest first. Without Since, the last 30 days are read; Window says so.
	page, err := client.Messages.List(context.Background(), "c-1", &convo.ListMessagesParams{Limit: 50})
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
	// m-3 text "Sure, sending it now."
	// m-2 image media=available text="my receipt"
	// m-1 audio media=unknown text=""
	// more: false
}

func ExampleAnomaliesService_Get() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

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
	// unanswered: 1 never engaged: 3
	//   c-1 on chatapp waiting 6.5h
	// unassigned: 1
}

func ExampleAttachmentsService_Download() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	page, err := client.Messages.List(ctx, "c-1", nil)
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
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}
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
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Canceled == false (nothing was scheduled) is a success, not an error.
	res, err := client.Sequences.Cancel(context.Background(), &convo.CancelSequenceParams{PhoneNumber: "5511987654321"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Canceled, res.Message)
	// Output:
	// true Sequence canceled.
}

func ExampleError() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = client.Messages.List(context.Background(), "no-such-conversation", nil)

	// Branch on the code, never on the text: with errors.Is and a sentinel…
	if errors.Is(err, convo.ErrConversationNotFound) {
		fmt.Println("no such conversation")
	}
	// …or with errors.As, for the status, the code and the id to quote to support.
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.ErrorID, apiErr.Path)
	}
	// Output:
	// no such conversation
	// 404 CONVERSATION_NOT_FOUND ERR-7H2M4QZ1-B8C3 /api/v1/conversations/no-such-conversation/messages
}

func ExampleError_unauthorized() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("wrong-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	_, err = client.Channels.List(context.Background())
	fmt.Println(errors.Is(err, convo.ErrUnauthorized))
	fmt.Println(err)
	// Output:
	// true
	// convo: 401 UNAUTHORIZED: Invalid or missing API key. (GET /api/v1/channels, errorId ERR-3KQ8ZW1P-9XA2, 1 attempt)
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
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// An endpoint the typed client does not cover, with the same
	// authentication, retries and typed errors. out receives the envelope's
	// data; escape any identifier put in the path with url.PathEscape.
	var out struct {
		Items []struct {
			Name     string `json:"name"`
			Language string `json:"language"`
		} `json:"items"`
	}
	q := url.Values{"language": {"pt_BR"}}
	if err := client.Do(context.Background(), "GET", "/chatapp/templates", q, nil, &out); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range out.Items {
		fmt.Println(t.Name, t.Language)
	}
	// Output:
	// order_update pt_BR
}

func ExampleMessagesService_All() {
	srv := newExampleServer()
	defer srv.Close()
	client, err := convo.NewClient(convo.WithAPIKey("example-key"), convo.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Pages are fetched as the loop advances; break stops fetching. The first
	// error ends the sequence.
	for m, err := range client.Messages.All(context.Background(), "c-1", &convo.ListMessagesParams{Limit: 100}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if m.Media.Available() {
			fmt.Println("first message with a file:", m.MessageID)
			break
		}
	}
	// Output:
	// first message with a file: m-2
}
