package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

func ExampleNew() {
	// In a test, New takes the test's t and closes the server when the test
	// ends:
	//
	//	func TestChannels(t *testing.T) {
	//		s := fake.New(t)
	//		...
	//	}
	//
	// An example has no t, so testing.Benchmark lends one here.
	var names []string
	testing.Benchmark(func(b *testing.B) {
		s := fake.New(b)
		s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Support", ProviderIdentifier: "5511940000001"})
		accounts, err := s.Client().Channels.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		names = names[:0]
		for _, a := range accounts {
			names = append(names, a.DisplayName)
		}
	})
	fmt.Println(names)
	// Output:
	// [Support]
}

func ExampleNewServer() {
	// Outside tests (a demo, a tool), start the server yourself and close it.
	s := fake.NewServer(fake.WithAPIKey("demo-key"))
	defer s.Close()

	fmt.Println(strings.HasPrefix(s.URL(), "http://127.0.0.1:"), strings.HasSuffix(s.URL(), "/v1"), s.APIKey())
	// Output:
	// true true demo-key
}

func ExampleNewHandler() {
	// Mount the fake in a server of your own; here an httptest.Server.
	s, err := fake.NewHandler()
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(ts.URL+"/v1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	accounts, err := client.Channels.List(context.Background())
	fmt.Println(len(accounts), err, s.URL() == "")
	// Output:
	// 0 <nil> true
}

func ExampleServer_Handler() {
	s, err := fake.NewHandler()
	if err != nil {
		fmt.Println(err)
		return
	}
	// The handler serves /v1/... and /api/v1/...; call it directly with
	// httptest, no listener needed.
	req := httptest.NewRequest("GET", "/api/v1/channels", nil)
	req.Header.Set("Authorization", "Bearer "+s.APIKey())
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String())[:15])
	// Output:
	// 200 {"success":true
}

func ExampleServer_URL() {
	s := fake.NewServer()
	defer s.Close()

	// URL is the base URL to give any HTTP client: it ends with /v1.
	resp, err := http.Get(s.URL() + "/channels") // no key
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(strings.HasSuffix(s.URL(), "/v1"), resp.StatusCode)
	// Output:
	// true 401
}

func ExampleServer_APIKey() {
	s := fake.NewServer()
	defer s.Close()

	req, err := http.NewRequest("GET", s.URL()+"/channels", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Header.Set("x-api-key", s.APIKey()) // the default company's key
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(s.APIKey() == fake.DefaultAPIKey, resp.StatusCode)
	// Output:
	// true 200
}

func ExampleServer_HTTPClient() {
	s := fake.NewServer()
	defer s.Close()

	resp, err := s.HTTPClient().Get(s.URL() + "/channels")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"UNAUTHORIZED"`))
	// Output:
	// 401 true
}

func ExampleServer_Client() {
	s := fake.NewServer()
	defer s.Close()
	other := s.AddCompany("other-key")
	other.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, ProviderIdentifier: "other_bot"})

	// A *convo.Client pointed at the fake with the default company's key;
	// options come after, so they can change the key or the retries.
	mine := s.Client(convo.WithMaxRetries(0))
	theirs := s.Client(convo.WithAPIKey(other.APIKey()))
	a, _ := mine.Channels.List(context.Background())
	b, _ := theirs.Channels.List(context.Background())
	fmt.Println(len(a), len(b))
	// Output:
	// 0 1
}

func ExampleServer_Close() {
	s := fake.NewServer()
	client := s.Client(convo.WithMaxRetries(0))
	s.Close() // safe to call more than once
	s.Close()

	_, err := client.Channels.List(context.Background())
	var te *convo.TransportError
	fmt.Println(errors.As(err, &te))
	// Output:
	// true
}

func ExampleServer_AddFault() {
	s := fake.NewServer()
	defer s.Close()
	// No retries, and no client-side pacing after a 429 (the client would
	// otherwise wait out the 30 s the fault asks for before its next call).
	client := s.Client(convo.WithMaxRetries(0), convo.WithRateLimiter(convo.NoRateLimiter()))
	ctx := context.Background()

	// The next request on /channels answers 429 with Retry-After: 30; the
	// path is relative to the base URL, with path.Match wildcards.
	s.AddFault(fake.Fault{Method: "GET", Path: "/channels", Status: 429, RetryAfter: 30 * time.Second, Times: 1})
	_, err := client.Channels.List(ctx)
	var apiErr *convo.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.RetryAfter)
	}
	_, err = client.Channels.List(ctx) // Times: 1 is used up
	fmt.Println(err)

	// A send-side code the fake never produces by itself.
	s.AddFault(fake.Fault{Method: "POST", Path: "/chatapp/*", Status: 422, Code: "CHANNEL_MISMATCH", Message: "Wrong channel."})
	err = client.Do(ctx, "POST", "/chatapp/messages", nil, map[string]string{"text": "hi"}, nil)
	fmt.Println(errors.Is(err, convo.ErrChannelMismatch))
	// Output:
	// RATE_LIMITED 30s
	// <nil>
	// true
}

func ExampleServer_Faults() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: 503, Times: 2})
	s.AddFault(fake.Fault{Path: "/_files/*", Drop: true})

	for _, r := range s.Faults() {
		fmt.Println(r.ID, r.Fault.Path, r.Fault.Status, r.Fault.Drop, r.Remaining)
	}
	// Output:
	// 1 /conversations/*/messages 503 false 2
	// 2 /_files/* 0 true 0
}

func ExampleServer_RemoveFault() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0))

	id := s.AddFault(fake.Fault{Path: "/channels", Status: 500})
	_, err := client.Channels.List(context.Background())
	fmt.Println(err != nil)

	fmt.Println(s.RemoveFault(id), s.RemoveFault(id)) // the second time it is gone
	_, err = client.Channels.List(context.Background())
	fmt.Println(err)
	// Output:
	// true
	// true false
	// <nil>
}

func ExampleServer_ClearFaults() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: 500})
	s.AddFault(fake.Fault{Path: "/conversations", Status: 503})

	s.ClearFaults()
	_, err := s.Client().Channels.List(context.Background())
	fmt.Println(len(s.Faults()), err)
	// Output:
	// 0 <nil>
}

func ExampleServer_Requests() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client(convo.WithMaxRetries(0))
	ctx := context.Background()
	_, _ = client.Channels.List(ctx)
	_, _ = client.Conversations.List(ctx, &convo.ListConversationsParams{Limit: 5})

	// Every request, oldest first, with the key redacted: assert on what your
	// code sent.
	for _, r := range s.Requests() {
		fmt.Println(r.Method, r.Status, r.Query.Get("limit"), r.Header.Get("Authorization"))
	}
	// Output:
	// GET 200  Bearer [REDACTED]
	// GET 200 5 Bearer [REDACTED]
}

func ExampleServer_ClearRequests() {
	s := fake.NewServer()
	defer s.Close()
	client := s.Client()
	_, _ = client.Channels.List(context.Background())

	// Forget the set-up's requests, then count only those of the code under test.
	s.ClearRequests()
	_, _ = client.Channels.List(context.Background())
	fmt.Println(len(s.Requests()))
	// Output:
	// 1
}

func ExampleServer_Clear() {
	s := fake.NewServer()
	defer s.Close()
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	s.AddCompany("other-key")
	key := s.APIKey()

	// Clear empties the server; the default company keeps its id and key.
	s.Clear()
	accounts, err := s.Client().Channels.List(context.Background())
	fmt.Println(len(accounts), err, len(s.Companies()), s.APIKey() == key)
	// Output:
	// 0 <nil> 1 true
}

// A handler in front of the fake refuses a request in the API's own error
// envelope.
func ExampleServer_WriteError() {
	s := fake.NewServer()
	defer s.Close()
	guard := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Tenant") == "" {
			s.WriteError(w, r, http.StatusForbidden, "TENANT_REQUIRED", "Send X-Tenant.")
			return
		}
		s.Handler().ServeHTTP(w, r)
	})
	rec := httptest.NewRecorder()
	guard.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/channels", nil))
	var env struct {
		StatusCode int    `json:"statusCode"`
		Path       string `json:"path"`
		Message    struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		} `json:"message"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &env)
	fmt.Println(env.StatusCode, env.Path, env.Message.Error, env.Message.Message)
	// Output: 403 /api/v1/channels TENANT_REQUIRED Send X-Tenant.
}
