package convo_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
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
		{"gate on a call", callErr, convo.WithRateLimitGate(false), "WithRateLimitGate applies to NewClient, not to a call"},
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
