package convo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// Examples of the options of options.go, which apply to NewClient and to a
// call alike (WithAPIKey, WithMaxRetries, …) or to a call only.

func ExampleWithAPIKey() {
	s := fake.NewServer()
	defer s.Close()

	// Without WithAPIKey, NewClient reads CONVO_API_KEY; with neither, it
	// fails, and no request ever goes out without a key.
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleWithMaxRetries() {
	s := fake.NewServer()
	defer s.Close()
	// The service fails once with a 503, then recovers.
	s.AddFault(fake.Fault{Path: "/channels", Status: 503, Times: 1})

	// WithMaxRetries(0) disables retries: the first failure is returned.
	noRetry := s.Client(convo.WithMaxRetries(0))
	_, err := noRetry.Channels.List(context.Background())
	var apiErr *convo.Error
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)

	s.AddFault(fake.Fault{Path: "/channels", Status: 503, Times: 1})
	retrying := s.Client(convo.WithMaxRetries(2), convo.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	_, err = retrying.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// true 503
	// <nil>
}

func ExampleWithMaxRetryWait() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: 429, RetryAfter: time.Hour, Times: 1})

	// A 429 asking for longer than the cap returns at once, with the wait the
	// server asked for, so that you can schedule the retry yourself.
	client := s.Client(convo.WithMaxRetryWait(10 * time.Second))
	_, err := client.Channels.List(context.Background())
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.RetryAfter)
	}
	// Output:
	// RATE_LIMITED 1h0m0s
}

func ExampleWithHeader() {
	s := fake.NewServer()
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
	s := fake.NewServer()
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
	s := fake.NewServer()
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
	s := fake.NewServer()
	defer s.Close()
	client := s.Client(convo.WithRateLimiter(convo.NoRateLimiter()))
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
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
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
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client := s.Client()

	// Metadata of the call's last answer, on success as on error.
	var meta convo.Response
	accounts, err := client.Channels.List(context.Background(), convo.CaptureResponse(&meta))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(accounts), meta.StatusCode, meta.Attempts, meta.Header.Get("Content-Type"))
	fmt.Println("service time:", meta.Timestamp.Format(time.RFC3339))
	// Output:
	// 3 200 1 application/json; charset=utf-8
	// service time: 2026-11-22T10:00:00Z
}

func ExampleWithReadAhead() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	client, ctx := s.Client(), context.Background()
	convs, err := client.Conversations.List(ctx, &convo.ListConversationsParams{ChannelIdentifier: "5511987654321", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}

	// The next page is fetched while this loop works on the current one
	// (one page ahead at most; breaking out cancels the fetch).
	count := 0
	params := &convo.ListMessagesParams{Limit: 2}
	for page, err := range client.Messages.Pages(ctx, convs.Items[0].ID, params, convo.WithReadAhead()) {
		if err != nil {
			log.Fatal(err)
		}
		count += len(page.Items) // write the page somewhere slow here
	}
	fmt.Println(count, "messages")
	// Output:
	// 7 messages
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
