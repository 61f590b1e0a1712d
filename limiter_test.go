package convo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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
// calls + 32 (at 10 a second, under 8 + the larger of 15 % of the calls and
// one a second of the run). The other settings must lose and duplicate nothing and never
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
							assert.LessOrEqual(t, r.refused, oneClientRefusals(cell.rate, cell.n, r.took), "429 answers")
						}
					})
				})
			}
		}
	}
	t.Log("\n" + table.String())
}

// oneClientRefusals is the most 429s a bulk run of one default client may
// meet: 10 % of the calls + 32; at 10 a second, the bound of a fleet of
// one: 8 + the larger of 15 % of the calls and one a second of the run.
func oneClientRefusals(rate, calls int, took time.Duration) int {
	if rate <= 10 {
		return 8 + max(calls*15/100, int(took.Seconds()))
	}
	return calls/10 + 32
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

// scripted is a RateLimiter of a user's: it gives a turn once every
// interval (0: always), records every Take and Observe, and can fail Take.
type scripted struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
	fail     error
	changed  chan struct{}
	takes    []convo.Turn
	granted  int
	observed []convo.Outcome
}

func (s *scripted) Take(_ context.Context, t convo.Turn) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.takes = append(s.takes, t)
	if s.fail != nil {
		return 0, s.fail
	}
	now := time.Now()
	if d := s.next.Sub(now); d > 0 {
		return d, nil
	}
	s.next = now.Add(s.interval)
	s.granted++
	return 0, nil
}

func (s *scripted) Observe(_ convo.Turn, o convo.Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observed = append(s.observed, o)
}

// outcomes returns the kinds observed, in order.
func (s *scripted) outcomes() []convo.OutcomeKind {
	s.mu.Lock()
	defer s.mu.Unlock()
	var kinds []convo.OutcomeKind
	for _, o := range s.observed {
		kinds = append(kinds, o.Kind)
	}
	return kinds
}

// TestUserLimiterIsToldEveryOutcomeOnce: every turn a user's limiter gives
// is observed once, classified: accepted, refused with the Retry-After the
// client believes, or failed (no answer, a middleware that answered).
func TestUserLimiterIsToldEveryOutcomeOnce(t *testing.T) {
	tests := []struct {
		name   string
		faults []fake.Fault
		mw     convo.Middleware
		want   []convo.OutcomeKind
		ra     time.Duration // the Retry-After of the refusal, if any
	}{
		{"accepted", nil, nil, []convo.OutcomeKind{convo.OutcomeAccepted}, 0},
		{"refused, then accepted", []fake.Fault{{Status: http.StatusTooManyRequests, RetryAfter: 2 * time.Second, Times: 1}}, nil,
			[]convo.OutcomeKind{convo.OutcomeRefused, convo.OutcomeAccepted}, 2 * time.Second},
		{"an error answer is accepted", []fake.Fault{{Status: http.StatusNotFound, Code: convo.CodeContactNotFound, Times: 1}}, nil,
			[]convo.OutcomeKind{convo.OutcomeAccepted}, 0},
		{"a connection failed, then accepted", nil, failOnce(),
			[]convo.OutcomeKind{convo.OutcomeFailed, convo.OutcomeAccepted}, 0},
		{"a middleware answers", nil, func(r *http.Request, _ convo.MiddlewareNext) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(`{"success":true,"data":{"items":[]}}`)), Request: r}, nil
		}, []convo.OutcomeKind{convo.OutcomeFailed}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lim := &scripted{}
				opts := []convo.Option{convo.WithRateLimiter(lim)}
				if tt.mw != nil {
					opts = append(opts, convo.WithMiddleware(tt.mw))
				}
				s, c, _ := inMemoryFake(t, time.Millisecond, unlimited, opts...)
				for _, f := range tt.faults {
					s.AddFault(f)
				}
				_, _ = c.Channels.List(t.Context())
				assert.Equal(t, tt.want, lim.outcomes())
				assert.Equal(t, lim.granted, len(lim.observed), "one Observe per turn given")
				for _, o := range lim.observed {
					if o.Kind == convo.OutcomeRefused {
						assert.Equal(t, tt.ra, o.RetryAfter)
						assert.Equal(t, http.StatusTooManyRequests, o.StatusCode)
					}
					assert.False(t, o.Received.Before(o.Sent))
				}
			})
		})
	}
}

// failOnce is a middleware whose first request fails as a connection
// reset would, before it reaches the network.
func failOnce() convo.Middleware {
	var failed atomic.Bool
	return func(r *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
		if !failed.Swap(true) {
			return nil, errors.New("connection reset by peer")
		}
		return next(r)
	}
}

// TestUserLimiterKeepsTheHeldBound: a user's limiter whose turn would
// come after the call's maximum retry wait or its deadline holds the call
// at once, with no request sent, and a typed 429 of the client's own.
func TestUserLimiterKeepsTheHeldBound(t *testing.T) {
	tests := []struct {
		name     string
		wait     time.Duration // the limiter's next turn, from now
		opts     []convo.Option
		deadline time.Duration // 0: none
	}{
		{"past the maximum retry wait", time.Minute, nil, 0},
		{"past a shorter maximum", 2 * time.Second, []convo.Option{convo.WithMaxRetryWait(time.Second)}, 0},
		{"past the deadline", 5 * time.Second, nil, time.Second},
		{"past a day: told as the longest wait believed", 48 * time.Hour, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lim := &scripted{next: time.Now().Add(tt.wait)}
				_, c, tr := inMemoryFake(t, time.Millisecond, unlimited, append([]convo.Option{convo.WithRateLimiter(lim)}, tt.opts...)...)
				ctx := t.Context()
				if tt.deadline > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.deadline)
					defer cancel()
				}
				start := time.Now()
				_, err := c.Channels.List(ctx)
				var apiErr *convo.Error
				require.ErrorAs(t, err, &apiErr)
				assert.True(t, apiErr.Held)
				assert.Zero(t, apiErr.Attempts)
				assert.Zero(t, time.Since(start), "held at once, not at the bound")
				assert.Empty(t, tr.sent, "no request")
				assert.Equal(t, min(tt.wait, convo.MaxRetryAfter), apiErr.RetryAfter)
			})
		})
	}
}

// TestUserLimiterGivesRetriesTheNextTurn: with a user's limiter that gives
// one turn every 100 ms, a call refused once is sent again at the first
// turn after its Retry-After, before the first attempts that were waiting
// since before it.
func TestUserLimiterGivesRetriesTheNextTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := &scripted{interval: 100 * time.Millisecond}
		s, c, tr := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(lim))
		s.AddFault(fake.Fault{Path: "/conversations", Status: http.StatusTooManyRequests, RetryAfter: time.Second, Times: 1})
		var wg sync.WaitGroup
		var retriedAt time.Time
		wg.Go(func() {
			_, err := c.Conversations.List(t.Context(), nil) // refused once, then retried
			assert.NoError(t, err)
			retriedAt = time.Now()
		})
		time.Sleep(50 * time.Millisecond)
		for range 30 { // 3 s of first attempts, queued before the retry comes back
			wg.Go(func() {
				_, err := c.Channels.List(t.Context())
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		// The retry's Retry-After ends at 1 s; its turn is the first one after.
		assert.Less(t, retriedAt.Sub(tr.sent[0]), 1100*time.Millisecond+2*time.Millisecond)
		firstRetry := 0
		for i, tk := range lim.takes {
			if tk.Retry {
				firstRetry = i
				break
			}
		}
		assert.Positive(t, firstRetry, "first attempts asked before the retry came back")
	})
}

// TestUserLimiterWaitIsTracedOnce: each wait for a user's limiter is traced
// once, with the time it lasted.
func TestUserLimiterWaitIsTracedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := &scripted{interval: 250 * time.Millisecond}
		var mu sync.Mutex
		var waits []time.Duration
		trace := &convo.Trace{Wait: func(_ context.Context, _ convo.CallInfo, reason convo.WaitReason, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if reason == convo.WaitRateLimit {
				waits = append(waits, d)
			}
		}}
		_, c, _ := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(lim), convo.WithTrace(trace))
		for range 3 {
			_, err := c.Channels.List(t.Context())
			require.NoError(t, err)
		}
		// The first call's turn is at once; the next two wait out the rest
		// of the 250 ms each (the previous call took 1 ms).
		assert.Equal(t, []time.Duration{249 * time.Millisecond, 249 * time.Millisecond}, waits)
	})
}

// TestUserLimiterFailureFailsTheCall: a Take that fails fails the call,
// wrapped, before any request.
func TestUserLimiterFailureFailsTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("limit store unreachable")
		lim := &scripted{fail: boom}
		_, c, tr := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(lim))
		_, err := c.Channels.List(t.Context())
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), "rate limiter")
		assert.Empty(t, tr.sent)
	})
}

// wakeful is a scripted limiter with a Changed channel it closes when the
// turn comes sooner.
type wakeful struct{ scripted }

func (w *wakeful) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

func (w *wakeful) soonerAt(t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = t
	close(w.changed)
	w.changed = make(chan struct{})
}

// TestUserLimiterChangedWakesTheWaiter: an attempt that sleeps out a long
// wait asks again as soon as the limiter's Changed fires.
func TestUserLimiterChangedWakesTheWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := &wakeful{scripted{next: time.Now().Add(20 * time.Second), changed: make(chan struct{})}}
		_, c, _ := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(lim))
		go func() {
			time.Sleep(time.Second)
			lim.soonerAt(time.Now())
		}()
		start := time.Now()
		_, err := c.Channels.List(t.Context())
		require.NoError(t, err)
		assert.Equal(t, time.Second+time.Millisecond, time.Since(start))
	})
}

// TestUserLimiterNeverBeforeRetryAfter: even a limiter that always gives
// the turn cannot make a refused request go out again before its
// Retry-After.
func TestUserLimiterNeverBeforeRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := &scripted{}
		s, c, _ := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(lim))
		s.AddFault(fake.Fault{Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second, Times: 2})
		start := time.Now()
		_, err := c.Channels.List(t.Context())
		require.NoError(t, err)
		assert.GreaterOrEqual(t, time.Since(start), 6*time.Second)
		assert.Empty(t, fake.RequestsSentTooEarly(s.Requests()))
	})
}

// TestOneLimiterPacesSeveralClients: one FixedRate given to two clients
// paces them together, as one.
func TestOneLimiterPacesSeveralClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shared := convo.FixedRate(10)
		s, a, _ := inMemoryFake(t, time.Millisecond, unlimited, convo.WithRateLimiter(shared))
		b, err := convo.NewClient(convo.WithBaseURL("http://127.0.0.1/v1"), convo.WithAPIKey(s.APIKey()), convo.WithRateLimiter(shared),
			convo.WithHTTPClient(&http.Client{Transport: &inMemory{h: s.Handler(), latency: time.Millisecond}}))
		require.NoError(t, err)
		start := time.Now()
		var wg sync.WaitGroup
		for _, c := range []*convo.Client{a, b} {
			for range 10 {
				wg.Go(func() {
					_, err := c.Channels.List(t.Context())
					assert.NoError(t, err)
				})
			}
		}
		wg.Wait()
		// Twenty turns at 10 a second, the first at once (up to 25 ms of
		// slack): about two seconds, as one client's would take.
		took := time.Since(start)
		assert.True(t, took > 1800*time.Millisecond && took < 2*time.Second+10*time.Millisecond, "took %v", took)
	})
}
