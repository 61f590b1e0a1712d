package convo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// traceLog records a Trace's events and the attempts middleware sees.
type traceLog struct {
	mu     sync.Mutex
	events []string
}

func (l *traceLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *traceLog) options() []convo.Option {
	type callKey struct{}
	return []convo.Option{
		convo.WithTrace(&convo.Trace{
			CallStart: func(ctx context.Context, call convo.CallInfo) context.Context {
				l.add("start %s %s", call.Method, call.Route)
				return context.WithValue(ctx, callKey{}, "span")
			},
			CallDone: func(_ context.Context, call convo.CallInfo, resp convo.Response, err error) {
				l.add("done %s attempts=%d status=%d err=%v", call.Route, resp.Attempts, resp.StatusCode, err != nil)
			},
			Wait: func(_ context.Context, call convo.CallInfo, reason convo.WaitReason, d time.Duration) {
				l.add("wait %s %v after attempt %d", reason, d, call.Attempt)
			},
		}),
		convo.WithMiddleware(func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
			call, _ := convo.CallFromContext(req.Context())
			l.add("attempt %d %s %s parent=%v", call.Attempt, call.Method, call.Route, req.Context().Value(callKey{}))
			return next(req)
		}),
	}
}

func TestTraceSeesTheCallItsAttemptsAndWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := fake.NewHandler(fake.WithRateLimit(0, 0), fake.WithSeed(fake.DemoSeed()))
		require.NoError(t, err)
		s.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Times: 2})
		var l traceLog
		c, err := convo.NewClient(append(l.options(), convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
			convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler()}}), convo.WithRateLimiter(convo.NoRateLimiter()))...)
		require.NoError(t, err)
		page, err := c.Conversations.List(t.Context(), &convo.ListConversationsParams{Limit: 1})
		require.NoError(t, err)
		l.events = nil

		_, err = c.Messages.List(t.Context(), page.Items[0].ID, nil)
		require.NoError(t, err)
		route := "/conversations/{conversation_id}/messages"
		assert.Equal(t, []string{
			"start GET " + route,
			"attempt 1 GET " + route + " parent=span",
			"wait retry 2s after attempt 1",
			"attempt 2 GET " + route + " parent=span",
			"wait retry 2s after attempt 2",
			"attempt 3 GET " + route + " parent=span",
			"done " + route + " attempts=3 status=200 err=false",
		}, l.events)
	})
}

func TestTraceRetryWaitAndAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := fake.NewHandler(fake.WithRateLimit(0, 0))
		require.NoError(t, err)
		s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Times: 1})
		var l traceLog
		c, err := convo.NewClient(append(l.options(), convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
			convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler()}}))...)
		require.NoError(t, err)
		_, err = c.Channels.List(t.Context())
		require.NoError(t, err)
		_, err = c.Attachments.Get(t.Context(), "no-such-media")
		require.ErrorIs(t, err, convo.ErrMediaNotFound)
		assert.Equal(t, []string{
			"start GET /channels",
			"attempt 1 GET /channels parent=span",
			"wait retry 1s after attempt 1",
			"attempt 2 GET /channels parent=span",
			"done /channels attempts=2 status=200 err=false",
			"start GET /attachments/{media_id}",
			"attempt 1 GET /attachments/{media_id} parent=span",
			"done /attachments/{media_id} attempts=1 status=404 err=true",
		}, l.events)
	})
}

// A route the service announces as retiring is logged once, and its
// headers are in the call's metadata.
func TestDeprecationAndSunset(t *testing.T) {
	var logs bytes.Buffer
	c := edgeClient(t, func(*http.Request) *http.Response {
		return &http.Response{StatusCode: http.StatusOK, ContentLength: -1, Header: http.Header{
			"Deprecation": {"@1767225600"}, "Sunset": {"Thu, 31 Dec 2026 23:59:59 GMT"}},
			Body: io.NopCloser(strings.NewReader(`{"success":true,"data":{"items":[]}}`))}
	}, convo.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	for range 3 {
		var meta convo.Response
		_, err := c.Channels.List(t.Context(), convo.CaptureResponse(&meta))
		require.NoError(t, err)
		assert.Equal(t, "@1767225600", meta.Deprecation)
		assert.Equal(t, time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), meta.Sunset)
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), logs.String())
	assert.Contains(t, logs.String(), `route="GET /channels"`)
}

// A Trace times each call and counts its waits, here into the log.
func ExampleWithTrace() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Status: http.StatusServiceUnavailable, RetryAfter: time.Millisecond, Times: 1})
	trace := &convo.Trace{
		CallDone: func(_ context.Context, call convo.CallInfo, resp convo.Response, err error) {
			fmt.Println(call.Method, call.Route, "status", resp.StatusCode, "attempts", resp.Attempts)
		},
		Wait: func(_ context.Context, call convo.CallInfo, reason convo.WaitReason, _ time.Duration) {
			fmt.Println("waiting:", reason)
		},
	}
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()), convo.WithTrace(trace))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Channels.List(context.Background()); err != nil {
		log.Fatal(err)
	}
	// Output:
	// waiting: retry
	// GET /channels status 200 attempts 2
}

// Middleware finds the call an attempt belongs to: its route names it
// without ids, so that it can name a span or a metric.
func ExampleCallFromContext() {
	s := fake.NewServer(fake.WithSeed(fake.DemoSeed()))
	defer s.Close()
	logRoute := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		call, _ := convo.CallFromContext(req.Context())
		fmt.Println("attempt", call.Attempt, call.Method, call.Route)
		return next(req)
	}
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()), convo.WithMiddleware(logRoute))
	if err != nil {
		log.Fatal(err)
	}
	page, err := client.Conversations.List(context.Background(), &convo.ListConversationsParams{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Messages.List(context.Background(), page.Items[0].ID, nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// attempt 1 GET /conversations
	// attempt 1 GET /conversations/{conversation_id}/messages
}

// Name the route of a Client.Do call, so that a span or a metric is named
// by the template rather than by each id.
func ExampleWithRoute() {
	s := fake.NewServer()
	defer s.Close()
	logRoute := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		call, _ := convo.CallFromContext(req.Context())
		fmt.Println(call.Method, call.Route)
		return next(req)
	}
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()), convo.WithMiddleware(logRoute))
	if err != nil {
		log.Fatal(err)
	}
	err = client.Do(context.Background(), http.MethodGet, "/chatapp/templates/welcome-1", nil, nil, nil,
		convo.WithRoute("/chatapp/templates/{template_id}"))
	var apiErr *convo.Error
	fmt.Println(errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound) // the fake has no templates
	// Output:
	// GET /chatapp/templates/{template_id}
	// true
}

// Each wait of a call is one Wait event, told when the wait is over with the
// time it took: the events of a call add up to the time it spent not
// sending (within 5 %), whether it waited out a Retry-After or its turn at
// the client's rate limiter, and there are never more events than waits.
func TestTraceWaitsAreTheActualWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := fake.NewHandler(fake.WithFixedWindowLimit(10, time.Second))
		require.NoError(t, err)
		const latency = 2500 * time.Microsecond // each way
		type call struct {
			waits    []time.Duration
			attempts int
			took     time.Duration
		}
		var mu sync.Mutex
		calls := map[int]*call{}
		tr := &convo.Trace{
			Wait: func(ctx context.Context, _ convo.CallInfo, reason convo.WaitReason, d time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				c := calls[ctx.Value(callKey{}).(int)]
				c.waits = append(c.waits, d)
			},
		}
		c, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"), convo.WithTrace(tr),
			convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler(), latency: latency}}))
		require.NoError(t, err)
		var wg sync.WaitGroup
		for i := range 40 { // four times what the window admits: 429s, Retry-After: 1, then paced turns
			mu.Lock()
			calls[i] = &call{}
			mu.Unlock()
			wg.Go(func() {
				var meta convo.Response
				start := time.Now()
				_, err := c.Channels.List(context.WithValue(t.Context(), callKey{}, i), convo.CaptureResponse(&meta), convo.WithMaxRetries(10))
				assert.NoError(t, err)
				mu.Lock()
				calls[i].took, calls[i].attempts = time.Since(start), meta.Attempts
				mu.Unlock()
			})
		}
		wg.Wait()
		events, waited := 0, 0
		for i, c := range calls {
			var sum time.Duration
			for _, d := range c.waits {
				sum += d
			}
			events += len(c.waits)
			notSending := c.took - time.Duration(c.attempts)*2*latency
			if notSending > 0 {
				waited++
			}
			assert.InDelta(t, notSending.Seconds(), sum.Seconds(), 0.05*notSending.Seconds()+1e-9, "call %d: waits %v, took %v in %d attempts", i, c.waits, c.took, c.attempts)
			assert.LessOrEqual(t, len(c.waits), 2*c.attempts, "call %d: at most a retry wait and a limiter wait per attempt", i)
		}
		assert.Greater(t, waited, 20, "most calls waited")
		t.Logf("%d calls, %d waited, %d wait events", len(calls), waited, events)
	})
}

type callKey struct{}
