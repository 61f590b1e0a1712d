package fake_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleNewManualClock() {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(start)
	s := fake.NewServer(fake.WithClock(clock))
	defer s.Close()

	// The clock stands still until the test moves it: no sleeps, no flakes.
	fmt.Println(clock.Manual(), s.Clock().Now().Equal(start))
	// Output:
	// true true
}

func ExampleNewRealClock() {
	// The default: the system clock. Advance and Set shift its reading.
	clock := fake.NewRealClock()
	before := time.Now()
	clock.Advance(48 * time.Hour)
	fmt.Println(clock.Manual(), clock.Now().Sub(before) >= 48*time.Hour)
	// Output:
	// false true
}

func ExampleWithClock() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	s := fake.NewServer(fake.WithClock(clock))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.Inbound(conv, "Hello?", now.Add(-5*time.Hour))
	client := s.Client()

	// Everything time-based (windows, anomaly ages, expiries, the Date
	// header) follows the server's clock.
	report, _ := client.Anomalies.Get(context.Background(), &convo.AnomaliesParams{ThresholdHours: 4})
	fmt.Println(report.Buckets.Unanswered.Items[0].WaitingHours)
	// Output:
	// 5
}

func ExampleClock_Now() {
	clock := fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	fmt.Println(clock.Now().Format(time.RFC3339))
	// Output:
	// 2026-11-22T10:00:00Z
}

func ExampleClock_Advance() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	s := fake.NewServer(fake.WithClock(clock), fake.WithAnomalyCacheTTL(0))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.Inbound(conv, "Hello?", now.Add(-5*time.Hour))
	client := s.Client()
	ctx := context.Background()

	report, _ := client.Anomalies.Get(ctx, nil)
	fmt.Println(report.Buckets.Unanswered.Count)

	// 20 hours later the last inbound is past chatapp's 24h ceiling: the
	// conversation leaves the bucket.
	clock.Advance(20 * time.Hour)
	report, _ = client.Anomalies.Get(ctx, nil)
	fmt.Println(report.Buckets.Unanswered.Count)
	// Output:
	// 1
	// 0
}

func ExampleClock_Set() {
	clock := fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	clock.Set(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(clock.Now().Format(time.DateOnly))
	// Output:
	// 2027-01-01
}

func ExampleClock_Manual() {
	fmt.Println(fake.NewManualClock(time.Time{}).Manual(), fake.NewRealClock().Manual())
	// Output:
	// true false
}

func ExampleServer_Clock() {
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))))
	defer s.Close()

	// Seed relative to the server's clock, whichever it is.
	s.Clock().Advance(time.Hour)
	fmt.Println(s.Clock().Now().Format(time.Kitchen))
	// Output:
	// 11:00AM
}

func ExampleWithAPIKey() {
	s := fake.NewServer(fake.WithAPIKey("test-key"))
	defer s.Close()

	_, err := s.Client().Channels.List(context.Background())
	fmt.Println(s.APIKey(), err)
	// Output:
	// test-key <nil>
}

func ExampleWithRateLimit() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	// Two requests, then one per second, on the server's clock.
	s := fake.NewServer(fake.WithClock(clock), fake.WithRateLimit(1, 2))
	defer s.Close()
	// No retries and no client-side pacing after a 429: the client waits in
	// real time, while this fake's clock moves only when told to.
	client := s.Client(convo.WithMaxRetries(0), convo.WithRateLimiter(convo.NoRateLimiter()))
	ctx := context.Background()

	for range 3 {
		_, err := client.Channels.List(ctx)
		fmt.Println(errors.Is(err, convo.ErrRateLimited))
	}
	clock.Advance(time.Second)
	_, err := client.Channels.List(ctx)
	fmt.Println(err)
	// Output:
	// false
	// false
	// true
	// <nil>
}

func ExampleWithFixedWindowLimit() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	// Two requests in each second of the server's clock.
	s := fake.NewServer(fake.WithClock(clock), fake.WithFixedWindowLimit(2, time.Second))
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0), convo.WithRateLimiter(convo.NoRateLimiter()))
	ctx := context.Background()

	for range 3 {
		_, err := client.Channels.List(ctx)
		var apiErr *convo.Error
		if errors.As(err, &apiErr) {
			fmt.Println("refused, retry after", apiErr.RetryAfter) // the window's end, rounded up
			continue
		}
		fmt.Println(err)
	}
	clock.Advance(time.Second) // the next window
	_, err := client.Channels.List(ctx)
	fmt.Println(err)
	// Output:
	// <nil>
	// <nil>
	// refused, retry after 1s
	// <nil>
}

func ExampleWithSlidingWindowLimit() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	// At most two requests in any trailing 10 s of the server's clock.
	s := fake.NewServer(fake.WithClock(clock), fake.WithSlidingWindowLimit(2, 10*time.Second))
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0), convo.WithRateLimiter(convo.NoRateLimiter()))
	ctx := context.Background()

	_, _ = client.Channels.List(ctx)
	clock.Advance(4 * time.Second)
	_, _ = client.Channels.List(ctx)
	_, err := client.Channels.List(ctx)
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println("refused, retry after", apiErr.RetryAfter) // when the first leaves the window
	}
	clock.Advance(6 * time.Second)
	_, err = client.Channels.List(ctx)
	fmt.Println(err)
	// Output:
	// refused, retry after 6s
	// <nil>
}

func ExampleWithAnomalyRateLimit() {
	// The anomaly report's own limit: here one call a day, as the service
	// intends it.
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))),
		fake.WithAnomalyRateLimit(1, 24*time.Hour))
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0))

	_, err := client.Anomalies.Get(context.Background(), nil)
	fmt.Println(err)
	_, err = client.Anomalies.Get(context.Background(), nil)
	var apiErr *convo.Error
	fmt.Println(errors.As(err, &apiErr), apiErr.Code, apiErr.RetryAfter > time.Hour)
	// Output:
	// <nil>
	// true RATE_LIMITED true
}

func ExampleWithAnomalyCacheTTL() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := fake.NewManualClock(now)
	s := fake.NewServer(fake.WithClock(clock), fake.WithAnomalyCacheTTL(5*time.Minute))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	client := s.Client()
	ctx := context.Background()

	first, _ := client.Anomalies.Get(ctx, nil)
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	co.Inbound(conv, "Hello?", now.Add(-5*time.Hour))

	// Within the TTL the cached report is served; after it, a fresh one.
	cached, _ := client.Anomalies.Get(ctx, nil)
	clock.Advance(5 * time.Minute)
	fresh, _ := client.Anomalies.Get(ctx, nil)
	fmt.Println(first.Buckets.Unanswered.Count, cached.Buckets.Unanswered.Count, fresh.Buckets.Unanswered.Count)
	// Output:
	// 0 0 1
}

func ExampleWithAttachmentTTL() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithAttachmentTTL(15*time.Minute))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Minute),
		Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})

	att, err := s.Client().Attachments.Get(context.Background(), s.MediaID(msg))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(att.ExpiresAt.Sub(now))
	// Output:
	// 15m0s
}

func ExampleWithJournalLimit() {
	s := fake.NewServer(fake.WithJournalLimit(2)) // keep the last two requests
	defer s.Close()
	client := s.Client()
	for range 5 {
		_, _ = client.Channels.List(context.Background())
	}
	fmt.Println(len(s.Requests()))
	// Output:
	// 2
}

func ExampleWithLogger() {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := fake.NewServer(fake.WithLogger(logger))
	defer s.Close()

	_, _ = s.Client().Channels.List(context.Background())
	// One debug record per request, never with the key.
	fmt.Println(strings.Contains(buf.String(), "level=DEBUG"), strings.Contains(buf.String(), s.APIKey()))
	// Output:
	// true false
}

func ExampleWithPublicURL() {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	// Behind a proxy or under a prefix, say where the server is reachable,
	// for the temporary attachment URLs it hands out.
	s := fake.NewServer(fake.WithClock(fake.NewManualClock(now)), fake.WithPublicURL("https://fake.example.com/convo"))
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msg := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: now.Add(-time.Minute),
		Media: &fake.Media{MimeType: "image/png", Data: []byte("png")}})

	att, err := s.Client().Attachments.Get(context.Background(), s.MediaID(msg))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(att.URL, "https://fake.example.com/convo/_files/"))
	// Output:
	// true
}

func ExampleWithReadableIDs() {
	// Ids read better in some tests; the service's are UUIDs, so this is an
	// explicit choice.
	s := fake.NewServer(fake.WithReadableIDs())
	defer s.Close()
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{ID: "support", Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	ana := co.AddContact(fake.Contact{ID: "ana", ChannelAccountID: line, PhoneNumber: "5511987654321"})
	conv := co.AddConversation(fake.Conversation{ID: "c-1", ContactID: ana})
	fmt.Println(line, ana, conv)
	// Output:
	// support ana c-1
}
