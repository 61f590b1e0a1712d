package convo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// handlerTransport serves requests with a handler after a one-way latency,
// in the bubble's fake time.
type handlerTransport struct {
	h       http.Handler
	latency time.Duration
}

func (m handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(m.latency)
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	time.Sleep(m.latency)
	return rec.Result(), nil
}

// limiterKinds are the three kinds of request limit the fake can be, at a
// rate per second (the token bucket with a burst of 10).
var limiterKinds = []struct {
	name string
	opt  func(rate int) fake.Option
}{
	{"token bucket", func(rate int) fake.Option { return fake.WithRateLimit(float64(rate), 10) }},
	{"fixed window", func(rate int) fake.Option { return fake.WithFixedWindowLimit(rate, time.Second) }},
	{"sliding window", func(rate int) fake.Option { return fake.WithSlidingWindowLimit(rate, time.Second) }},
}

// bulkCells are the rates of the bulk runs and the contacts each creates.
var bulkCells = []struct{ rate, n int }{{10, 200}, {100, 1000}, {1000, 5000}}

// bulkResult is what a bulk run did, judged from the fake's journal.
type bulkResult struct {
	took       time.Duration
	failed     int // calls that returned an error
	duplicates int // phones created twice, or answered CONTACT_EXISTS
	early      int // requests sent again before their 429's Retry-After had passed
	refused    int // 429 answers
	requests   int
}

// bulkCreate creates n contacts through Parallel at concurrency 32, 5 ms a
// request, against a fake limited by limit, with the client's default retry
// budget, and judges the run from the fake's journal.
func bulkCreate(t *testing.T, limit fake.Option, n int, copts ...convo.Option) bulkResult {
	s, err := fake.NewHandler(limit, fake.WithJournalLimit(4*n+1000), fake.WithJournalBytes(1<<30))
	require.NoError(t, err)
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	c, err := convo.NewClient(append([]convo.Option{convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
		convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler(), latency: 2500 * time.Microsecond}})}, copts...)...)
	require.NoError(t, err)
	phones := make([]string, n)
	for i := range phones {
		phones[i] = fmt.Sprintf("55119%08d", i)
	}
	start := time.Now()
	_, err = convo.Parallel(context.Background(), phones, func(ctx context.Context, phone string) (*convo.Confirmation, error) {
		return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "5511940000001", PhoneNumber: phone, Name: "N"})
	}, convo.ParallelLimit(32), convo.ParallelCollectAll())
	r := bulkResult{took: time.Since(start)}
	var itemErr *convo.ItemError
	for _, e := range unjoin(err) {
		if errors.As(e, &itemErr) {
			r.failed++
		}
	}
	r.judge(s.RequestsMatching(http.MethodPost, "/chatapp/contacts"))
	r.early = len(fake.RequestsSentTooEarly(s.Requests()))
	return r
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// judge reads the journal: per phone (the body), what it was answered.
func (r *bulkResult) judge(reqs []fake.Request) {
	byBody := map[string][]fake.Request{}
	for _, q := range reqs {
		byBody[string(q.Body)] = append(byBody[string(q.Body)], q)
	}
	r.requests = len(reqs)
	for _, list := range byBody {
		created := 0
		for _, q := range list {
			switch q.Status {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
				r.duplicates++
			case http.StatusTooManyRequests:
				r.refused++
			}
		}
		r.duplicates += max(0, created-1)
	}
}

// TestLimiterKeepsABulkRunNearEveryKindOfLimit is the bulk run of every
// kind of limit at 10, 100 and 1,000 requests a second, with the default
// limiter and with each other setting (go test -run
// TestLimiterKeepsABulkRunNearEveryKindOfLimit -v prints the table). With
// the adaptive limiter: no call fails on the default retry budget, nothing
// is created twice, no request is sent before its Retry-After, the run
// takes at most 1.25 × calls ÷ rate + 1 s, and 429s stay under 10 % of the
// calls + 32. The other settings must lose and duplicate nothing and never
// anticipate a Retry-After; their time and 429s are reported.
func TestLimiterKeepsABulkRunNearEveryKindOfLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("the bulk runs take a few seconds of CPU")
	}
	settings := []struct {
		name string
		opts func(rate int) []convo.Option
	}{
		{"adaptive (default)", func(int) []convo.Option { return nil }},
		{"fixed at the rate", func(rate int) []convo.Option {
			return []convo.Option{convo.WithRateLimiter(convo.FixedRate(float64(rate)))}
		}},
		{"off, retries 10", func(int) []convo.Option {
			return []convo.Option{convo.WithRateLimiter(convo.NoRateLimiter()), convo.WithMaxRetries(10)}
		}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-20s %-15s %6s %6s %9s %6s %5s %5s %5s %6s\n", "setting", "limit", "rate", "calls", "time", "×ideal", "fail", "dup", "early", "429s")
	for _, set := range settings {
		for _, kind := range limiterKinds {
			for _, cell := range bulkCells {
				name := fmt.Sprintf("%s/%s/%d", set.name, kind.name, cell.rate)
				t.Run(name, func(t *testing.T) {
					opts := set.opts(cell.rate)
					synctest.Test(t, func(t *testing.T) {
						r := bulkCreate(t, kind.opt(cell.rate), cell.n, opts...)
						ideal := time.Duration(float64(cell.n) / float64(cell.rate) * float64(time.Second))
						fmt.Fprintf(&table, "%-20s %-15s %6d %6d %9v %6.2f %5d %5d %5d %6d\n", set.name, kind.name, cell.rate, cell.n,
							r.took.Round(time.Millisecond), r.took.Seconds()/ideal.Seconds(), r.failed, r.duplicates, r.early, r.refused)
						assert.Zero(t, r.duplicates, "a phone created twice, or answered CONTACT_EXISTS")
						assert.Zero(t, r.early, "a request sent again before its Retry-After")
						assert.Zero(t, r.failed, "failed calls")
						if opts == nil {
							assert.LessOrEqual(t, r.took, ideal*5/4+time.Second, "wall time")
							assert.LessOrEqual(t, r.refused, cell.n/10+32, "429 answers")
						}
					})
				})
			}
		}
	}
	t.Log("\n" + table.String())
}

// The anomaly report has its own limit (about one pass a day): its 429
// holds anomaly calls only, and teaches the client's limiter nothing —
// other calls go straight through, unpaced.
func TestAnomalyLimitHoldsOnlyAnomalyCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c, tr := inMemoryFake(t, time.Millisecond, unlimited)
		s.AddFault(fake.Fault{Path: "/conversations/anomalies", Status: http.StatusTooManyRequests, RetryAfter: 6 * time.Hour, Times: 1})
		ctx := context.Background()

		_, err := c.Anomalies.Get(ctx, nil)
		require.ErrorIs(t, err, convo.ErrRateLimited, "6 h is beyond the default maximum retry wait")
		var apiErr *convo.Error
		_, err = c.Anomalies.Get(ctx, nil)
		require.ErrorAs(t, err, &apiErr)
		assert.True(t, apiErr.Held, "held by the report's own Retry-After, not sent")
		assert.Zero(t, apiErr.Attempts)
		assert.Greater(t, apiErr.RetryAfter, 5*time.Hour)
		assert.Len(t, tr.sent, 1)

		for range 20 {
			start := time.Now()
			_, err = c.Channels.List(ctx)
			require.NoError(t, err, "other calls are not held")
			assert.Equal(t, tr.latency, time.Since(start), "nor paced: the request's own trip only")
		}
	})
}

// A call whose deadline or maximum retry wait ends before the limiter's
// next turn fails at once with a 429 of the client's own (Error.Held),
// without a request; a call that may wait is sent at its turn.
func TestHeldCallFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c, tr := inMemoryFake(t, time.Millisecond, unlimited, convo.WithMaxRetries(0))
		s.AddFault(fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: time.Second, Times: 1})
		ctx := context.Background()
		_, err := c.Channels.List(ctx)
		require.ErrorIs(t, err, convo.ErrRateLimited, "no retry budget: the 429 itself")

		short, cancel := context.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = c.Channels.List(short)
		var apiErr *convo.Error
		require.ErrorAs(t, err, &apiErr)
		assert.True(t, apiErr.Held)
		assert.True(t, apiErr.Temporary())
		assert.Zero(t, apiErr.Attempts, "held before any request")
		assert.Positive(t, apiErr.RetryAfter)
		assert.Zero(t, time.Since(start))
		assert.Len(t, tr.sent, 1)

		_, err = c.Channels.List(ctx)
		require.NoError(t, err, "a call that may wait is sent at its turn")
		assert.Len(t, tr.sent, 2)
	})
}
