package convo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// Shared fixtures of the tests of the external package convo_test. The
// internal tests (package convo) have theirs in helpers_internal_test.go.

const (
	testKey  = "sk_test_4f9c2a7e1b"
	testBase = "https://api.example.test/v1"
	testTS   = "2026-11-22T10:04:05.123Z"
)

// recorded is what the mock saw of one request.
type recorded struct {
	Method   string
	Host     string
	Path     string // escaped, as sent on the wire
	RawQuery string
	Body     string
	Header   http.Header
}

// mockAPI is an httpmock transport whose one responder records every request
// and answers with the next canned response (the last one repeats).
type mockAPI struct {
	*httpmock.MockTransport
	mu    sync.Mutex
	reqs  []recorded
	reply func(r *http.Request) (*http.Response, error)
}

func (m *mockAPI) requests() []recorded {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recorded(nil), m.reqs...)
}

// newMock returns a client on https://api.example.test/v1 whose transport is an
// httpmock.MockTransport, and the recorder. reply answers every request.
func newMock(t *testing.T, reply func(r *http.Request) (*http.Response, error), opts ...convo.Option) (*convo.Client, *mockAPI) {
	t.Helper()
	m := &mockAPI{MockTransport: httpmock.NewMockTransport(), reply: reply}
	m.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		m.mu.Lock()
		m.reqs = append(m.reqs, recorded{
			Method: r.Method, Host: r.URL.Host, Path: r.URL.EscapedPath(),
			RawQuery: r.URL.RawQuery, Body: string(body), Header: r.Header.Clone(),
		})
		m.mu.Unlock()
		if m.reply == nil {
			return nil, errors.New("mockAPI: no reply configured")
		}
		return m.reply(r)
	})
	base := []convo.Option{
		convo.WithAPIKey(testKey),
		convo.WithBaseURL(testBase),
		convo.WithHTTPClient(&http.Client{Transport: testkit.RequestTransport(t, m)}),
		convo.WithRetryWait(0, 0),
	}
	c, err := convo.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	return c, m
}

// jsonResp answers with status and a JSON body.
func jsonResp(status int, body string) func(*http.Request) (*http.Response, error) {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		r.Header.Set("Content-Type", "application/json")
		return r, nil
	}
}

// testTime is testTS as a time: the service's clock in canned answers, so
// that times the service issues (expires_at) are set against it, not against
// the machine's date.
var testTime, _ = time.Parse(time.RFC3339Nano, testTS)

// ok wraps data in the success envelope.
func ok(data string) string {
	return `{"success":true,"data":` + data + `,"timestamp":"` + testTS + `"}`
}

// apiErr describes an error answer (ErrorEnvelope of api/openapi.yaml).
type apiErr struct {
	status   int
	code     convo.ErrorCode
	message  string
	details  string // raw JSON or ""
	sentinel error
}

// errBody writes the error envelope for a request made with method
// on apiPath (relative to /api/v1, as the server reports it).
func errBody(e apiErr, method, apiPath, errorID string) string {
	details := ""
	if e.details != "" {
		details = `,"details":` + e.details
	}
	return fmt.Sprintf(`{"success":false,"statusCode":%d,"timestamp":%q,"path":%q,"method":%q,`+
		`"message":{"error":%q,"message":%q%s},"errorId":%q}`,
		e.status, testTS, "/api/v1"+apiPath, method, e.code, e.message, details, errorID)
}

// Errors every endpoint can answer: 401 and 429.
var (
	errUnauthorized = apiErr{401, convo.CodeUnauthorized, "Invalid or missing API key.", "", convo.ErrUnauthorized}
	errRateLimited  = apiErr{429, convo.CodeRateLimited, "Too many requests.", "", convo.ErrRateLimited}
)

// allSentinels are checked so that an error matches its own sentinel and no other.
var allSentinels = []error{
	convo.ErrInvalidParam, convo.ErrMissingParam, convo.ErrInvalidBucket, convo.ErrUnauthorized,
	convo.ErrConversationNotFound, convo.ErrContactNotFound, convo.ErrChannelNotFound,
	convo.ErrContactExists, convo.ErrRateLimited, convo.ErrCancelFailed,
}

// runErrorCases calls call once per error answer and checks the typed error:
// status, code, message, errorId, path (with /api/v1), method, timestamp and
// the sentinel (and no other sentinel).
func runErrorCases(t *testing.T, method, apiPath string, call func(context.Context, *convo.Client) error, cases []apiErr) {
	t.Helper()
	for i, e := range cases {
		t.Run(string(e.code), func(t *testing.T) {
			errorID := fmt.Sprintf("ERR-K3J9QX2%d-7ZP%d", i, i)
			body := errBody(e, method, apiPath, errorID)
			reply := func(*http.Request) (*http.Response, error) {
				r := httpmock.NewStringResponse(e.status, body)
				r.Header.Set("Content-Type", "application/json")
				if e.status == http.StatusTooManyRequests {
					r.Header.Set("Retry-After", "120") // above the 30s cap: no retry, typed error at once
				}
				return r, nil
			}
			c, m := newMock(t, reply)
			err := call(context.Background(), c)
			require.Error(t, err)

			var ae *convo.Error
			require.True(t, errors.As(err, &ae), "want *convo.Error, got %T: %v", err, err)
			assert.Equal(t, e.status, ae.StatusCode)
			assert.Equal(t, e.code, ae.Code)
			assert.Equal(t, e.message, ae.Message)
			assert.Equal(t, errorID, ae.ErrorID)
			assert.Equal(t, "/api/v1"+apiPath, ae.Path)
			assert.Equal(t, method, ae.Method)
			assert.True(t, ae.Timestamp.Equal(time.Date(2026, 11, 22, 10, 4, 5, 123e6, time.UTC)), "timestamp %v", ae.Timestamp)
			if e.details == "" {
				assert.Nil(t, ae.Details)
			} else {
				assert.JSONEq(t, e.details, string(ae.Details))
			}
			if e.status == http.StatusTooManyRequests {
				assert.Equal(t, 120*time.Second, ae.RetryAfter)
			}
			assert.Contains(t, err.Error(), string(e.code))
			assert.Contains(t, err.Error(), errorID)
			for _, s := range allSentinels {
				assert.Equal(t, s == e.sentinel, errors.Is(err, s), "errors.Is(err, %v)", s)
			}
			// Client errors and 500 CANCEL_FAILED are not retried; neither is
			// a 429 whose Retry-After exceeds the cap.
			assert.Len(t, m.requests(), 1)
		})
	}
}

// wireCase is a golden wire test: what one call must send, and what it must
// make of the answer.
type wireCase struct {
	name   string
	call   func(context.Context, *convo.Client) (any, error)
	method string
	path   string // escaped path, as on the wire
	query  string // exact raw query ("" for none)
	body   string // exact JSON body ("" for none)
	status int    // default 200
	resp   string // response body
	check  func(t *testing.T, got any)
}

func runWireCases(t *testing.T, cases []wireCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			c, m := newMock(t, jsonResp(status, tc.resp))
			got, err := tc.call(context.Background(), c)
			require.NoError(t, err)

			reqs := m.requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, tc.method, r.Method)
			assert.Equal(t, "api.example.test", r.Host)
			assert.Equal(t, tc.path, r.Path)
			assert.Equal(t, tc.query, r.RawQuery)
			assert.Equal(t, tc.body, r.Body)
			assertAPIHeaders(t, r.Header, tc.body != "")
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// assertAPIHeaders checks the headers every API call carries.
func assertAPIHeaders(t *testing.T, h http.Header, hasBody bool) {
	t.Helper()
	assert.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	assert.Empty(t, h.Values("x-api-key"))
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "convo-go/"), h.Get("User-Agent"))
	if hasBody {
		assert.Equal(t, "application/json", h.Get("Content-Type"))
	} else {
		assert.Empty(t, h.Get("Content-Type"))
	}
}

// ts parses an RFC 3339 time for expectations.
func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

// channelsOK is a success answer of GET /channels.
var channelsOK = jsonResp(200, ok(`{"items":[]}`))

// replies answers with each reply in turn, repeating the last one.
func replies(rs ...func(*http.Request) (*http.Response, error)) func(*http.Request) (*http.Response, error) {
	var mu sync.Mutex
	i := 0
	return func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		f := rs[min(i, len(rs)-1)]
		i++
		mu.Unlock()
		return f(r)
	}
}

// withHeader answers like reply, with one more header.
func withHeader(reply func(*http.Request) (*http.Response, error), k, v string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		resp, err := reply(r)
		if resp != nil {
			resp.Header.Set(k, v)
		}
		return resp, err
	}
}

// listing is the All iterator of one service over three canned pages (cursors
// "", "p2" and "p3"), as ids: reply(failOn) answers them, the page of cursor
// failOn with an error matching err.
type listing struct {
	pages [3][]string
	all   func(ctx context.Context, c *convo.Client, cursor string) iter.Seq2[string, error]
	reply func(failOn string) func(*http.Request) (*http.Response, error)
	err   error
}

// runListingCases checks what every All iterator promises: a break fetches
// no further page, an error is yielded once and ends the sequence, a cursor
// resumes, the sequence can be ranged again and concurrently, and a context
// cancelled between pages ends it.
func runListingCases(t *testing.T, l listing) {
	ctx := context.Background()
	every := slices.Concat(l.pages[:]...)
	// drain ranges seq until stop says so and returns the ids and errors seen.
	drain := func(seq iter.Seq2[string, error], stop func(id string) bool) (ids []string, errs []error) {
		for id, err := range seq {
			if err != nil {
				errs = append(errs, err)
				continue // the iterator must stop by itself
			}
			if ids = append(ids, id); stop != nil && stop(id) {
				break
			}
		}
		return ids, errs
	}
	t.Run("a break fetches no further page", func(t *testing.T) {
		for _, last := range []string{l.pages[0][0], l.pages[0][len(l.pages[0])-1]} {
			c, m := newMock(t, l.reply("none"))
			ids, _ := drain(l.all(ctx, c, ""), func(id string) bool { return id == last })
			assert.Equal(t, last, ids[len(ids)-1])
			assert.Len(t, m.requests(), 1)
		}
	})
	t.Run("an error mid-way is yielded once, then the sequence stops", func(t *testing.T) {
		c, m := newMock(t, l.reply("p3"))
		ids, errs := drain(l.all(ctx, c, ""), nil)
		assert.Equal(t, slices.Concat(l.pages[0], l.pages[1]), ids)
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], l.err)
		assert.Len(t, m.requests(), 3, "a 4xx is not retried and no page follows")
	})
	t.Run("a cursor resumes", func(t *testing.T) {
		c, m := newMock(t, l.reply("none"))
		ids, errs := drain(l.all(ctx, c, "p3"), nil)
		assert.Empty(t, errs)
		assert.Equal(t, l.pages[2], ids)
		require.Len(t, m.requests(), 1)
		assert.Equal(t, "cursor=p3", m.requests()[0].RawQuery)
	})
	t.Run("ranging twice starts over", func(t *testing.T) {
		c, m := newMock(t, l.reply("none"))
		seq := l.all(ctx, c, "")
		for range 2 {
			ids, errs := drain(seq, nil)
			assert.Empty(t, errs)
			assert.Equal(t, every, ids)
		}
		assert.Len(t, m.requests(), 6)
	})
	t.Run("goroutines range the same sequence", func(t *testing.T) {
		c, m := newMock(t, l.reply("none"))
		seq := l.all(ctx, c, "")
		var wg sync.WaitGroup
		got := make([][]string, 4)
		for g := range got {
			wg.Go(func() { got[g], _ = drain(seq, nil) })
		}
		wg.Wait()
		for _, ids := range got {
			assert.Equal(t, every, ids)
		}
		assert.Len(t, m.requests(), 12)
	})
	t.Run("a context cancelled between pages", func(t *testing.T) {
		c, m := newMock(t, l.reply("none"))
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ids, errs := drain(l.all(cctx, c, ""), func(string) bool { cancel(); return false })
		assert.Equal(t, l.pages[0], ids, "the page already fetched is delivered")
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], context.Canceled)
		assert.Len(t, m.requests(), 1)
	})
}

// ids maps a sequence of values to their ids.
func ids[T any](seq iter.Seq2[T, error], id func(T) string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for v, err := range seq {
			if !yield(id(v), err) {
				return
			}
		}
	}
}

// inMemory serves requests with a fake's handler in memory, after a fixed
// latency: no socket, so that a test runs the client and the fake together
// in a synctest bubble, where the latency passes in fake time. It notes when
// each request left and arrived, and when the first 429 reached the client.
type inMemory struct {
	h       http.Handler
	latency time.Duration

	mu       sync.Mutex
	sent     []time.Time
	arrived  []time.Time
	firstOut time.Time
}

func (m *inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.sent = append(m.sent, time.Now())
	m.mu.Unlock()
	time.Sleep(m.latency)
	m.mu.Lock()
	m.arrived = append(m.arrived, time.Now())
	m.mu.Unlock()
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	if resp.StatusCode == http.StatusTooManyRequests {
		m.mu.Lock()
		if m.firstOut.IsZero() {
			m.firstOut = time.Now()
		}
		m.mu.Unlock()
	}
	return resp, nil
}

// unlimited lifts the fake's rate limit.
var unlimited = []fake.Option{fake.WithRateLimit(1e6, 1e6)}

// inMemoryFake builds a fake without a listener, checked against the
// document, and a client that reaches it through an inMemory transport.
func inMemoryFake(t *testing.T, latency time.Duration, fopts []fake.Option, copts ...convo.Option) (*fake.Server, *convo.Client, *inMemory) {
	t.Helper()
	s, err := fake.NewHandler(slices.Concat(fopts, []fake.Option{fake.WithHandlerMiddleware(testkit.Middleware(t))})...)
	require.NoError(t, err)
	tr := &inMemory{h: s.Handler(), latency: latency}
	c, err := convo.NewClient(append([]convo.Option{convo.WithBaseURL("http://127.0.0.1/v1"), convo.WithAPIKey(s.APIKey()),
		convo.WithHTTPClient(&http.Client{Transport: tr})}, copts...)...)
	require.NoError(t, err)
	return s, c, tr
}
