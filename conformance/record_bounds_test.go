package conformance_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/conformance"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mib = 1 << 20

// filler reads n bytes of a JSON-looking text (n < 0: without end), without
// allocating.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, io.EOF
	}
	if f.n > 0 && int64(len(p)) > f.n {
		p = p[:f.n]
	}
	for i := range p {
		p[i] = 'a'
	}
	if f.n > 0 {
		f.n -= int64(len(p))
	}
	return len(p), nil
}

// upstream answers every request with a JSON body of size bytes (negative:
// endless, with no Content-Length).
func upstream(size int64) http.RoundTripper {
	return roundTrip(func(req *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json"}}
		return &http.Response{StatusCode: 200, Header: h, ContentLength: size, Request: req,
			Body: io.NopCloser(&filler{n: size})}, nil
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRecorderBoundsWhatItHolds: answers longer than the recorder's cap, a
// 200 MiB one and an endless one, are recorded by their status only, in a
// short line, with less than twice the cap allocated, and reach the client
// whole.
func TestRecorderBoundsWhatItHolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int64
	}{{"200 MiB", 200 * mib}, {"endless", -1}} {
		t.Run(tc.name, func(t *testing.T) {
			var rec bytes.Buffer
			r := conformance.NewRecorder(&rec, conformance.RecorderOptions{MaxBodyBytes: mib})
			hc := &http.Client{Transport: r.Transport(upstream(tc.size))}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			resp, err := hc.Get("http://127.0.0.1:1/v1/channels")
			require.NoError(t, err)
			n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 3*mib))
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: the client read %d bytes; the recorder allocated %.2f MiB; the recording is %d bytes", tc.name, n, float64(allocated)/mib, rec.Len())
			assert.EqualValues(t, 3*mib, n, "the client reads the answer past the cap")
			assert.Less(t, allocated, uint64(2*mib), "allocated under twice the cap")
			assert.Less(t, rec.Len(), mib+4096, "the recording's line is at most the cap and a little")
			assert.Contains(t, rec.String(), `"body_over":`+strconv.Itoa(mib))
			require.NoError(t, r.Err())
		})
	}
}

// TestRecorderUnderTheClientsCap: a 200 MiB answer to a client capped at
// 1 MiB fails the call, as without the recorder, and the recording holds
// a short line.
func TestRecorderUnderTheClientsCap(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, &filler{n: 200 * mib})
	}))
	t.Cleanup(ts.Close)
	var rec bytes.Buffer
	r := conformance.NewRecorder(&rec, conformance.RecorderOptions{MaxBodyBytes: mib})
	client, err := convo.NewClient(convo.WithBaseURL(ts.URL+"/v1"), convo.WithAPIKey("k"), convo.WithMaxResponseBytes(mib),
		convo.WithMiddleware(r.Middleware), convo.WithMaxRetries(0))
	require.NoError(t, err)
	_, err = client.Channels.List(t.Context())
	require.Error(t, err)
	assert.Less(t, rec.Len(), 4096)
	assert.Equal(t, 2, strings.Count(rec.String(), "\n"), "the header and one exchange")
}
