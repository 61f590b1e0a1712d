package convo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleWithBaseURL() {
	// The base URL is the service's {base_url}: it must end with /v1.
	for _, u := range []string{"https://api.example.com/v1", "https://api.example.com"} {
		_, err := convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL(u))
		fmt.Println(u, err == nil)
	}
	// Output:
	// https://api.example.com/v1 true
	// https://api.example.com false
}

func ExampleWithAuthScheme() {
	s := fake.NewServer()
	defer s.Close()

	// Bearer is the default; the service accepts all three forms alike.
	client := s.Client(convo.WithAuthScheme(convo.AuthXAPIKey))
	if _, err := client.Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	sent := s.Requests()[0].Header // the journal redacts the key
	fmt.Println(convo.AuthXAPIKey, sent.Get("x-api-key"), sent.Get("Authorization") == "")
	// Output:
	// x-api-key [REDACTED] true
}

func ExampleWithHTTPClient() {
	s := fake.NewServer()
	defer s.Close()

	// Your transport and timeout are used; the http.Client is copied, never
	// modified, and redirects to another host are never followed.
	hc := &http.Client{Timeout: 10 * time.Second}
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()), convo.WithHTTPClient(hc))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Channels.List(context.Background())
	fmt.Println(err, hc.CheckRedirect == nil)
	// Output:
	// <nil> true
}

func ExampleWithInsecureHTTP() {
	// Plain http:// is refused for a host that is not loopback: the key
	// would travel in clear text. WithInsecureHTTP allows it, e.g. behind a
	// TLS-terminating sidecar on a private network.
	base := "http://convo-gateway.internal/v1"
	_, err := convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL(base))
	fmt.Println(err != nil)
	_, err = convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL(base), convo.WithInsecureHTTP())
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

func ExampleWithLogger() {
	s := fake.NewServer()
	defer s.Close()

	// One debug record per attempt: method, path, status, attempt, duration.
	// Never the key, never query values. Here, without time and duration so
	// that the output is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	client := s.Client(convo.WithLogger(logger))
	if _, err := client.Channels.List(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// level=DEBUG msg="convo: attempt" method=GET path=/v1/channels attempt=1 status=200
}

func ExampleWithMaxResponseBytes() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()

	// A body larger than the cap fails instead of filling memory.
	client := s.Client(convo.WithMaxResponseBytes(64))
	_, err := client.Channels.List(context.Background())
	fmt.Println(errors.Is(err, convo.ErrResponseTooLarge))
	// Output:
	// true
}

func ExampleWithRetryWait() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: 502, Times: 2})

	// Jittered exponential backoff between min and max (defaults 500ms and
	// 8s); a GET is retried after 408, 502, 503, 504 and transport errors.
	client := s.Client(convo.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	_, err := client.Channels.List(context.Background())
	fmt.Println(err, len(s.Requests()), "attempts")
	// Output:
	// <nil> 3 attempts
}

func ExampleWithUserAgent() {
	s := fake.NewServer()
	defer s.Close()

	// Your product's name goes after the SDK's own: convo-go/<version> go/<version>.
	client := s.Client(convo.WithUserAgent("my-app/1.2"))
	if _, err := client.Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	ua := s.Requests()[0].Header.Get("User-Agent")
	fmt.Println(strings.HasPrefix(ua, "convo-go/"+convo.Version+" "), strings.HasSuffix(ua, " my-app/1.2"))
	// Output:
	// true true
}

func ExampleClient_BaseURL() {
	client, err := convo.NewClient(convo.WithAPIKey("my-key"), convo.WithBaseURL("https://api.example.com/v1/"))
	if err != nil {
		log.Fatal(err)
	}
	// The base URL as the client uses it: without a trailing slash.
	fmt.Println(client.BaseURL())
	// Output:
	// https://api.example.com/v1
}

func ExampleClient_CloseIdleConnections() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()
	if _, err := client.Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	// When you are done with a client (e.g. at shutdown), release its
	// keep-alive connections; the client stays usable.
	client.CloseIdleConnections()
	_, err := client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleBool() {
	// Bool gives the *bool that optional boolean filters take: nil means
	// "either", Bool(false) means "false".
	all := &convo.ListConversationsParams{}
	unassigned := &convo.ListConversationsParams{Assigned: convo.Bool(false)}
	fmt.Println(all.Assigned == nil, *unassigned.Assigned)
	// Output:
	// true false
}

func ExampleWithRateLimiter() {
	s := fake.NewServer()
	defer s.Close()
	// The default, AdaptiveRate, learns the service's rate from its 429s.
	// A job that knows its contract's limit can pace at it instead.
	client := s.Client(convo.WithRateLimiter(convo.FixedRate(50)))
	_, err := client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// <nil>
}

func ExampleWithRateLimiter_shared() {
	s := fake.NewServer(fake.WithSlidingWindowLimit(10, time.Second))
	defer s.Close()
	// Two clients of one process — one per tenant, one per worker pool —
	// given one limiter are paced together, as one client: here at the
	// key's 10 a second, so that neither meets the limit.
	shared := convo.FixedRate(10)
	tenantA := s.Client(convo.WithRateLimiter(shared))
	tenantB := s.Client(convo.WithRateLimiter(shared))
	for range 5 {
		for _, c := range []*convo.Client{tenantA, tenantB} {
			if _, err := c.Channels.List(context.Background()); err != nil {
				fmt.Println(err)
			}
		}
	}
	fmt.Println("refused:", len(s.RequestsMatching("GET", "/channels"))-10)
	// Output:
	// refused: 0
}

// Quota is a RateLimiter of one's own: at most n attempts in all, counted
// when the service answers them (a budget shared with another system,
// say). The client keeps its rules around it: it waits for the turn Take
// gives, holds a call that would wait too long, and tells Observe how each
// attempt ended.
type Quota struct {
	mu       sync.Mutex
	left     int
	answered map[convo.OutcomeKind]int
}

func (q *Quota) Take(context.Context, convo.Turn) (time.Duration, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.left == 0 {
		return time.Hour, nil // more than the client will wait: the call is held
	}
	q.left--
	return 0, nil
}

func (q *Quota) Observe(_ convo.Turn, o convo.Outcome) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.answered[o.Kind]++
}

func ExampleRateLimiter() {
	s := fake.NewServer()
	defer s.Close()
	q := &Quota{left: 2, answered: map[convo.OutcomeKind]int{}}
	client := s.Client(convo.WithRateLimiter(q))
	for range 3 {
		_, err := client.Channels.List(context.Background())
		var apiErr *convo.Error
		if errors.As(err, &apiErr) && apiErr.Held {
			fmt.Println("held, not sent; retry after", apiErr.RetryAfter)
		}
	}
	fmt.Println("accepted:", q.answered[convo.OutcomeAccepted])
	// Output:
	// held, not sent; retry after 1h0m0s
	// accepted: 2
}

func ExampleOutcomeKind_String() {
	fmt.Println(convo.OutcomeAccepted, convo.OutcomeRefused, convo.OutcomeFailed)
	// Output:
	// accepted refused failed
}

func ExampleAdaptiveRate() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()), fake.WithFixedWindowLimit(5, time.Second))
	defer s.Close()
	client := s.Client(convo.WithRateLimiter(convo.AdaptiveRate())) // the default
	created := 0
	for i := range 8 { // more than the window admits: the client waits, nothing fails
		_, err := client.Contacts.Create(context.Background(), &convo.CreateContactParams{
			PhoneNumberID: "5511940000001", PhoneNumber: fmt.Sprintf("5511977000%03d", i), Name: "Bulk",
		})
		if err == nil {
			created++
		}
	}
	fmt.Println("created:", created)
	// Output:
	// created: 8
}

func ExampleFixedRate() {
	s := fake.NewServer(fake.WithSlidingWindowLimit(20, time.Second))
	defer s.Close()
	// Paced at the limit the contract states: no request is refused.
	client := s.Client(convo.WithRateLimiter(convo.FixedRate(20)))
	for range 3 {
		if _, err := client.Channels.List(context.Background()); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("refused:", len(s.RequestsMatching("GET", "/channels"))-3)
	// Output:
	// refused: 0
}

func ExampleNoRateLimiter() {
	s := fake.NewServer()
	defer s.Close()
	// Pacing is the caller's own business here (a limiter in WithMiddleware,
	// say); each call still waits out the Retry-After of its own 429s.
	client := s.Client(convo.WithRateLimiter(convo.NoRateLimiter()))
	_, err := client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// <nil>
}
