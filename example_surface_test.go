package convo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// These examples run against package fake, the whole service in-process,
// with its clock pinned so that the output does not depend on today.

func ExampleWithHeader() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()

	// An extra header for one call, such as a correlation id of your own.
	_, err := client.Channels.List(context.Background(), convo.WithHeader("X-Correlation-Id", "job-42"))
	fmt.Println(err)

	// The key's headers cannot be set this way: the call fails before any request.
	_, err = client.Channels.List(context.Background(), convo.WithHeader("Authorization", "Bearer other"))
	fmt.Println(err)
	// Output:
	// <nil>
	// convo: WithHeader: Authorization carries the API key and cannot be set by a header option; use WithAPIKey
}

func ExampleWithAPIKey_call() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()
	other := s.AddCompany("sk_other_company")

	// One call on behalf of another company, with its key.
	accounts, err := client.Channels.List(context.Background(), convo.WithAPIKey(other.APIKey()))
	fmt.Println(len(accounts), err)
	// Output:
	// 0 <nil>
}

func ExampleWithMaxRetries_call() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()
	s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, Times: 1})

	// The client retries a 503 three times by default; this call does not.
	var meta convo.Response
	_, err := client.Channels.List(context.Background(), convo.WithMaxRetries(0), convo.CaptureResponse(&meta))
	fmt.Println(errors.Is(err, convo.ErrRateLimited), meta.StatusCode, meta.Attempts)
	// Output:
	// false 503 1
}

func ExampleWithMaxRetryWait_call() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client(convo.WithRateLimitGate(false))
	s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusTooManyRequests, RetryAfter: 20 * time.Second, Times: 1})

	// This call accepts to wait 5 s at most: the 429 asking for 20 s comes
	// back at once, with the wait the service asked for.
	_, err := client.Channels.List(context.Background(), convo.WithMaxRetryWait(5*time.Second))
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.RetryAfter)
	}
	// Output:
	// 429 20s
}

func ExampleWithTimeout() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()
	s.AddFault(fake.Fault{Path: "/channels", Latency: time.Minute})

	// The whole call, retries included, is bounded by 50 ms.
	_, err := client.Channels.List(context.Background(), convo.WithTimeout(50*time.Millisecond))
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}

func ExampleCaptureResponse() {
	// A fake with one chat line, one contact and five inbound messages, an
	// hour apart.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	for i := range 5 {
		co.Inbound(conv, fmt.Sprintf("message %d", i+1), now.Add(time.Duration(i-5)*time.Hour))
	}
	defer s.Close()
	client := s.Client()

	// Metadata of the call's last answer, on success as on error.
	var meta convo.Response
	page, err := client.Messages.List(context.Background(), conv, nil, convo.CaptureResponse(&meta))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Items), meta.StatusCode, meta.Attempts, meta.Header.Get("Content-Type"))
	fmt.Println("service time:", meta.Timestamp.Format(time.RFC3339))
	// Output:
	// 5 200 1 application/json; charset=utf-8
	// service time: 2026-11-22T10:00:00Z
}

func ExampleMessagesService_Pages() {
	// A fake with one chat line, one contact and five inbound messages, an
	// hour apart.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	for i := range 5 {
		co.Inbound(conv, fmt.Sprintf("message %d", i+1), now.Add(time.Duration(i-5)*time.Hour))
	}
	defer s.Close()
	client := s.Client()
	ctx := context.Background()

	// Read two pages, keeping the cursor of the last page finished...
	params := &convo.ListMessagesParams{Limit: 2}
	var saved string
	n := 0
	for page, err := range client.Messages.Pages(ctx, conv, params) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, m := range page.Items {
			fmt.Println(m.TextOrEmpty())
		}
		saved = page.NextCursor
		if n++; n == 2 {
			break // say the job stopped here
		}
	}
	// ...and resume later from it: the cursor is one parameter.
	fmt.Println("resuming")
	resume := &convo.ListMessagesParams{Limit: 2, Cursor: saved}
	for m, err := range client.Messages.All(ctx, conv, resume) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.TextOrEmpty())
	}
	// Output:
	// message 5
	// message 4
	// message 3
	// message 2
	// resuming
	// message 1
}

func ExampleConversationsService_Pages() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()

	for page, err := range client.Conversations.Pages(context.Background(), &convo.ListConversationsParams{Limit: 10}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(len(page.Items), "conversation(s), more:", page.HasMore())
	}
	// Output:
	// 1 conversation(s), more: false
}

func ExampleWithReadAhead() {
	// A fake with one chat line, one contact and five inbound messages, an
	// hour apart.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	for i := range 5 {
		co.Inbound(conv, fmt.Sprintf("message %d", i+1), now.Add(time.Duration(i-5)*time.Hour))
	}
	defer s.Close()
	client := s.Client()

	// The next page is fetched while this loop works on the current one
	// (one page ahead at most; breaking out cancels the fetch).
	count := 0
	for page, err := range client.Messages.Pages(context.Background(), conv, &convo.ListMessagesParams{Limit: 2}, convo.WithReadAhead()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		count += len(page.Items) // write the page somewhere slow here
	}
	fmt.Println(count)
	// Output:
	// 5
}

func ExampleContactsService_Ensure() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()
	ctx := context.Background()

	params := &convo.CreateContactParams{PhoneNumberID: "5511900000000", PhoneNumber: "5511912345678", Name: "Bia"}
	first, created, err := client.Contacts.Ensure(ctx, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first.Name, created)

	// Again: the same contact, found rather than created.
	again, created, err := client.Contacts.Ensure(ctx, params)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(again.ID == first.ID, created)
	// Output:
	// Bia true
	// true false
}

func ExampleWithRateLimitGate() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	// On by default: after a 429 with Retry-After, every call of this client
	// waits for the end of that wait before sending. Turn it off to let each
	// call meet its own 429s.
	client := s.Client(convo.WithRateLimitGate(false))
	_, err := client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleInvalidTextError() {
	// A fake with one chat line and one contact, Ana.
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	co.Inbound(conv, "Hello!", now.Add(-time.Hour))
	defer s.Close()
	client := s.Client()

	// Invalid UTF-8 would reach the service as U+FFFD: refused before any request.
	_, err := client.Contacts.Create(context.Background(), &convo.CreateContactParams{
		PhoneNumberID: "5511900000000", PhoneNumber: "5511912345678", Name: "Bi\xe1",
	})
	var ite *convo.InvalidTextError
	fmt.Println(errors.Is(err, convo.ErrInvalidText), errors.As(err, &ite) && ite.Where == "body field name")
	// Output:
	// true true
}

func ExampleWithMiddleware() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, Times: 1})

	// A middleware sees every attempt: here it counts them and tags each
	// request with a header of its own.
	attempts := 0
	count := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		attempts++
		req.Header.Set("X-Attempt", fmt.Sprint(attempts))
		resp, err := next(req)
		if err == nil {
			fmt.Println("attempt", attempts, "answered", resp.StatusCode)
		}
		return resp, err
	}
	client := s.Client(convo.WithMiddleware(count), convo.WithRetryWait(0, 0))
	_, err := client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// attempt 1 answered 503
	// attempt 2 answered 200
	// <nil>
}

func ExampleContextWithMiddleware() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()
	client := s.Client()

	// A handler's tracing wrapper does not hold the Client: it puts its
	// middleware in the context, and every call made with it runs it.
	trace := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		fmt.Println("traced", req.Method, req.URL.Path)
		return next(req)
	}
	ctx := convo.ContextWithMiddleware(context.Background(), trace)
	_, err := client.Channels.List(ctx)
	fmt.Println(err)
	// Output:
	// traced GET /v1/channels
	// <nil>
}
