package convo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// TestOptionsRefusedWhereTheyCannotApply holds the one Option type to its
// promise: an option given where it cannot apply fails that NewClient, call
// or run before any request, naming the option and where it applies.
func TestOptionsRefusedWhereTheyCannotApply(t *testing.T) {
	c, m := newMock(t, channelsOK)
	ctx := context.Background()
	callErr := func(opt convo.Option) error { _, err := c.Channels.List(ctx, opt); return err }
	clientErr := func(opt convo.Option) error {
		_, err := convo.NewClient(convo.WithAPIKey(testKey), convo.WithBaseURL(testBase), opt)
		return err
	}
	parallelErr := func(opt convo.Option) error {
		_, err := convo.Parallel(ctx, []int{1}, func(context.Context, int) (int, error) { return 0, nil }, opt)
		return err
	}
	for _, tc := range []struct {
		name string
		err  func(convo.Option) error
		opt  convo.Option
		want string
	}{
		{"base URL on a call", callErr, convo.WithBaseURL(testBase), "WithBaseURL applies to NewClient, not to a call"},
		{"HTTP client on a call", callErr, convo.WithHTTPClient(http.DefaultClient), "WithHTTPClient applies to NewClient, not to a call"},
		{"logger on a call", callErr, convo.WithLogger(nil), "WithLogger applies to NewClient, not to a call"},
		{"limiter on a call", callErr, convo.WithRateLimiter(convo.NoRateLimiter()), "WithRateLimiter applies to NewClient, not to a call"},
		{"parallel limit on a call", callErr, convo.ParallelLimit(2), "ParallelLimit applies to Parallel, not to a call"},
		{"capture on NewClient", clientErr, convo.CaptureResponse(new(convo.Response)), "CaptureResponse applies to a call, not to NewClient"},
		{"read-ahead on NewClient", clientErr, convo.WithReadAhead(), "WithReadAhead applies to a call, not to NewClient"},
		{"collect-all on NewClient", clientErr, convo.ParallelCollectAll(), "ParallelCollectAll applies to Parallel, not to NewClient"},
		{"retries on Parallel", parallelErr, convo.WithMaxRetries(1), "WithMaxRetries applies to NewClient and a call, not to Parallel"},
		{"empty key on a call", callErr, convo.WithAPIKey(" "), "WithAPIKey: the key is empty"},
		{"nil middleware", clientErr, convo.WithMiddleware(nil), "WithMiddleware: nil middleware"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err(tc.opt)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "convo: "), err.Error())
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	seq := convo.ParallelSeq(ctx, func(func(int) bool) {}, func(context.Context, int) (int, error) { return 0, nil }, convo.WithTimeout(time.Second))
	for _, err := range seq {
		assert.ErrorContains(t, err, "WithTimeout applies to NewClient and a call, not to Parallel")
	}
	assert.Empty(t, m.requests(), "no refused option sends a request")
}

// TestClientWideSettingsAndTheCallsOverride checks that a setting given to
// NewClient is every call's default and that a call's own replaces it.
func TestClientWideSettingsAndTheCallsOverride(t *testing.T) {
	c, m := newMock(t, channelsOK, convo.WithHeader("X-Team", "billing"), convo.WithHeader("User-Agent", "sync/1"))
	ctx := context.Background()
	_, err := c.Channels.List(ctx)
	require.NoError(t, err)
	_, err = c.Channels.List(ctx, convo.WithHeader("X-Team", "support"), convo.WithAPIKey("sk_other_company"))
	require.NoError(t, err)
	reqs := m.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "billing", reqs[0].Header.Get("X-Team"))
	assert.Regexp(t, `^convo-go/\S+ go/\S+ sync/1$`, reqs[0].Header.Get("User-Agent"))
	assert.Equal(t, "support", reqs[1].Header.Get("X-Team"), "the call's header replaces the client's")
	assert.Equal(t, "Bearer sk_other_company", reqs[1].Header.Get("Authorization"))
}

// TestMiddlewareRunsOncePerAttemptInOrder checks the order (client, context,
// call; first outermost) and that a retried call passes through each
// middleware once per attempt.
func TestMiddlewareRunsOncePerAttemptInOrder(t *testing.T) {
	var trail []string
	mark := func(name string) convo.Middleware {
		return func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
			trail = append(trail, name+">")
			resp, err := next(req)
			trail = append(trail, "<"+name)
			return resp, err
		}
	}
	c, m := newMock(t, replies(jsonResp(503, `{}`), channelsOK), convo.WithMiddleware(mark("client1"), mark("client2")))
	ctx := convo.ContextWithMiddleware(context.Background(), mark("ctx"))
	_, err := c.Channels.List(ctx, convo.WithMiddleware(mark("call")))
	require.NoError(t, err)
	require.Len(t, m.requests(), 2)
	once := []string{"client1>", "client2>", "ctx>", "call>", "<call", "<ctx", "<client2", "<client1"}
	assert.Equal(t, append(once, once...), trail)

	t.Run("a middleware may answer without sending", func(t *testing.T) {
		c, m := newMock(t, channelsOK)
		short := func(*http.Request, convo.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: 418, Header: http.Header{}, Body: http.NoBody}, nil
		}
		_, err := c.Channels.List(context.Background(), convo.WithMiddleware(short))
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 418, apiErr.StatusCode)
		assert.Empty(t, m.requests())
	})
	t.Run("neither response nor error is an error", func(t *testing.T) {
		c, _ := newMock(t, channelsOK, convo.WithMaxRetries(0))
		none := func(*http.Request, convo.MiddlewareNext) (*http.Response, error) { return nil, nil }
		_, err := c.Channels.List(context.Background(), convo.WithMiddleware(none))
		assert.ErrorContains(t, err, "a middleware returned neither a response nor an error")
	})
}

// TestClientWideTimeout checks that WithTimeout given to NewClient bounds
// every call and that a call's own replaces it.
func TestClientWideTimeout(t *testing.T) {
	var deadlines []time.Duration
	probe := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		dl, ok := req.Context().Deadline()
		require.True(t, ok)
		deadlines = append(deadlines, time.Until(dl).Round(time.Minute))
		return next(req)
	}
	c, _ := newMock(t, channelsOK, convo.WithTimeout(time.Hour), convo.WithMiddleware(probe))
	_, err := c.Channels.List(context.Background())
	require.NoError(t, err)
	_, err = c.Channels.List(context.Background(), convo.WithTimeout(10*time.Minute))
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Hour, 10 * time.Minute}, deadlines)
}

func TestPerCallOptionsOnTheWire(t *testing.T) {
	t.Run("a header option reaches the wire, on Do too", func(t *testing.T) {
		c, m := newMock(t, channelsOK)
		_, err := c.Channels.List(context.Background(), convo.WithHeader("X-Request-Id", "req-42"), convo.WithHeader("Idempotency-Key", "k1"),
			convo.WithHeader("User-Agent", "nightly-export/2"))
		require.NoError(t, err)
		require.NoError(t, c.Do(context.Background(), "GET", "/channels", nil, nil, nil, convo.WithHeader("x-trace", "t-1")))
		reqs := m.requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, "req-42", reqs[0].Header.Get("X-Request-Id"))
		assert.Equal(t, "k1", reqs[0].Header.Get("Idempotency-Key"))
		assert.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"), "the key is the client's")
		assert.Regexp(t, `^convo-go/\S+ go/\S+ nightly-export/2$`, reqs[0].Header.Get("User-Agent"), "a product token is appended")
		assert.Equal(t, "t-1", reqs[1].Header.Get("X-Trace"))
		assert.Empty(t, reqs[1].Header.Get("X-Request-Id"), "an option is for its call only")
	})
	t.Run("max retries 0 stops a retry the client would make", func(t *testing.T) {
		c, m := newMock(t, replies(jsonResp(503, errBody(apiErr{status: 503, code: "UNAVAILABLE"}, "GET", "/channels", "ERR-1")), channelsOK))
		_, err := c.Channels.List(context.Background(), convo.WithMaxRetries(0))
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 503, apiErr.StatusCode)
		assert.Equal(t, 1, apiErr.Attempts)
		assert.Len(t, m.requests(), 1)

		_, err = c.Channels.List(context.Background())
		require.NoError(t, err, "the client's default retries the same answer")
		assert.Len(t, m.requests(), 2)
	})
	t.Run("a per-call timeout cancels", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := newMock(t, func(r *http.Request) (*http.Response, error) {
				<-r.Context().Done() // a server that never answers
				return nil, r.Context().Err()
			})
			start := time.Now()
			_, err := c.Channels.List(context.Background(), convo.WithTimeout(250*time.Millisecond))
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			var te *convo.TransportError
			require.ErrorAs(t, err, &te)
			assert.True(t, te.Timeout())
			assert.Equal(t, 250*time.Millisecond, time.Since(start), "fake time: exactly the timeout")
		})
	})
	t.Run("Authorization cannot be replaced by a header option", func(t *testing.T) {
		c, m := newMock(t, channelsOK)
		for _, name := range []string{"Authorization", "authorization", "X-Api-Key", "x-api-key", " Authorization "} {
			_, err := c.Channels.List(context.Background(), convo.WithHeader(name, "Bearer someone-else"))
			require.Error(t, err, name)
			assert.Contains(t, err.Error(), "WithAPIKey")
		}
		for _, bad := range [][2]string{{"X-Evil", "a\r\nInjected: 1"}, {"Bad Name", "v"}, {"", "v"}} {
			_, err := c.Channels.List(context.Background(), convo.WithHeader(bad[0], bad[1]))
			require.Error(t, err, bad[0])
		}
		_, err := c.Channels.List(context.Background(), convo.WithMaxRetries(-1))
		require.Error(t, err)
		assert.Empty(t, m.requests(), "refused before any request")

		// The explicit key option does change it, for that call only.
		_, err = c.Channels.List(context.Background(), convo.WithAPIKey("sk_other_company_key"))
		require.NoError(t, err)
		_, err = c.Channels.List(context.Background())
		require.NoError(t, err)
		reqs := m.requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, "Bearer sk_other_company_key", reqs[0].Header.Get("Authorization"))
		assert.Equal(t, "Bearer "+testKey, reqs[1].Header.Get("Authorization"))
	})
	t.Run("a per-call key never shows in the call's error", func(t *testing.T) {
		const other = "sk_other_company_key"
		c, _ := newMock(t, jsonResp(401, errBody(apiErr{status: 401, code: convo.CodeUnauthorized, message: "bad key " + other}, "GET", "/channels", "ERR-"+other)))
		_, err := c.Channels.List(context.Background(), convo.WithAPIKey(other))
		require.Error(t, err)
		assert.NotContains(t, err.Error(), other)
		assert.NotContains(t, fmt.Sprintf("%#v", err), other)
	})
}

func TestResponseMetadata(t *testing.T) {
	rateLimited := withHeader(jsonResp(429, errBody(errRateLimited, "GET", "/channels", "ERR-RL")), "Retry-After", "0")
	t.Run("success after two 429s", func(t *testing.T) {
		c, _ := newMock(t, replies(rateLimited, rateLimited, withHeader(channelsOK, "X-Served-By", "edge-1")), convo.WithRateLimiter(convo.NoRateLimiter()))
		var meta convo.Response
		_, err := c.Channels.List(context.Background(), convo.CaptureResponse(&meta))
		require.NoError(t, err)
		assert.Equal(t, 3, meta.Attempts)
		assert.Equal(t, 200, meta.StatusCode)
		assert.Equal(t, "edge-1", meta.Header.Get("X-Served-By"))
		assert.Equal(t, ts(t, testTS), meta.Timestamp, "the envelope's timestamp: the service's clock")
		assert.Positive(t, meta.Duration)
	})
	t.Run("exhausted 503", func(t *testing.T) {
		unavailable := jsonResp(503, errBody(apiErr{status: 503, code: "SERVICE_UNAVAILABLE", message: "Try later"}, "GET", "/channels", "ERR-AAAAAAAA-0503"))
		c, m := newMock(t, unavailable)
		var meta convo.Response
		_, err := c.Channels.List(context.Background(), convo.CaptureResponse(&meta))
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Len(t, m.requests(), 6, "the first attempt and the default 5 retries")
		assert.Equal(t, 6, apiErr.Attempts)
		assert.Equal(t, 6, meta.Attempts)
		assert.Equal(t, 503, meta.StatusCode)
		assert.Equal(t, "application/json", apiErr.Header.Get("Content-Type"))
		assert.Equal(t, ts(t, testTS), meta.Timestamp)
		assert.Equal(t, "convo: 503 SERVICE_UNAVAILABLE: Try later (GET /api/v1/channels, errorId ERR-AAAAAAAA-0503, 6 attempts)", err.Error())
	})
	t.Run("no answer", func(t *testing.T) {
		c, _ := newMock(t, func(*http.Request) (*http.Response, error) { return nil, errors.New("connection refused") })
		var meta convo.Response
		_, err := c.Channels.List(context.Background(), convo.CaptureResponse(&meta), convo.WithMaxRetries(1))
		var te *convo.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 0, meta.StatusCode)
		assert.Equal(t, 2, meta.Attempts)
		assert.Equal(t, 2, te.Attempts)
	})
}
