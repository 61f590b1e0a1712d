package convo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// The service the limiter tests run against, in a testing/synctest bubble:
// the fake (as one of its three kinds of limit) behind a one-way latency,
// with an optional gate in front of it (a storm, a limit that changes while
// the test runs), recording every attempt of every client. Clients are told
// apart by a header; calls by their body (one phone each).

// simKind is one kind of request limit the fake can be.
type simKind struct {
	name string
	opt  func(rate, burst int) fake.Option
}

var simKinds = []simKind{
	{"token bucket", func(rate, burst int) fake.Option { return fake.WithRateLimit(float64(rate), burst) }},
	{"fixed window", func(rate, _ int) fake.Option { return fake.WithFixedWindowLimit(rate, time.Second) }},
	{"sliding window", func(rate, _ int) fake.Option { return fake.WithSlidingWindowLimit(rate, time.Second) }},
}

// simExchange is one attempt as the service saw it.
type simExchange struct {
	at         time.Time // when the service decided it
	client     int
	body       string
	status     int
	retryAfter time.Duration
}

// simService is the service, and what it saw.
type simService struct {
	fake    *fake.Server
	latency time.Duration // one way: the round trip is twice this
	gate    func(r *http.Request) *http.Response

	mu  sync.Mutex
	log []simExchange
}

// newSimService starts the fake with limit (nil: none) and the one chat
// line the contacts are created on.
func newSimService(t *testing.T, limit fake.Option, latency time.Duration) *simService {
	t.Helper()
	opts := []fake.Option{fake.WithJournalLimit(0)}
	if limit != nil {
		opts = append(opts, limit)
	} else {
		opts = append(opts, fake.WithRateLimit(0, 0))
	}
	s, err := fake.NewHandler(opts...)
	require.NoError(t, err)
	s.Company().AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: simLine})
	return &simService{fake: s, latency: latency}
}

const simLine = "5511940000001"

// setGate puts g in front of the fake (nil: none): it answers a request
// itself, or returns nil to let the fake answer.
func (s *simService) setGate(g func(r *http.Request) *http.Response) {
	s.mu.Lock()
	s.gate = g
	s.mu.Unlock()
}

func (s *simService) RoundTrip(r *http.Request) (*http.Response, error) {
	time.Sleep(s.latency)
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
	}
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	var resp *http.Response
	if gate != nil {
		resp = gate(r)
	}
	if resp == nil {
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.fake.Handler().ServeHTTP(rec, r)
		resp = rec.Result()
	}
	client, _ := strconv.Atoi(r.Header.Get("X-Sim-Client"))
	ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	s.mu.Lock()
	s.log = append(s.log, simExchange{at: time.Now(), client: client, body: string(body), status: resp.StatusCode,
		retryAfter: time.Duration(ra) * time.Second})
	s.mu.Unlock()
	time.Sleep(s.latency)
	return resp, nil
}

// exchanges returns what the service saw, in time order.
func (s *simService) exchanges() []simExchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]simExchange(nil), s.log...)
}

// refuseAll is a gate that answers every request 429 with retryAfter, as a
// service in a storm does.
func refuseAll(retryAfter time.Duration) func(*http.Request) *http.Response {
	return func(*http.Request) *http.Response { return tooMany(retryAfter) }
}

// tooMany is a 429 RATE_LIMITED with a whole-second Retry-After.
func tooMany(wait time.Duration) *http.Response {
	secs := int64(math.Ceil(wait.Seconds()))
	rec := httptest.NewRecorder()
	rec.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(http.StatusTooManyRequests)
	_, _ = rec.WriteString(`{"success":false,"statusCode":429,"timestamp":"2026-11-22T10:04:05.123Z","path":"/api/v1/chatapp/contacts",` +
		`"method":"POST","message":{"error":"RATE_LIMITED","message":"Too many requests"},"errorId":"ERR-AAAAAAAA-AAAA"}`)
	return rec.Result()
}

// bucketGate is a token bucket in front of the fake whose rate the test
// changes while it runs: the service's limit dropping and rising again.
type bucketGate struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newBucketGate(rate float64, burst int) *bucketGate {
	return &bucketGate{rate: rate, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

func (b *bucketGate) setRate(rate float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	b.rate = rate
}

func (b *bucketGate) refill(now time.Time) {
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
}

func (b *bucketGate) gate(*http.Request) *http.Response {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(time.Now())
	if b.tokens >= 1-1e-9 {
		b.tokens = max(0, b.tokens-1)
		return nil
	}
	return tooMany(time.Duration((1 - b.tokens) / b.rate * float64(time.Second)))
}

// simClient is one client of a run: its options, its calls and how many
// it runs at once, and when it starts.
type simClient struct {
	opts        []convo.Option
	calls       int
	concurrency int
	start       time.Duration // after the run's start
}

// simOutcome is what each client and the service did in a run.
type simOutcome struct {
	start  time.Time
	took   time.Duration   // until the last client finished
	finish []time.Duration // each client's, from its own start
	failed []int           // each client's failed calls
	errs   []error         // a failed call's error, per client (the first)
	log    []simExchange
	calls  []int
	starts []time.Duration
	// capacity is the most the clients together can send a second: each
	// client's calls at once over the service's round trip (+Inf when a
	// client's calls at once or the round trip is not set).
	capacity float64
}

// runClients runs every client against svc, each creating its calls
// contacts through Parallel, and returns what happened.
func runClients(t *testing.T, svc *simService, clients []simClient) simOutcome {
	t.Helper()
	out := simOutcome{start: time.Now(), finish: make([]time.Duration, len(clients)), failed: make([]int, len(clients)),
		errs: make([]error, len(clients)), calls: make([]int, len(clients)), starts: make([]time.Duration, len(clients))}
	var wg sync.WaitGroup
	for k, spec := range clients {
		out.calls[k], out.starts[k] = spec.calls, spec.start
		if spec.concurrency > 0 && svc.latency > 0 {
			out.capacity += float64(spec.concurrency) / (2 * svc.latency).Seconds()
		} else {
			out.capacity = math.Inf(1) // no bound known
		}
		opts := append([]convo.Option{convo.WithAPIKey(svc.fake.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
			convo.WithHTTPClient(&http.Client{Transport: svc}), convo.WithHeader("X-Sim-Client", strconv.Itoa(k))}, spec.opts...)
		c, err := convo.NewClient(opts...)
		require.NoError(t, err)
		phones := make([]string, spec.calls)
		for i := range phones {
			phones[i] = fmt.Sprintf("55%02d9%08d", k+10, i)
		}
		wg.Go(func() {
			time.Sleep(spec.start)
			begin := time.Now()
			_, err := convo.Parallel(context.Background(), phones, func(ctx context.Context, phone string) (*convo.Confirmation, error) {
				return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: simLine, PhoneNumber: phone, Name: "N"})
			}, convo.ParallelLimit(spec.concurrency), convo.ParallelCollectAll())
			out.finish[k] = time.Since(begin)
			for _, e := range unjoin(err) {
				out.failed[k]++
				var item *convo.ItemError
				if out.errs[k] == nil && errors.As(e, &item) {
					out.errs[k] = item.Err
				}
			}
		})
	}
	wg.Wait()
	out.took = time.Since(out.start)
	out.log = svc.exchanges()
	return out
}

// totalFailed is the calls that failed, every client's.
func (o simOutcome) totalFailed() int {
	n := 0
	for _, f := range o.failed {
		n += f
	}
	return n
}

// refused counts the 429 answers.
func (o simOutcome) refused() int {
	n := 0
	for _, x := range o.log {
		if x.status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// duplicates counts phones created twice, and CONTACT_EXISTS answers.
func (o simOutcome) duplicates() int {
	created := map[string]int{}
	n := 0
	for _, x := range o.log {
		switch x.status {
		case http.StatusCreated:
			created[x.body]++
		case http.StatusConflict:
			n++
		}
	}
	for _, c := range created {
		n += max(0, c-1)
	}
	return n
}

// early counts requests sent again before the Retry-After of the 429 that
// refused the same call had passed.
func (o simOutcome) early() int {
	until := map[string]time.Time{}
	n := 0
	for _, x := range o.log {
		if end, ok := until[x.body]; ok && x.at.Before(end) {
			n++
		}
		if x.status == http.StatusTooManyRequests && x.retryAfter > 0 {
			until[x.body] = x.at.Add(x.retryAfter)
		}
	}
	return n
}

// jain is Jain's fairness index over the clients' throughputs (a client's
// calls over its finish time): 1 when all are equal, 1/K when one has it
// all.
func (o simOutcome) jain() float64 {
	var sum, sq float64
	for k, f := range o.finish {
		x := float64(o.calls[k]) / f.Seconds()
		sum += x
		sq += x * x
	}
	return sum * sum / (float64(len(o.finish)) * sq)
}

// accepted counts the answers other than 429 in [from, to) after the run's
// start, of the clients in who (nil: all).
func (o simOutcome) accepted(from, to time.Duration, who ...int) int {
	n := 0
	for _, x := range o.log {
		at := x.at.Sub(o.start)
		if at < from || at >= to || x.status == http.StatusTooManyRequests {
			continue
		}
		if len(who) == 0 || slicesContains(who, x.client) {
			n++
		}
	}
	return n
}

// attempts counts the requests, and the 429s among them, in [from, to).
func (o simOutcome) attempts(from, to time.Duration) (all, refused int) {
	for _, x := range o.log {
		if at := x.at.Sub(o.start); at >= from && at < to {
			all++
			if x.status == http.StatusTooManyRequests {
				refused++
			}
		}
	}
	return all, refused
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// timeline writes, per step of the run, each client's accepted answers a
// second and its 429s in the step: "acc/ref" per client, a row per step.
func (o simOutcome) timeline(clients int, step time.Duration) string {
	type cell struct{ acc, ref int }
	rows := make([][]cell, int(o.took/step)+1)
	for i := range rows {
		rows[i] = make([]cell, clients)
	}
	for _, x := range o.log {
		i := int(x.at.Sub(o.start) / step)
		if i < 0 || i >= len(rows) || x.client < 0 || x.client >= clients {
			continue
		}
		if x.status == http.StatusTooManyRequests {
			rows[i][x.client].ref++
		} else {
			rows[i][x.client].acc++
		}
	}
	var b strings.Builder
	perSecond := float64(time.Second) / float64(step)
	for i, row := range rows {
		fmt.Fprintf(&b, "%7.2fs", (time.Duration(i) * step).Seconds())
		for _, c := range row {
			fmt.Fprintf(&b, " %5.0f/%-3d", float64(c.acc)*perSecond, c.ref)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
