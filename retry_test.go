package convo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connRefused stands for any transport failure.
var connRefused = httpmock.NewErrorResponder(errors.New("dial tcp 10.9.9.9:443: connect: connection refused"))

func TestRetryPolicy(t *testing.T) {
	ok := responder(200, okJSON(`{"message":"ok"}`))
	st := func(code int) httpmock.Responder {
		return responder(code, errJSON(code, "SOME_CODE", http.StatusText(code)))
	}
	rl := responder(429, errJSON(429, "RATE_LIMITED", "Too many requests"), "Retry-After", "1")
	tests := []struct {
		name       string
		method     string
		opts       []Option
		answers    []httpmock.Responder
		attempts   int
		wantStatus int // 0: success
	}{
		{"POST 500 is not retried", "POST", nil, []httpmock.Responder{st(500), ok}, 1, 500},
		{"POST 503 is not retried", "POST", nil, []httpmock.Responder{st(503), ok}, 1, 503},
		{"POST 502 is not retried", "POST", nil, []httpmock.Responder{st(502), ok}, 1, 502},
		{"POST transport error is not retried", "POST", nil, []httpmock.Responder{connRefused, ok}, 1, -1},
		{"POST 429 is retried", "POST", nil, []httpmock.Responder{rl, ok}, 2, 0},
		{"GET 503 is retried", "GET", nil, []httpmock.Responder{st(503), ok}, 2, 0},
		{"GET 408 502 504 are retried", "GET", nil, []httpmock.Responder{st(408), st(502), st(504), ok}, 4, 0},
		{"GET transport error is retried", "GET", nil, []httpmock.Responder{connRefused, ok}, 2, 0},
		{"PATCH 502 is retried", "PATCH", nil, []httpmock.Responder{st(502), ok}, 2, 0},
		{"DELETE 503 is retried", "DELETE", nil, []httpmock.Responder{st(503), ok}, 2, 0},
		{"GET 500 is not retried", "GET", nil, []httpmock.Responder{st(500), ok}, 1, 500},
		{"GET 400 is not retried", "GET", nil, []httpmock.Responder{st(400), ok}, 1, 400},
		{"GET 429 storm ends with the last 429", "GET", nil, []httpmock.Responder{rl}, 1 + DefaultMaxRetries, 429},
		{"retries disabled", "GET", []Option{WithMaxRetries(0)}, []httpmock.Responder{st(503), ok}, 1, 503},
		{"one retry allowed", "GET", []Option{WithMaxRetries(1)}, []httpmock.Responder{st(503), st(503), ok}, 2, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newMock(t, append([]Option{WithRetryWait(time.Second, 4*time.Second)}, tt.opts...)...)
				env.mock.RegisterResponder(tt.method, mockBase+"/x", sequence(tt.answers...))
				var out struct{ Message string }
				err := env.c.Do(context.Background(), tt.method, "/x", nil, map[string]string{"a": "b"}, &out)
				assert.Equal(t, tt.attempts, env.mock.GetTotalCallCount(), "attempts")
				assertNoKey(t, err)
				switch tt.wantStatus {
				case 0:
					require.NoError(t, err)
					assert.Equal(t, "ok", out.Message)
				case -1:
					var te *TransportError
					require.ErrorAs(t, err, &te)
				default:
					var apiErr *Error
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, tt.wantStatus, apiErr.StatusCode)
				}
			})
		})
	}
}

func TestRetryAfterIsHonouredExactly(t *testing.T) {
	in5s := func(now time.Time) string { return now.Add(5 * time.Second).UTC().Format(http.TimeFormat) }
	tests := []struct {
		name    string
		header  func(now time.Time) string
		service time.Time // the service's clock (its Date header); zero: none sent
		want    time.Duration
	}{
		{"seconds", func(time.Time) string { return "7" }, time.Time{}, 7 * time.Second},
		{"zero", func(time.Time) string { return "0" }, time.Time{}, 0},
		{"http date", in5s, time.Time{}, 5 * time.Second},
		// A date is measured against the service's clock (its Date header),
		// whatever the local clock reads: 2001 and 2099 wait the same 5 s.
		{"http date, service in 2001", in5s, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 5 * time.Second},
		{"http date, service in 2099", in5s, time.Date(2099, 12, 31, 23, 0, 0, 0, time.UTC), 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newMock(t)
				start := time.Now()
				headers := []string{"Retry-After", tt.header(start)}
				if !tt.service.IsZero() {
					headers = []string{"Date", tt.service.Format(http.TimeFormat), "Retry-After", tt.header(tt.service)}
				}
				env.mock.RegisterResponder("GET", mockBase+"/channels", sequence(
					responder(429, errJSON(429, "RATE_LIMITED", "Too many requests"), headers...),
					responder(200, okJSON(`{"items":[]}`)),
				))
				_, err := env.c.Channels.List(context.Background())
				require.NoError(t, err)
				assert.Equal(t, tt.want, time.Since(start))
				assert.Equal(t, 2, env.mock.GetTotalCallCount())
			})
		})
	}
}

func TestRetryAfterBeyondCapReturnsAtOnce(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		header  string
		opts    []Option
		timeout time.Duration
		want    time.Duration
	}{
		{"429 asks an hour", 429, "3600", nil, 0, time.Hour},
		{"429 over a custom cap", 429, "11", []Option{WithMaxRetryWait(10 * time.Second)}, 0, 11 * time.Second},
		{"429 past the context deadline", 429, "20", nil, 5 * time.Second, 20 * time.Second},
		{"503 asks an hour", 503, "3600", nil, 0, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newMock(t, tt.opts...)
				code := "RATE_LIMITED"
				if tt.status == 503 {
					code = "UNAVAILABLE"
				}
				env.mock.RegisterResponder("GET", mockBase+"/channels",
					responder(tt.status, errJSON(tt.status, code, "wait"), "Retry-After", tt.header))
				ctx := context.Background()
				if tt.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				start := time.Now()
				_, err := env.c.Channels.List(ctx)
				assert.Zero(t, time.Since(start), "must not sleep")
				assert.Equal(t, 1, env.mock.GetTotalCallCount())
				var apiErr *Error
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tt.status, apiErr.StatusCode)
				assert.Equal(t, tt.want, apiErr.RetryAfter)
				assert.True(t, apiErr.Temporary())
				if tt.status == 429 {
					assert.ErrorIs(t, err, ErrRateLimited)
				}
			})
		})
	}
}

func TestBackoffIsJitteredExponential(t *testing.T) {
	// Unit bounds: attempt n waits in [min·2ⁿ/2, min·2ⁿ], capped at max.
	for attempt := range 8 {
		base := min(time.Second<<attempt, 8*time.Second)
		for range 200 {
			d := jitteredBackoff(time.Second, 8*time.Second, attempt)
			assert.GreaterOrEqual(t, d, base/2)
			assert.LessOrEqual(t, d, base)
		}
	}
	for n := range 200 {
		assert.Zero(t, jitteredBackoff(0, 8*time.Second, n), n)
		d := jitteredBackoff(time.Second, 8*time.Second, n)
		assert.LessOrEqual(t, d, 8*time.Second, n)
		assert.Greater(t, d, time.Duration(0), n)
	}
	assert.Equal(t, time.Duration(0), jitteredBackoff(0, 0, 3))
	assert.Equal(t, time.Duration(1<<62), baseBackoff(1, 1<<62, 62))
	assert.Equal(t, 3*time.Second, baseBackoff(time.Second, 3*time.Second, 2))

	// End to end on the fake clock: three 503s without Retry-After.
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t, WithRetryWait(time.Second, 8*time.Second))
		st := responder(503, errJSON(503, "UNAVAILABLE", "busy"))
		env.mock.RegisterResponder("GET", mockBase+"/channels", sequence(st, st, st, responder(200, okJSON(`{"items":[]}`))))
		start := time.Now()
		_, err := env.c.Channels.List(context.Background())
		require.NoError(t, err)
		elapsed := time.Since(start)
		// 1s, 2s and 4s bases: between half (3.5s) and all (7s) of them.
		assert.GreaterOrEqual(t, elapsed, 3500*time.Millisecond)
		assert.LessOrEqual(t, elapsed, 7*time.Second)
	})
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t)
		env.mock.RegisterResponder("GET", mockBase+"/channels",
			responder(429, errJSON(429, "RATE_LIMITED", "Too many requests"), "Retry-After", "20"))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := env.c.Channels.List(ctx)
		assert.Equal(t, time.Second, time.Since(start), "returns as soon as the context is cancelled")
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1, env.mock.GetTotalCallCount())
		assertNoKey(t, err)
	})
}

// TestDeadlineDuringBackoff: a backoff that cannot end before the context's
// deadline is not started; the call returns the last answer's typed error at
// once (it used to sleep and report only context.DeadlineExceeded). A backoff
// that does fit is slept, and the call ends with the deadline.
func TestDeadlineDuringBackoff(t *testing.T) {
	unavailable := responder(503, errJSON(503, "UNAVAILABLE", "busy"))
	for _, tt := range []struct {
		name          string
		min, max      time.Duration // the retry wait
		answer        httpmock.Responder
		most          time.Duration // the call's longest duration
		attempts      int
		wantTransport bool
	}{
		{"wait beyond the deadline", 10 * time.Second, 10 * time.Second, unavailable, 0, 1, false},
		// 1s–2s, then a second 503 and a 2s–4s wait that no longer fits.
		{"deadline during a wait that fits", 2 * time.Second, 8 * time.Second, unavailable, 2 * time.Second, 2, false},
		{"transport error, shortest wait beyond the deadline", 10 * time.Second, 10 * time.Second, connRefused, 0, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newMock(t, WithRetryWait(tt.min, tt.max))
				env.mock.RegisterResponder("GET", mockBase+"/channels", tt.answer)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				start := time.Now()
				_, err := env.c.Channels.List(ctx)
				assert.LessOrEqual(t, time.Since(start), tt.most)
				assert.Equal(t, tt.attempts, env.mock.GetTotalCallCount())
				if tt.wantTransport {
					var te *TransportError
					require.ErrorAs(t, err, &te)
					assert.Contains(t, err.Error(), "connection refused")
					return
				}
				var apiErr *Error
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 503, apiErr.StatusCode)
			})
		})
	}
}

func TestCancelledBeforeTheCall(t *testing.T) {
	env := newMock(t)
	env.mock.RegisterResponder("GET", mockBase+"/channels", responder(200, okJSON(`{"items":[]}`)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := env.c.Channels.List(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	var te *TransportError
	assert.ErrorAs(t, err, &te)
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 12 ", 12 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"86400", 24 * time.Hour, true},
		// Nonsense, all alike: ignored as if absent.
		{"86401", 0, false},
		{"1000000000000", 0, false},
		{"1e12", 0, false},
		{"9999999999999999999999", 0, false},
		{"Thu, 01 Jan 2099 00:00:00 GMT", 0, false},
	}
	for _, tt := range tests {
		d, ok := retryAfter(http.Header{"Retry-After": {tt.in}, "Date": {now.Format(http.TimeFormat)}})
		assert.Equal(t, tt.ok, ok, tt.in)
		if ok {
			assert.Equal(t, tt.want, d, tt.in)
		}
	}
}

// The body of a retried response larger than the drain limit still reaches
// the caller's typed error whole (read through, not truncated). That such
// bodies keep their connection: TestRetriedLargeBodiesKeepTheConnection.
func TestExhaustedRetriesKeepAHugeLastBody(t *testing.T) {
	big := strings.Repeat("x", drainLimit*2)
	env := newMock(t, WithRetryWait(0, 0), WithMaxResponseBytes(drainLimit*4))
	env.mock.RegisterNoResponder(responder(502, big))
	err := env.c.Do(context.Background(), "GET", "/x", nil, nil, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.StatusCode)
	assert.Equal(t, 1+DefaultMaxRetries, env.mock.GetTotalCallCount())
	assert.Len(t, apiErr.Body, excerptLimit+3, "bounded excerpt of the body")
	assert.True(t, strings.HasPrefix(big, strings.TrimSuffix(string(apiErr.Body), "...")), "the last body is intact")
	assert.ErrorIs(t, err, ErrMalformedResponse, "read whole: not reported too large")
}

// closeCounter is a transport that counts CloseIdleConnections calls.
type closeCounter struct {
	http.RoundTripper
	closes atomic.Int64
}

func (c *closeCounter) CloseIdleConnections() { c.closes.Add(1) }

// retryablehttp calls CloseIdleConnections whenever it gives up (retries run
// out, a context ends during a backoff, a non-retryable failure): the pool
// must survive all of these; only Client.CloseIdleConnections reaches it.
func TestGivingUpDoesNotFlushThePool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := httpmock.NewMockTransport()
		tr := &closeCounter{RoundTripper: mock}
		c, err := NewClient(WithAPIKey(testKey), WithBaseURL(mockBase), WithHTTPClient(&http.Client{Transport: tr}),
			WithRetryWait(time.Second, time.Second))
		require.NoError(t, err)
		mock.RegisterResponder("GET", mockBase+"/storm", responder(429, errJSON(429, "RATE_LIMITED", "slow")))
		mock.RegisterResponder("GET", mockBase+"/slow", responder(429, errJSON(429, "RATE_LIMITED", "slow"), "Retry-After", "5"))
		mock.RegisterResponder("POST", mockBase+"/down", connRefused)
		mock.RegisterResponder("GET", mockBase+"/gone", connRefused)

		require.ErrorIs(t, c.Do(context.Background(), "GET", "/storm", nil, nil, nil), ErrRateLimited)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		require.ErrorIs(t, c.Do(ctx, "GET", "/slow", nil, nil, nil), context.Canceled)
		require.Error(t, c.Do(context.Background(), "POST", "/down", nil, nil, nil))
		require.Error(t, c.Do(context.Background(), "GET", "/gone", nil, nil, nil))
		assert.Zero(t, tr.closes.Load(), "the pool was flushed")

		c.CloseIdleConnections()
		assert.Equal(t, int64(1), tr.closes.Load())
	})
}

// WithRetryWait(0, max) means no wait: min·2ⁿ is 0, as documented and as in
// retryablehttp (it was once taken for an overflow, and max/2…max waited).
func TestZeroMinimumWaitMeansNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := newMock(t, WithRetryWait(0, 8*time.Second))
		env.mock.RegisterNoResponder(sequence(responder(503, errJSON(503, "UNAVAILABLE", "busy")), responder(200, okJSON(`{"items":[]}`))))
		start := time.Now()
		_, err := env.c.Channels.List(context.Background())
		require.NoError(t, err)
		assert.Zero(t, time.Since(start))
	})
}

// Concurrent calls that are retried, logged and fail keep their own state
// (attempt counts, planned waits): run under -race.
func TestConcurrentRetriedCalls(t *testing.T) {
	env := newMock(t, WithRetryWait(0, time.Millisecond))
	var mu sync.Mutex
	seen := map[string]int{}
	env.mock.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		if n == 1 {
			return responder(429, errJSON(429, "RATE_LIMITED", "slow"), "Retry-After", "0")(r)
		}
		if strings.HasSuffix(r.URL.Path, "/bad/messages") {
			return responder(404, errJSON(404, "CONVERSATION_NOT_FOUND", "Conversation not found"))(r)
		}
		return responder(200, okJSON(`{"items":[],"next_cursor":null}`))(r)
	})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			id := fmt.Sprintf("c%d", i)
			if i%4 == 0 {
				id = fmt.Sprintf("c%d/bad", i)
			}
			_, err := env.c.Messages.List(context.Background(), id, nil)
			if i%4 == 0 {
				assert.ErrorIs(t, err, ErrConversationNotFound)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 80, env.mock.GetTotalCallCount())
	assert.Equal(t, 40, strings.Count(env.logs.String(), "attempt=2"))
}

// cutServer answers its first request (per path) with a body cut short: the
// headers promise 1000 bytes, 10 arrive, then the connection closes.
func cutServer(t *testing.T, cuts int) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if int(n.Add(1)) <= cuts {
			conn, bufrw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = bufrw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"success\":")
			_ = bufrw.Flush()
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, okJSON(`{"items":[{"id":"a"}],"message":"ok"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// A connection cut while the body is read (after the status line) is retried
// like any transport error, from the same budget, for a safe method; a POST is
// not. (retryablehttp hands the response over before the body is read.)
func TestBodyCutMidwayIsRetriedForSafeMethods(t *testing.T) {
	list := func(c *Client) error {
		got, err := c.Channels.List(context.Background())
		if err == nil && len(got) != 1 {
			return fmt.Errorf("%d accounts decoded, want 1", len(got))
		}
		return err
	}
	create := func(c *Client) error {
		_, err := c.Contacts.Create(context.Background(), &CreateContactParams{PhoneNumber: "5511987654321", Name: "Ana"})
		return err
	}
	for _, tt := range []struct {
		name     string
		cuts     int // answers cut short before a whole one
		opts     []Option
		call     func(*Client) error
		requests int64
	}{
		{"GET is retried", 2, nil, list, 3},
		{"budget shared with retryablehttp: 1 attempt + 2 retries", 100, []Option{WithMaxRetries(2)}, list, 3},
		{"POST is not retried", 1, nil, create, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := cutServer(t, tt.cuts)
			logs := &testkit.Buffer{}
			c, err := NewClient(append([]Option{WithAPIKey(testKey), WithBaseURL(srv.URL + "/v1"), WithRetryWait(0, 0),
				WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))}, tt.opts...)...)
			require.NoError(t, err)
			err = tt.call(c)
			assert.Equal(t, tt.requests, n.Load())
			assert.NotContains(t, logs.String(), testKey)
			if int64(tt.cuts) >= tt.requests {
				var te *TransportError
				require.ErrorAs(t, err, &te)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.cuts, strings.Count(logs.String(), "reading the body failed"))
			assert.Contains(t, logs.String(), fmt.Sprintf("attempt=%d", tt.requests))
		})
	}
}
