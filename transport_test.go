package convo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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

// steadyBody yields chunk bytes every interval until size bytes are sent,
// then io.EOF; a read also ends when the request's context does, as a real
// transport's does. interval 0 with size < 0 never sends anything.
type steadyBody struct {
	ctx      context.Context
	interval time.Duration
	chunk    int
	left     int
}

func (b *steadyBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	wait := b.interval
	if b.left < 0 {
		wait = 24 * time.Hour
	}
	select {
	case <-b.ctx.Done():
		return 0, context.Cause(b.ctx)
	case <-time.After(wait):
	}
	n := min(len(p), b.chunk, b.left)
	for i := range n {
		p[i] = 'x'
	}
	b.left -= n
	return n, nil
}

func (b *steadyBody) Close() error { return nil }

// A server that sends its headers then nothing more: the call ends with a
// typed timeout once the default stall timeout has passed on every attempt.
func TestStalledBodyEndsWithATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := edgeClient(t, func(r *http.Request) *http.Response {
			return &http.Response{StatusCode: http.StatusOK, ContentLength: -1, Header: http.Header{},
				Body: &steadyBody{ctx: r.Context(), left: -1}}
		}, convo.WithMaxRetries(1), convo.WithRetryWait(time.Second, time.Second))
		start := time.Now()
		_, err := c.Channels.List(context.Background())
		require.ErrorIs(t, err, convo.ErrStalled)
		var te *convo.TransportError
		require.ErrorAs(t, err, &te)
		assert.True(t, te.Timeout())
		assert.Equal(t, 2, te.Attempts, "a GET is retried once")
		took := time.Since(start)
		assert.True(t, took >= 2*convo.DefaultStallTimeout+500*time.Millisecond && took <= 2*convo.DefaultStallTimeout+time.Second,
			"two stall timeouts and the jittered backoff: %v", took)
	})
}

// Headers that never come end the attempt too.
func TestStalledHeadersEndWithATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, context.Cause(r.Context())
		})
		c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL("http://127.0.0.1/v1"),
			convo.WithHTTPClient(&http.Client{Transport: rt}), convo.WithMaxRetries(0), convo.WithStallTimeout(5*time.Second))
		require.NoError(t, err)
		start := time.Now()
		_, err = c.Channels.List(context.Background())
		require.ErrorIs(t, err, convo.ErrStalled)
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}

// A 50 MiB download that trickles steadily for two minutes is never cut: the
// stall timeout restarts on every byte.
func TestSteadyDownloadIsNeverCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size = 50 << 20
		file := func(r *http.Request) *http.Response {
			// 50 MiB over 2 minutes: 32 KiB every 75 ms.
			return &http.Response{StatusCode: http.StatusOK, ContentLength: size, Header: http.Header{},
				Body: &steadyBody{ctx: r.Context(), interval: 75 * time.Millisecond, chunk: 32 << 10, left: size}}
		}
		c := edgeClient(t, file, convo.WithStallTimeout(3*time.Second))
		var out bytes.Buffer
		start := time.Now()
		n, err := c.Attachments.DownloadAttachment(context.Background(),
			&convo.Attachment{URL: "http://127.0.0.1/files/a.bin", ExpiresAt: time.Now().Add(time.Hour), FileSize: size}, &out)
		require.NoError(t, err)
		assert.Equal(t, int64(size), n)
		assert.GreaterOrEqual(t, time.Since(start), 2*time.Minute, "it took the whole two minutes")
	})
}

func TestStallTimeoutOption(t *testing.T) {
	_, err := convo.NewClient(convo.WithAPIKey("k"), convo.WithBaseURL("http://127.0.0.1/v1"), convo.WithStallTimeout(-time.Second))
	require.ErrorContains(t, err, "WithStallTimeout: negative duration")
	c, err := convo.NewClient(convo.WithAPIKey("k"), convo.WithBaseURL("http://127.0.0.1/v1"))
	require.NoError(t, err)
	_, err = c.Channels.List(t.Context(), convo.WithStallTimeout(time.Second))
	require.ErrorContains(t, err, "WithStallTimeout applies to NewClient, not to a call")
}

// Abandon an attempt that receives nothing for a while; a slow but steady
// transfer is never cut.
func ExampleWithStallTimeout() {
	s := fake.NewServer()
	defer s.Close()
	s.AddFault(fake.Fault{Path: "/channels", Latency: time.Minute}) // headers that never come

	client, err := convo.NewClient(
		convo.WithAPIKey(s.APIKey()),
		convo.WithBaseURL(s.URL()),
		convo.WithStallTimeout(50*time.Millisecond), // the default is 30 s; 0 turns it off
		convo.WithMaxRetries(0),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = client.Channels.List(context.Background())
	fmt.Println("stalled:", errors.Is(err, convo.ErrStalled))
	// Output: stalled: true
}

// Many goroutines on one client reuse their connections: the default
// transport keeps enough idle ones per host, and opens no more than
// DefaultMaxConnsPerHost.
func TestDefaultTransportReusesConnectionsUnderConcurrency(t *testing.T) {
	goroutines, calls := 200, 20
	if testing.Short() {
		calls = 5
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":true,"data":{"items":[]}}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL(srv.URL+"/v1"))
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range calls {
				_, err := c.Channels.List(t.Context())
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, conns.Load(), int64(convo.DefaultMaxConnsPerHost), "connections opened for %d calls", goroutines*calls)
}
