package convo_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
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

// fileHost is a file host in memory, for a synctest bubble: it answers each
// request with answer, and notes every request and when it came.
type fileHost struct {
	answer func(r *http.Request) *http.Response

	mu    sync.Mutex
	seen  []string // the Range header of each request
	times []time.Time
}

func (h *fileHost) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get("Range"))
	h.times = append(h.times, time.Now())
	h.mu.Unlock()
	time.Sleep(time.Millisecond)
	resp := h.answer(r)
	resp.Request = r
	return resp, nil
}

// cutReader gives n bytes of its data, then fails as a cut connection.
type cutReader struct {
	data []byte
	n    int
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.n <= 0 || len(c.data) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := copy(p, c.data[:min(len(c.data), c.n, len(p))])
	c.data, c.n = c.data[k:], c.n-k
	return k, nil
}

func (c *cutReader) Close() error { return nil }

func fileClient(t *testing.T, host *fileHost, opts ...convo.Option) *convo.Client {
	t.Helper()
	c, err := convo.NewClient(append([]convo.Option{convo.WithAPIKey("key-0123456789"),
		convo.WithBaseURL("http://127.0.0.1:1/v1"), convo.WithHTTPClient(&http.Client{Transport: host})}, opts...)...)
	require.NoError(t, err)
	return c
}

// A host that cuts every answer after 10 bytes: the download resumes with
// waits between its requests, and gives up after its bound of requests
// (4 × (1 + retries): 24 by default) with a typed error.
func TestDownloadFromAHostThatAlwaysCutsIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		file := bytes.Repeat([]byte("0123456789"), 1000)
		host := &fileHost{answer: func(r *http.Request) *http.Response {
			var from int
			status := http.StatusOK
			h := http.Header{}
			if rg := r.Header.Get("Range"); rg != "" {
				_, _ = fmt.Sscanf(rg, "bytes=%d-", &from)
				status = http.StatusPartialContent
				h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(file)-1, len(file)))
			}
			return &http.Response{StatusCode: status, Header: h, ContentLength: int64(len(file) - from),
				Body: &cutReader{data: file[from:], n: 10}}
		}}
		c := fileClient(t, host)
		start := time.Now()
		n, err := c.Attachments.DownloadAttachment(t.Context(), &convo.Attachment{URL: "http://127.0.0.1:2/f", FileSize: int64(len(file))}, io.Discard)
		took := time.Since(start)
		require.ErrorIs(t, err, convo.ErrIncompleteDownload)
		assert.Contains(t, err.Error(), "after 24 requests")
		assert.Len(t, host.seen, 24, "the bound: 4 × (1 + 5 retries)")
		assert.Equal(t, int64(240), n, "10 bytes a request, each resumed from the byte reached")
		assert.Equal(t, "bytes=230-", host.seen[23])
		for i := 1; i < len(host.times); i++ {
			gap := host.times[i].Sub(host.times[i-1])
			assert.GreaterOrEqual(t, gap, convo.DefaultRetryWaitMin/2, "a wait between requests %d and %d", i, i+1)
		}
		t.Logf("24 requests in %v", took)
	})
}

func TestDownloadTakesTheBodyAsItIs(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(bytes.Repeat([]byte("a"), 1<<20)) // 1 MiB that compresses to about a kilobyte
	require.NoError(t, zw.Close())
	tests := []struct {
		name     string
		att      convo.Attachment
		answer   func(r *http.Request) *http.Response
		wantN    int64
		wantErr  error
		wantText string
	}{
		{
			name: "a body over file_size is refused at file_size",
			att:  convo.Attachment{FileSize: 1000},
			answer: func(*http.Request) *http.Response {
				return &http.Response{StatusCode: 200, ContentLength: -1, Body: io.NopCloser(io.LimitReader(zeros{}, 200<<20))}
			},
			wantN: 1000, wantErr: convo.ErrResponseTooLarge,
		},
		{
			name: "a gzip-encoded file is written as sent, not inflated",
			att:  convo.Attachment{},
			answer: func(r *http.Request) *http.Response {
				if r.Header.Get("Accept-Encoding") != "identity" {
					panic("the file request must ask for the identity encoding")
				}
				return &http.Response{StatusCode: 200, ContentLength: int64(gz.Len()),
					Header: http.Header{"Content-Encoding": {"gzip"}}, Body: io.NopCloser(bytes.NewReader(gz.Bytes()))}
			},
			wantN: int64(gz.Len()),
		},
		{
			name: "a 206 to a request without Range is refused",
			att:  convo.Attachment{},
			answer: func(*http.Request) *http.Response {
				return &http.Response{StatusCode: 206, ContentLength: 5, Header: http.Header{"Content-Range": {"bytes 10-14/15"}},
					Body: io.NopCloser(strings.NewReader("later"))}
			},
			wantText: "206 to a request without Range",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				host := &fileHost{answer: tt.answer}
				c := fileClient(t, host)
				att := tt.att
				att.URL = "http://127.0.0.1:2/f"
				var out bytes.Buffer
				n, err := c.Attachments.DownloadAttachment(t.Context(), &att, &out)
				assert.Equal(t, tt.wantN, n)
				assert.Equal(t, int(tt.wantN), out.Len())
				switch {
				case tt.wantErr != nil:
					require.ErrorIs(t, err, tt.wantErr)
				case tt.wantText != "":
					require.ErrorContains(t, err, tt.wantText)
				default:
					require.NoError(t, err)
					assert.Equal(t, gz.Bytes(), out.Bytes())
				}
				assert.Len(t, host.seen, 1, "refusals of the body are not retried")
			})
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// The requests to the file host are attempts like any other: they pass
// through the middleware and are traced under AttachmentFileRoute, without
// the key.
func TestFileRequestsPassThroughMiddlewareAndTrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		host := &fileHost{answer: func(r *http.Request) *http.Response {
			calls++
			if calls == 1 {
				return &http.Response{StatusCode: 200, ContentLength: 8, Body: &cutReader{data: []byte("abcdefgh"), n: 3}}
			}
			return &http.Response{StatusCode: 206, ContentLength: 5, Header: http.Header{"Content-Range": {"bytes 3-7/8"}},
				Body: io.NopCloser(strings.NewReader("defgh"))}
		}}
		var seen []string
		mw := func(req *http.Request, next convo.MiddlewareNext) (*http.Response, error) {
			call, _ := convo.CallFromContext(req.Context())
			seen = append(seen, fmt.Sprintf("%s %s attempt %d auth=%q", call.Method, call.Route, call.Attempt, req.Header.Get("Authorization")))
			return next(req)
		}
		var events []string
		tr := &convo.Trace{
			CallStart: func(ctx context.Context, call convo.CallInfo) context.Context {
				events = append(events, "start "+call.Route)
				return ctx
			},
			Wait: func(_ context.Context, call convo.CallInfo, reason convo.WaitReason, d time.Duration) {
				events = append(events, fmt.Sprintf("wait %s after attempt %d", reason, call.Attempt))
			},
			CallDone: func(_ context.Context, call convo.CallInfo, resp convo.Response, err error) {
				events = append(events, fmt.Sprintf("done %s attempts=%d status=%d err=%v", call.Route, resp.Attempts, resp.StatusCode, err != nil))
			},
		}
		c := fileClient(t, host, convo.WithMiddleware(mw), convo.WithTrace(tr))
		var out bytes.Buffer
		n, err := c.Attachments.DownloadAttachment(t.Context(), &convo.Attachment{URL: "http://127.0.0.1:2/f", FileSize: 8}, &out)
		require.NoError(t, err)
		assert.Equal(t, int64(8), n)
		assert.Equal(t, "abcdefgh", out.String())
		route := convo.AttachmentFileRoute
		assert.Equal(t, []string{
			`GET ` + route + ` attempt 1 auth=""`,
			`GET ` + route + ` attempt 2 auth=""`,
		}, seen)
		assert.Equal(t, []string{
			"start " + route,
			"wait retry after attempt 1",
			"done " + route + " attempts=2 status=206 err=false",
		}, events)
		assert.Equal(t, []string{"", "bytes=3-"}, host.seen)
	})
}
