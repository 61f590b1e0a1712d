package convo_test

// Tests of Download and DownloadAttachment against real loopback servers: an
// API and a file host.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

type fileRig struct {
	client   *convo.Client
	api      *httptest.Server
	files    *httptest.Server
	apiCalls atomic.Int32

	mu       sync.Mutex
	fileReqs []*http.Request // clones, for header and URL assertions
}

func (r *fileRig) fileRequests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.fileReqs...)
}

// newFileRig starts a file host serving fileHandler and an API whose nth
// attachment exchange (1-based) answers attachment(n, fileHostURL).
func newFileRig(t *testing.T, fileHandler http.HandlerFunc, attachment func(n int, filesURL string) string, opts ...convo.Option) *fileRig {
	t.Helper()
	r := &fileRig{}
	r.files = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.fileReqs = append(r.fileReqs, req.Clone(context.Background()))
		r.mu.Unlock()
		fileHandler(w, req)
	}))
	t.Cleanup(r.files.Close)
	r.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/attachments/med-6" {
			http.NotFound(w, req)
			return
		}
		n := int(r.apiCalls.Add(1))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, ok(attachment(n, r.files.URL)))
	}))
	t.Cleanup(r.api.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// The caller's jar holds a cookie for the file host: it must never be sent.
	jar, _ := cookiejar.New(nil)
	filesURL, _ := url.Parse(r.files.URL)
	jar.SetCookies(filesURL, []*http.Cookie{{Name: "session", Value: "s3cr3t"}})
	base := []convo.Option{
		convo.WithAPIKey(testKey), convo.WithBaseURL(r.api.URL + "/v1"),
		convo.WithHTTPClient(&http.Client{Transport: tr, Jar: jar}), convo.WithRetryWait(0, 0),
	}
	c, err := convo.NewClient(append(base, opts...)...)
	require.NoError(t, err)
	r.client = c
	return r
}

// attachmentAt answers the exchange with a file address on the file host.
// exportedAttachment drops what the SDK keeps unexported (the receipt time
// on the local monotonic clock), so that two attachments compare by content.
func exportedAttachment(a *convo.Attachment) convo.Attachment {
	return convo.Attachment{MediaID: a.MediaID, URL: a.URL, ExpiresAt: a.ExpiresAt,
		MimeType: a.MimeType, FileSize: a.FileSize, Filename: a.Filename}
}

func attachmentAt(path string, expiresAt time.Time, size int64) func(int, string) string {
	return func(_ int, filesURL string) string {
		return fmt.Sprintf(`{"media_id":"med-6","url":%q,"expires_at":%q,"mime_type":"image/jpeg","file_size":%d,"filename":"receipt.jpg"}`,
			filesURL+path, expiresAt.UTC().Format("2006-01-02T15:04:05.000Z"), size)
	}
}

// patternReader yields an endless, allocation-free byte pattern.
type patternReader struct{ off int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte((p.off + int64(i)) * 7)
	}
	p.off += int64(len(b))
	return len(b), nil
}

// countingWriter counts bytes, checksums them and samples the heap as it goes.
type countingWriter struct {
	n        int64
	crc      uint32
	nextSamp int64
	peakHeap uint64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += int64(len(b))
	w.crc = crc32.Update(w.crc, crc32.IEEETable, b)
	if w.n >= w.nextSamp {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.peakHeap = max(w.peakHeap, ms.HeapInuse)
		w.nextSamp += 4 << 20
	}
	return len(b), nil
}

func TestAttachmentsDownloadStreamsLargeFile(t *testing.T) {
	const size = 64 << 20
	rig := newFileRig(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Header().Set("Content-Type", "video/mp4")
		_, _ = io.Copy(w, io.LimitReader(&patternReader{}, size))
	}, attachmentAt("/o/med-6?sig=s3cr3t", testTime.Add(10*time.Minute), size))

	h := crc32.NewIEEE()
	_, _ = io.Copy(h, io.LimitReader(&patternReader{}, size))
	want := h.Sum32()

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := &countingWriter{}
	n, err := rig.client.Attachments.Download(context.Background(), imageMsg, w)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)

	assert.Equal(t, int64(size), n)
	assert.Equal(t, int64(size), w.n)
	assert.Equal(t, want, w.crc, "bytes arrive intact and in order")

	allocated := after.TotalAlloc - before.TotalAlloc
	heapGrowth := int64(w.peakHeap) - int64(before.HeapInuse)
	t.Logf("file %d MiB; allocated during download %d KiB (client and server together); peak heap growth %d KiB",
		size>>20, allocated>>10, heapGrowth>>10)
	assert.Less(t, allocated, uint64(size/8), "the file must not be buffered")
	assert.Less(t, heapGrowth, int64(size/8), "the heap must not hold the file")
	assert.Equal(t, int32(1), rig.apiCalls.Load())
	assert.Len(t, rig.fileRequests(), 1)
}

// The temporary address needs no key, and the client never sends it there,
// whatever header form carries it to the API, nor the caller's cookies.
func TestAttachmentsDownloadSendsNoKeyToFileHost(t *testing.T) {
	for _, scheme := range []convo.AuthScheme{convo.AuthBearer, convo.AuthAPIKey, convo.AuthXAPIKey} {
		t.Run(scheme.String(), func(t *testing.T) {
			rig := newFileRig(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "file-bytes")
			}, attachmentAt("/o/med-6?sig=abc", testTime.Add(time.Hour), 10), convo.WithAuthScheme(scheme))

			var buf bytes.Buffer
			n, err := rig.client.Attachments.Download(context.Background(), imageMsg, &buf)
			require.NoError(t, err)
			assert.Equal(t, int64(10), n)
			assert.Equal(t, "file-bytes", buf.String())

			reqs := rig.fileRequests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, "/o/med-6", r.URL.Path)
			assert.Equal(t, "sig=abc", r.URL.RawQuery, "the signed address is used as given")
			assert.Empty(t, r.Header.Values("Authorization"))
			assert.Empty(t, r.Header.Values("X-Api-Key"))
			assert.Empty(t, r.Header.Values("Cookie"))
			for name, vals := range r.Header {
				for _, v := range vals {
					assert.NotContains(t, v, testKey, "header %s carries the key", name)
				}
			}
			assert.NotContains(t, r.URL.String(), testKey)
		})
	}
}

// An address the file host refuses as expired (410, 403, 404), or whose
// expires_at has passed on the service's clock (the envelope's timestamp), is
// exchanged for a fresh one, once; any other failure is not an expiry.
func TestAttachmentsDownloadExpiredAddress(t *testing.T) {
	past, future := testTime.Add(-time.Minute), testTime.Add(time.Hour)
	for _, tc := range []struct {
		name          string
		status        int  // the file host's answer to /old, or to every path if all
		all           bool // every address fails
		first, second time.Time
		wantStatus    int // the FileError's status; 0: the download succeeds
		wantPaths     []string
		wantCalls     int32 // attachment exchanges
	}{
		{"file host answers 410: a fresh address once", 410, false, future, future, 0, []string{"/old", "/new"}, 2},
		{"file host answers 403: a fresh address once", 403, false, future, future, 0, []string{"/old", "/new"}, 2},
		{"file host answers 404: a fresh address once", 404, false, future, future, 0, []string{"/old", "/new"}, 2},
		{"expires_at already past: fresh address before any download", 410, false, past, future, 0, []string{"/new"}, 2},
		{"still expired after the fresh address: error, asked only once", 410, true, future, future, 410, []string{"/old", "/new"}, 2},
		{"expires_at past and the fresh one refused: no third exchange", 403, true, past, past, 403, []string{"/new"}, 2},
		{"a server error is not an expiry", 500, true, future, future, 500, []string{"/old"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first exchange gives /old, the next ones /new.
			rig := newFileRig(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.all || r.URL.Path == "/old" {
					http.Error(w, "expired", tc.status)
					return
				}
				_, _ = io.WriteString(w, "data")
			}, func(n int, filesURL string) string {
				if n == 1 {
					return attachmentAt("/old", tc.first, 4)(n, filesURL)
				}
				return attachmentAt("/new", tc.second, 4)(n, filesURL)
			})
			var buf bytes.Buffer
			n, err := rig.client.Attachments.Download(context.Background(), imageMsg, &buf)
			if tc.wantStatus == 0 {
				require.NoError(t, err)
				assert.Equal(t, int64(4), n)
				assert.Equal(t, "data", buf.String())
			} else {
				assert.Zero(t, n)
				var fe *convo.FileError
				require.True(t, errors.As(err, &fe), "%v", err)
				assert.Equal(t, tc.wantStatus, fe.StatusCode)
				assert.Equal(t, strings.TrimPrefix(rig.files.URL, "http://"), fe.Host)
				assert.NotContains(t, err.Error(), "/new", "the address itself is a secret")
			}
			assert.Equal(t, tc.wantCalls, rig.apiCalls.Load())
			var paths []string
			for _, r := range rig.fileRequests() {
				paths = append(paths, r.URL.Path)
			}
			assert.Equal(t, tc.wantPaths, paths)
		})
	}
}

func TestAttachmentsDownloadDoesNotFollowRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		_, _ = io.WriteString(w, "should not be read")
	}))
	defer other.Close()

	for _, target := range []string{"other host", "same host"} {
		t.Run(target, func(t *testing.T) {
			elsewhere.Store(0)
			var rig *fileRig
			rig = newFileRig(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved" {
					_, _ = io.WriteString(w, "should not be read")
					return
				}
				to := other.URL + "/x"
				if target == "same host" {
					to = rig.files.URL + "/moved"
				}
				http.Redirect(w, r, to, http.StatusFound)
			}, attachmentAt("/f", testTime.Add(time.Hour), 4))

			var buf bytes.Buffer
			n, err := rig.client.Attachments.Download(context.Background(), imageMsg, &buf)
			assert.Zero(t, n)
			assert.Empty(t, buf.String())
			var fe *convo.FileError
			require.True(t, errors.As(err, &fe), "%v", err)
			assert.Equal(t, http.StatusFound, fe.StatusCode)
			assert.Zero(t, elsewhere.Load(), "the redirect target is never contacted")
			assert.Len(t, rig.fileRequests(), 1)
			assert.Equal(t, int32(1), rig.apiCalls.Load(), "a redirect is not an expiry")
		})
	}
}

func TestAttachmentsDownloadContextCancelled(t *testing.T) {
	release := make(chan struct{})
	rig := newFileRig(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}, attachmentAt("/f", testTime.Add(time.Hour), 1000))
	defer close(release)

	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfterWrite{cancel: cancel}
	n, err := rig.client.Attachments.Download(ctx, imageMsg, w)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(7), n, "bytes written so far are reported")
	assert.Equal(t, int32(1), rig.apiCalls.Load(), "a partial download is not retried")
}

type cancelAfterWrite struct {
	cancel context.CancelFunc
	n      int
}

func (w *cancelAfterWrite) Write(b []byte) (int, error) {
	w.n += len(b)
	w.cancel()
	return len(b), nil
}

func countAttachmentCalls(s *fake.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, "/attachments/") {
			n++
		}
	}
	return n
}

// anyDates are the service dates that date-sensitive tests run at: far in
// the past, far in the future, and the machine's today. The client must give
// the same answers at each, whatever the machine's clock says, since the
// service's clock is the one that counts.
var anyDates = []struct {
	name string
	at   time.Time
}{
	{"2001-01-01", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)},
	{"2099-12-31", time.Date(2099, 12, 31, 23, 0, 0, 0, time.UTC)},
	{"today", time.Now().UTC().Truncate(time.Millisecond)},
}

func TestDownloadAttachmentReusesTheAddress(t *testing.T) {
	for _, d := range anyDates {
		t.Run(d.name, func(t *testing.T) { testDownloadAttachmentAt(t, d.at) })
	}
}

func testDownloadAttachmentAt(t *testing.T, at time.Time) {
	clock := fake.NewManualClock(at)
	s := fake.New(t, fake.WithClock(clock), fake.WithAttachmentTTL(15*time.Minute), fake.WithHandlerMiddleware(testkit.Middleware(t)))
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: "chatapp", ProviderIdentifier: "5511900000000"})
	ana := co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "+55 11 98765-4321", Name: "Ana"})
	conv := co.AddConversation(fake.Conversation{ContactID: ana})
	file := bytes.Repeat([]byte("pdf!"), 1000)
	co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, At: clock.Now().Add(-time.Hour),
		Media: &fake.Media{MimeType: "application/pdf", Filename: "invoice.pdf", Data: file}})

	c := s.Client()
	ctx := context.Background()
	page, err := c.Messages.List(ctx, conv, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	att, err := c.Attachments.ForMessage(ctx, page.Items[0])
	require.NoError(t, err)

	var buf bytes.Buffer
	n, err := c.Attachments.DownloadAttachment(ctx, att, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.Equal(t, file, buf.Bytes())
	assert.Equal(t, 1, countAttachmentCalls(s), "the address held is used as is")
	assert.False(t, att.Expired(), "15 minutes left on the service's clock")

	// Download goes through ForMessage: one more address, used as is.
	buf.Reset()
	_, err = c.Attachments.Download(ctx, page.Items[0], &buf)
	require.NoError(t, err)
	assert.Equal(t, 2, countAttachmentCalls(s), "Download asks for its address once")

	// Past its expiry the file host refuses the old address: one fresh one.
	clock.Advance(20 * time.Minute)
	buf.Reset()
	n, err = c.Attachments.DownloadAttachment(ctx, att, &buf)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.Equal(t, 3, countAttachmentCalls(s), "exactly one renewal")

	_, err = c.Attachments.DownloadAttachment(ctx, nil, &buf)
	assert.Error(t, err)
	_, err = c.Attachments.DownloadAttachment(ctx, att, nil)
	assert.Error(t, err)
}

// BenchmarkDownload compares a download through the SDK (stall timeout on,
// the default) with a plain io.Copy of the same file over the same kind of
// transport, on loopback: go test -run '^$' -bench BenchmarkDownload .
func BenchmarkDownload(b *testing.B) {
	file := bytes.Repeat([]byte("0123456789abcdef"), 2<<20) // 32 MiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "f.bin", time.Time{}, bytes.NewReader(file))
	}))
	b.Cleanup(srv.Close)
	newTransport := func() *http.Transport {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		return tr
	}
	b.Run("sdk", func(b *testing.B) {
		c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL("http://127.0.0.1:1/v1"),
			convo.WithHTTPClient(&http.Client{Transport: newTransport()}))
		require.NoError(b, err)
		att := &convo.Attachment{URL: srv.URL + "/f.bin", FileSize: int64(len(file))}
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			if _, err := c.Attachments.DownloadAttachment(context.Background(), att, io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("iocopy", func(b *testing.B) {
		hc := &http.Client{Transport: newTransport()}
		b.SetBytes(int64(len(file)))
		for b.Loop() {
			resp, err := hc.Get(srv.URL + "/f.bin")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				b.Fatal(err)
			}
			_ = resp.Body.Close()
		}
	})
}
