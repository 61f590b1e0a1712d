package convo_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// trickle is a body that yields one byte every interval until it is closed,
// as a hostile or broken server does.
type trickle struct {
	interval time.Duration
	once     sync.Once
	closed   chan struct{}
	read     int
}

func newTrickle(interval time.Duration) *trickle {
	return &trickle{interval: interval, closed: make(chan struct{})}
}

func (b *trickle) Read(p []byte) (int, error) {
	select {
	case <-b.closed:
		return 0, errors.New("read on closed body")
	case <-time.After(b.interval):
		b.read++
		p[0] = 'x'
		return 1, nil
	}
}

func (b *trickle) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// edgeClient is a client whose every attempt is answered by answer.
func edgeClient(t *testing.T, answer func(*http.Request) *http.Response, opts ...convo.Option) *convo.Client {
	t.Helper()
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp := answer(r)
		resp.Request = r
		return resp, nil
	})
	c, err := convo.NewClient(append([]convo.Option{convo.WithAPIKey("key-0123456789"),
		convo.WithBaseURL("http://127.0.0.1/v1"), convo.WithHTTPClient(&http.Client{Transport: rt})}, opts...)...)
	require.NoError(t, err)
	return c
}

// A body announced at 10 GB, trickling a byte every 5 s, is refused at once
// on the success path and on a 429 (which is not retried into it), and is
// closed without being read.
func TestRefusedBodyReturnsAtOnce(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var bodies []*trickle
				c := edgeClient(t, func(*http.Request) *http.Response {
					b := newTrickle(5 * time.Second)
					bodies = append(bodies, b)
					return &http.Response{StatusCode: status, ContentLength: 10 << 30,
						Header: http.Header{"Retry-After": {"1"}}, Body: b}
				})
				start := time.Now()
				_, err := c.Channels.List(t.Context())
				require.ErrorIs(t, err, convo.ErrResponseTooLarge)
				assert.Less(t, time.Since(start), time.Second)
				require.Len(t, bodies, 1, "not retried")
				assert.Zero(t, bodies[0].read, "not read")
			})
		})
	}
}

// A retried answer's body that does not arrive at once is not waited for:
// the retry goes out after the backoff, not after the body.
func TestRetriedBodyIsNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		c := edgeClient(t, func(*http.Request) *http.Response {
			if calls++; calls == 1 {
				rest := newTrickle(5 * time.Second)
				return &http.Response{StatusCode: http.StatusServiceUnavailable, ContentLength: -1, Header: http.Header{},
					Body: struct {
						io.Reader
						io.Closer
					}{io.MultiReader(strings.NewReader("busy"), rest), rest}}
			}
			return &http.Response{StatusCode: http.StatusOK, ContentLength: -1, Header: http.Header{},
				Body: io.NopCloser(strings.NewReader(`{"success":true,"data":{"items":[]}}`))}
		}, convo.WithRetryWait(10*time.Millisecond, 10*time.Millisecond))
		start := time.Now()
		_, err := c.Channels.List(t.Context())
		require.NoError(t, err)
		assert.Less(t, time.Since(start), time.Second)
	})
}
