package fake_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleServer_CheckRequests() {
	// In a test, pass the test's t: a mismatch fails the test and lists the
	// journal. An example has no t, so testing.Benchmark lends one here.
	var passed bool
	testing.Benchmark(func(b *testing.B) {
		s := fake.New(b)
		s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
		_, err := s.Client().Contacts.Create(context.Background(), &convo.CreateContactParams{
			PhoneNumberID: "109876543210", PhoneNumber: "5511987654321", Name: "Ana",
		})
		if err != nil {
			b.Fatal(err)
		}
		// One POST reached /chatapp/contacts: the SDK never repeats a POST.
		passed = s.CheckRequests(b, "POST", "/chatapp/contacts", 1)
	})
	fmt.Println(passed)
	// Output:
	// true
}

func ExampleServer_CheckLastBody() {
	// In a test, pass the test's t; testing.Benchmark lends one here.
	var passed bool
	testing.Benchmark(func(b *testing.B) {
		s := fake.New(b)
		line := s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
		s.Company().AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})
		_, err := s.Client().Contacts.UpdateCustomFields(context.Background(), &convo.UpdateCustomFieldsParams{
			PhoneNumber: "5511987654321", CustomFields: map[string]string{"plan": "gold"},
		})
		if err != nil {
			b.Fatal(err)
		}
		// Compared as JSON: spacing and key order do not matter.
		passed = s.CheckLastBody(b, "PATCH", "/chatapp/contacts/custom-fields",
			`{"custom_fields": {"plan": "gold"}, "phone_number": "5511987654321"}`)
	})
	fmt.Println(passed)
	// Output:
	// true
}

func ExampleServer_CountRequests() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()
	ctx := context.Background()
	_, _ = client.Channels.List(ctx)
	_, _ = client.Conversations.List(ctx, nil)
	_, _ = client.Messages.List(ctx, "c-1", nil)
	_, _ = client.Messages.List(ctx, "c-2", nil)

	// Method "" matches every method; the pattern takes path.Match wildcards
	// and is relative to the base URL, as fault rules are.
	fmt.Println(s.CountRequests("GET", "/conversations/*/messages"), s.CountRequests("", "/channels"))
	// Output:
	// 2 1
}

func ExampleServer_LastRequest() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()
	ctx := context.Background()
	_, _ = client.Conversations.List(ctx, &convo.ListConversationsParams{Limit: 10})
	_, _ = client.Conversations.List(ctx, &convo.ListConversationsParams{Limit: 25, Channel: convo.ChannelBotapp})

	r, ok := s.LastRequest("GET", "/conversations")
	fmt.Println(ok, r.Prefix, r.Path, r.Query.Get("limit"), r.Query.Get("channel"))
	_, ok = s.LastRequest("DELETE", "/chatapp/contacts/tags")
	fmt.Println(ok)
	// Output:
	// true /v1 /conversations 25 botapp
	// false
}

func ExampleWithJournalBytes() {
	// A small memory budget for the journal, e.g. for a long load test: the
	// oldest requests go first, and long bodies are cut with a marker.
	s := fake.NewServer(fake.WithJournalBytes(4 << 10))
	defer s.Close()
	line := s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "109876543210"})
	s.Company().AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})

	_, err := s.Client().Contacts.UpdateCustomFields(context.Background(), &convo.UpdateCustomFieldsParams{
		PhoneNumber: "5511987654321", CustomFields: map[string]string{"notes": strings.Repeat("x", 20<<10)},
	})
	r, _ := s.LastRequest("PATCH", "/chatapp/contacts/custom-fields")
	fmt.Println(err, len(r.Body) < r.BodySize, strings.Contains(string(r.Body), "[fake: body truncated"))
	// Output:
	// <nil> true true
}

func ExampleServer_RedactKeys() {
	s := fake.NewServer(fake.WithAPIKey("secret-key"))
	defer s.Close()
	// For the log lines of a server that wraps the fake: a key a client
	// sent as an id is not written out.
	fmt.Println(s.RedactKeys("/v1/conversations/secret-key/messages"))
	// Output:
	// /v1/conversations/[REDACTED]/messages
}

func ExampleRequestsSentTooEarly() {
	clock := fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	s := fake.NewServer(fake.WithClock(clock))
	defer s.Close()
	// A client that does not wait: no retries, no pacing of its own.
	client := s.Client(convo.WithMaxRetries(0), convo.WithRateLimiter(convo.NoRateLimiter()))
	s.AddFault(fake.Fault{Path: "/channels", Status: 429, RetryAfter: 2 * time.Second, Times: 1})

	_, _ = client.Channels.List(context.Background()) // 429, Retry-After: 2
	_, _ = client.Channels.List(context.Background()) // sent again at once
	fmt.Println("too early:", len(fake.RequestsSentTooEarly(s.Requests())))

	clock.Advance(2 * time.Second)
	_, _ = client.Channels.List(context.Background()) // after the wait
	fmt.Println("too early:", len(fake.RequestsSentTooEarly(s.Requests())))
	// Output:
	// too early: 1
	// too early: 1
}
