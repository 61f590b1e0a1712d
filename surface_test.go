package convo_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/convoapi/convo-go/internal/oascheck"
)

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
		c, _ := newMock(t, replies(rateLimited, rateLimited, withHeader(channelsOK, "X-Served-By", "edge-1")), convo.WithRateLimitGate(false))
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
		assert.Len(t, m.requests(), 4)
		assert.Equal(t, 4, apiErr.Attempts)
		assert.Equal(t, 4, meta.Attempts)
		assert.Equal(t, 503, meta.StatusCode)
		assert.Equal(t, "application/json", apiErr.Header.Get("Content-Type"))
		assert.Equal(t, ts(t, testTS), meta.Timestamp)
		assert.Equal(t, "convo: 503 SERVICE_UNAVAILABLE: Try later (GET /api/v1/channels, errorId ERR-AAAAAAAA-0503, 4 attempts)", err.Error())
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

// A listing cut by an error resumes from the NextCursor of the last page
// finished and, across the two runs, yields every message exactly once,
// though messages arrive between the runs.
func TestPagesResumeFromTheLastCursor(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := fake.New(t, fake.WithClock(fake.NewManualClock(now)), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	want := map[string]bool{}
	for i := range 47 {
		want[co.Inbound(conv, fmt.Sprintf("m%d", i), now.Add(-time.Duration(47-i)*time.Minute))] = true
	}
	c := s.Client(convo.WithRetryWait(0, 0))
	ctx := context.Background()
	params := &convo.ListMessagesParams{Limit: 10}

	seen := map[string]int{}
	var cursor string
	pagesRead := 0
	var cut error
	for page, err := range c.Messages.Pages(ctx, conv, params) {
		if err != nil {
			cut = err
			break
		}
		for _, m := range page.Items {
			seen[m.MessageID]++
		}
		cursor = page.NextCursor
		if pagesRead++; pagesRead == 2 {
			s.AddFault(fake.Fault{Path: "/conversations/*/messages", Status: 400, Code: "INVALID_PARAM", Times: 1})
		}
	}
	require.ErrorIs(t, cut, convo.ErrInvalidParam)
	assert.Equal(t, 2, pagesRead, "the fault cut the first run after two pages")
	require.NotEmpty(t, cursor)

	// Messages arrive between the runs: they are newer than the cursor's
	// position and do not shift what is left to read.
	for i := range 5 {
		co.Inbound(conv, fmt.Sprintf("late%d", i), now.Add(time.Duration(i)*time.Second))
	}
	resume := *params
	resume.Cursor = cursor
	for m, err := range c.Messages.All(ctx, conv, &resume) {
		require.NoError(t, err)
		seen[m.MessageID]++
	}
	for id := range want {
		assert.Equal(t, 1, seen[id], "message %s seen once", id)
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "message %s seen once", id)
	}
}

func TestEnsureUnderFiftyConcurrentCallers(t *testing.T) {
	s := fake.New(t, fake.WithRateLimit(1e6, 1e6), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: "5511900000000"})
	c := s.Client()
	params := &convo.CreateContactParams{PhoneNumberID: "5511900000000", PhoneNumber: "5511987650000", Name: "Bia"}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
		errs    []error
	)
	for range 50 {
		wg.Go(func() {
			ct, isNew, err := c.Contacts.Ensure(context.Background(), params)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			ids[ct.ID]++
			if isNew {
				created++
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	assert.Len(t, ids, 1, "one contact for every caller")
	assert.Equal(t, 1, created, "exactly one caller created it")

	again, isNew, err := c.Contacts.Ensure(context.Background(), params)
	require.NoError(t, err)
	assert.False(t, isNew)
	assert.Contains(t, ids, again.ID)
	assert.Equal(t, "5511987650000", again.PhoneNumber)
}

func TestEnsureRefusesNilAndPassesOtherErrors(t *testing.T) {
	c, m := newMock(t, jsonResp(404, errBody(apiErr{status: 404, code: convo.CodeChannelNotFound, message: "Channel not found"}, "POST", "/chatapp/contacts", "ERR-1")))
	_, _, err := c.Contacts.Ensure(context.Background(), nil)
	require.Error(t, err)
	_, created, err := c.Contacts.Ensure(context.Background(), &convo.CreateContactParams{PhoneNumberID: "x", PhoneNumber: "5511987650000", Name: "A"})
	assert.ErrorIs(t, err, convo.ErrChannelNotFound)
	assert.False(t, created)
	assert.Len(t, m.requests(), 1, "no lookup after a failure other than CONTACT_EXISTS")
}

func TestInvalidTextIsRefusedBeforeAnyRequest(t *testing.T) {
	c, m := newMock(t, channelsOK)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
	}{
		{"invalid UTF-8 in a body field", func() error {
			_, err := c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "1", PhoneNumber: "5511987654321", Name: "Ana\xff"})
			return err
		}},
		{"NUL in a body field", func() error {
			_, err := c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "1", PhoneNumber: "5511987654321", Name: "Ana\x00"})
			return err
		}},
		{"invalid UTF-8 in a custom field name", func() error {
			_, err := c.Contacts.UpdateCustomFields(ctx, &convo.UpdateCustomFieldsParams{PhoneNumber: "5511987654321", CustomFields: map[string]string{"pl\xc3an": "gold"}})
			return err
		}},
		{"invalid UTF-8 in a query value", func() error {
			_, err := c.Contacts.Lookup(ctx, &convo.LookupContactParams{PhoneNumber: "55\xff"})
			return err
		}},
		{"NUL in a query value", func() error {
			_, err := c.Conversations.List(ctx, &convo.ListConversationsParams{Phone: "5511\x00"})
			return err
		}},
		{"invalid UTF-8 in a path id", func() error {
			_, err := c.Messages.List(ctx, "conv\xff", nil)
			return err
		}},
		{"NUL in a Do path", func() error {
			return c.Do(ctx, "GET", "/x/a%00b", nil, nil, nil)
		}},
		{"NUL in a Do body", func() error {
			return c.Do(ctx, "POST", "/chatapp/tags", nil, map[string]any{"names": []string{"vip\x00"}}, nil)
		}},
		{"NUL escaped in a raw JSON body", func() error {
			return c.Do(ctx, "POST", "/chatapp/tags", nil, []any{rawBody(`{"name":"a\u0000"}`)}, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			assert.ErrorIs(t, err, convo.ErrInvalidText)
			var ite *convo.InvalidTextError
			assert.ErrorAs(t, err, &ite)
		})
	}
	assert.Empty(t, m.requests())

	// A real U+FFFD, and the escape written by hand in raw JSON, are text.
	require.NoError(t, c.Do(ctx, "POST", "/chatapp/tags", nil, map[string]string{"name": "a\uFFFDb"}, nil))
	require.NoError(t, c.Do(ctx, "POST", "/chatapp/tags", nil, rawBody(`{"name":"a\ufffd"}`), nil))
}

// rawBody is raw JSON for Do's body, through a Marshaler.
func rawBody(s string) any { return rawJSON(s) }

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

func TestDoKeepsItsOldSignature(t *testing.T) {
	c, _ := newMock(t, channelsOK)
	var do func(context.Context, string, string, any, any, any, ...convo.Option) error = c.Do
	require.NoError(t, do(context.Background(), "GET", "/channels", nil, nil, nil))
	require.NoError(t, c.Do(context.Background(), "GET", "/channels", nil, nil, nil), "callers without options compile unchanged")
	assert.True(t, strings.HasPrefix(fmt.Sprint(c), "convo.Client{"))
}
