package convo_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
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

// bulkCreate creates n contacts through Parallel at concurrency 32 against a
// fake limited to perSecond requests (burst 10), 1 ms each way, and returns
// the run's time, the requests sent and the contacts created.
func bulkCreate(t *testing.T, n int, perSecond float64, finder bool) (took time.Duration, sent, created int) {
	s, err := fake.NewHandler(fake.WithRateLimit(perSecond, 10))
	require.NoError(t, err)
	co := s.Company()
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	c, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL("http://127.0.0.1/v1"),
		convo.WithHTTPClient(&http.Client{Transport: handlerTransport{h: s.Handler(), latency: time.Millisecond}}),
		convo.WithAdaptiveRate(finder), convo.WithMaxRetries(1000))
	require.NoError(t, err)
	phones := make([]string, n)
	for i := range phones {
		phones[i] = fmt.Sprintf("55119%08d", i)
	}
	start := time.Now()
	_, err = convo.Parallel(context.Background(), phones, func(ctx context.Context, phone string) (*convo.Confirmation, error) {
		return c.Contacts.Create(ctx, &convo.CreateContactParams{PhoneNumberID: "5511940000001", PhoneNumber: phone, Name: "N"})
	}, convo.ParallelLimit(32))
	require.NoError(t, err)
	took = time.Since(start)
	for _, r := range s.Requests() {
		if r.Method == http.MethodPost {
			sent++
			if r.Status == http.StatusCreated || r.Status == http.StatusOK {
				created++
			}
		}
	}
	return took, sent, created
}

// Under a rate limit, a bulk run finishes close to calls ÷ rate: the finder
// paces the client to the rate the service accepts instead of stopping every
// worker for the whole second each 429 asks. Nothing is lost or created
// twice (a 429 is refused before the service acts).
func TestRateFinderKeepsABulkRunNearTheLimit(t *testing.T) {
	for _, tt := range []struct {
		perSecond float64
		n         int
	}{{10, 60}, {100, 300}, {1000, 1500}} {
		t.Run(fmt.Sprint(tt.perSecond, "/s"), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ideal := time.Duration(float64(tt.n-10) / tt.perSecond * float64(time.Second)) // the burst is free
				for _, on := range []bool{true, false} {
					took, sent, created := bulkCreate(t, tt.n, tt.perSecond, on)
					assert.Equal(t, tt.n, created, "every contact created once")
					t.Logf("finder %v, %v/s: %d calls in %v (ideal %v, %.2f×), %d requests", on, tt.perSecond, tt.n,
						took.Round(time.Millisecond), ideal.Round(time.Millisecond), took.Seconds()/ideal.Seconds(), sent)
					if on {
						assert.LessOrEqual(t, took.Seconds()/ideal.Seconds(), 1.25)
					}
				}
			})
		})
	}
}

// Turn the rate finder off to meet the service's rate limit one 429 at a
// time (it is on by default).
func ExampleWithAdaptiveRate() {
	s := fake.NewServer()
	defer s.Close()
	client, err := convo.NewClient(convo.WithAPIKey(s.APIKey()), convo.WithBaseURL(s.URL()),
		convo.WithAdaptiveRate(false))
	if err != nil {
		log.Fatal(err)
	}
	accounts, err := client.Channels.List(context.Background())
	fmt.Println(len(accounts), err)
	// Output: 0 <nil>
}
