package fake_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// Example seeds a company, then reads it through the SDK client the fake
// hands out. In a test, use fake.New(t, ...) instead of NewServer.
func Example() {
	clock := fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	s := fake.NewServer(fake.WithClock(clock))
	defer s.Close()

	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Where is my order?", clock.Now().Add(-5*time.Hour))
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: clock.Now().Add(-299 * time.Minute),
		Media: &fake.Media{MimeType: "image/png", Filename: "receipt.png", Data: []byte("png bytes")}})

	ctx := context.Background()
	client := s.Client()

	channels, err := client.Channels.List(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("channels:", len(channels), channels[0].DisplayName)

	report, err := client.Anomalies.Get(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("unanswered:", report.Buckets.Unanswered.Count, report.Buckets.Unanswered.Items[0].WaitingHours)

	page, err := client.Messages.List(ctx, conv, nil)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	n, err := client.Attachments.Download(ctx, page.Items[0], &buf)
	if err != nil {
		panic(err)
	}
	fmt.Println("downloaded:", n, buf.String())
	// Output:
	// channels: 1 Support
	// unanswered: 1 5
	// downloaded: 9 png bytes
}

// ExampleWithInMemoryNetwork serves the fake over in-memory connections: the
// same API, reached only through the server's own clients. Inside a
// testing/synctest bubble this lets a 30-second Retry-After or the anomaly
// cache's expiry take no real time (see the option's documentation).
func ExampleWithInMemoryNetwork() {
	s := fake.NewServer(fake.WithInMemoryNetwork())
	defer s.Close()
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: "5511940000001"})

	channels, err := s.Client().Channels.List(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(channels[0].DisplayName, s.URL())
	// Output: Support http://127.0.0.1:0/v1
}

// ExampleServer_RequestsMatching asserts on what reached the server. A fault
// rule, the journal and its filters name a path in one form: relative to the
// base URL, whichever version prefix the client used. In a test,
// s.CheckRequests(t, "PATCH", "/chatapp/contacts/custom-fields", 1) and
// s.CheckLastBody(t, ...) report a mismatch on t.
func ExampleServer_RequestsMatching() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})

	s.AddFault(fake.Fault{Method: "PATCH", Path: "/chatapp/contacts/custom-fields", Status: 503, Times: 1})
	client := s.Client(convo.WithRetryWait(time.Millisecond, time.Millisecond))
	_, err := client.Contacts.UpdateCustomFields(context.Background(), &convo.UpdateCustomFieldsParams{
		PhoneNumber: "5511987654321", CustomFields: map[string]string{"plan": "gold"},
	})
	fmt.Println("error:", err)

	for _, r := range s.RequestsMatching("PATCH", "/chatapp/contacts/custom-fields") {
		fmt.Println(r.Method, r.Prefix, r.Path, r.Status)
	}
	last, _ := s.LastRequest("PATCH", "/chatapp/*/custom-fields")
	fmt.Println(string(last.Body))
	// Output:
	// error: <nil>
	// PATCH /v1 /chatapp/contacts/custom-fields 503
	// PATCH /v1 /chatapp/contacts/custom-fields 200
	// {"phone_number":"5511987654321","custom_fields":{"plan":"gold"}}
}

// ExampleServer_Reset goes back to the start data between cases, as
// POST /_fake/reset does for cmd/convofake; Clear would empty the server.
func ExampleServer_Reset() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	co := s.Company()
	start := len(co.Contacts())

	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp})
	co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511900001111"})
	fmt.Println(len(co.Contacts()) - start)

	s.Reset()
	fmt.Println(len(co.Contacts()) - start)
	s.Clear()
	fmt.Println(len(co.Contacts()))
	// Output:
	// 1
	// 0
	// 0
}
