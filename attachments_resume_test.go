package convo_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/fake"
)

// cuttingHost serves one file with http.ServeContent (which answers Range
// with 206 and Content-Range), and cuts the body of the first answers after
// the given fractions of the file: the connection is dropped there.
type cuttingHost struct {
	file []byte
	mu   sync.Mutex
	cuts []float64
	seen []string // the Range header of each request ("" for none)
}

func (h *cuttingHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get("Range"))
	var cut float64
	if len(h.cuts) > 0 {
		cut, h.cuts = h.cuts[0], h.cuts[1:]
	}
	h.mu.Unlock()
	if cut == 0 {
		http.ServeContent(w, r, "file.bin", time.Time{}, bytes.NewReader(h.file))
		return
	}
	at := int(cut * float64(len(h.file)))
	start := 0
	w.Header().Set("Accept-Ranges", "bytes")
	w.Header().Set("Content-Length", strconv.Itoa(len(h.file)))
	if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-", &start); err == nil {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(h.file)-1, len(h.file)))
		w.Header().Set("Content-Length", strconv.Itoa(len(h.file)-start))
		w.WriteHeader(http.StatusPartialContent)
	}
	_, _ = w.Write(h.file[start:at])
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler) // drop the connection mid-body
}

func TestDownloadResumesACutTransfer(t *testing.T) {
	file := make([]byte, 1<<20)
	for i := range file {
		file[i] = byte(rand.N(256))
	}
	host := &cuttingHost{file: file, cuts: []float64{0.5, 0.9}}
	srv := httptest.NewServer(host)
	t.Cleanup(srv.Close)
	c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL("http://127.0.0.1:1/v1"))
	require.NoError(t, err)

	var out bytes.Buffer
	n, err := c.Attachments.DownloadAttachment(context.Background(),
		&convo.Attachment{URL: srv.URL + "/f/file.bin", FileSize: int64(len(file))}, &out)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.True(t, bytes.Equal(file, out.Bytes()), "byte-identical")
	assert.Equal(t, []string{"", "bytes=524288-", "bytes=943718-"}, host.seen, "one Range request per cut")
}

func TestDownloadChecksTheStatedSize(t *testing.T) {
	host := &cuttingHost{file: []byte("only eleven")}
	srv := httptest.NewServer(host)
	t.Cleanup(srv.Close)
	c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL("http://127.0.0.1:1/v1"))
	require.NoError(t, err)
	var out bytes.Buffer
	n, err := c.Attachments.DownloadAttachment(context.Background(), &convo.Attachment{URL: srv.URL + "/f", FileSize: 12}, &out)
	require.ErrorIs(t, err, convo.ErrIncompleteDownload)
	assert.Equal(t, int64(11), n)
}

func TestDownloadGivesUpWithoutProgress(t *testing.T) {
	host := &cuttingHost{file: bytes.Repeat([]byte("x"), 1000), cuts: []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}}
	srv := httptest.NewServer(host)
	t.Cleanup(srv.Close)
	c, err := convo.NewClient(convo.WithAPIKey("key-0123456789"), convo.WithBaseURL("http://127.0.0.1:1/v1"), convo.WithMaxRetries(2),
		convo.WithRetryWait(time.Millisecond, 2*time.Millisecond))
	require.NoError(t, err)
	n, err := c.Attachments.DownloadAttachment(context.Background(), &convo.Attachment{URL: srv.URL + "/f"}, &bytes.Buffer{})
	require.ErrorIs(t, err, convo.ErrIncompleteDownload, "it gave up resuming")
	assert.Equal(t, int64(500), n)
	assert.Len(t, host.seen, 4, "the first request, then three without progress: two retries allowed")
}

// Through the fake: a file cut at 50 %, then again at 90 %, downloads
// byte-identical with one Range request per cut and one address request.
func TestDownloadResumesThroughTheFake(t *testing.T) {
	file := make([]byte, 1<<20)
	for i := range file {
		file[i] = byte(rand.N(256))
	}
	s := fake.New(t)
	co := s.Company()
	line := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511940000001"})
	conv := co.AddConversation(fake.Conversation{ContactID: co.AddContact(fake.Contact{ChannelAccountID: line, PhoneNumber: "5511987654321"})})
	msgID := co.AddMessage(conv, fake.Message{Sender: fake.SenderContact, Type: convo.MessageDocument,
		Media: &fake.Media{MimeType: "application/pdf", Filename: "big.pdf", Data: file}})
	s.AddFault(fake.Fault{Path: "/_files/*", CutAfter: int64(len(file)) / 2, Times: 1})
	s.AddFault(fake.Fault{Path: "/_files/*", CutAfter: int64(len(file)) * 4 / 10, Times: 1})
	c := s.Client()

	page, err := c.Messages.List(t.Context(), conv, nil)
	require.NoError(t, err)
	var msg convo.Message
	for _, m := range page.Items {
		if m.MessageID == msgID {
			msg = m
		}
	}
	var out bytes.Buffer
	n, err := c.Attachments.Download(t.Context(), msg, &out)
	require.NoError(t, err)
	assert.Equal(t, int64(len(file)), n)
	assert.True(t, bytes.Equal(file, out.Bytes()), "byte-identical")

	// The fake journals a request once its handler returns, which may be
	// just after the client has read the last byte.
	require.Eventually(t, func() bool { return len(s.RequestsMatching(http.MethodGet, "/_files/*")) == 3 },
		5*time.Second, time.Millisecond)
	var ranges []string
	for _, r := range s.RequestsMatching(http.MethodGet, "/_files/*") {
		ranges = append(ranges, r.Header.Get("Range"))
	}
	assert.Equal(t, []string{"", "bytes=524288-", "bytes=943718-"}, ranges, "one Range request per cut")
	assert.Len(t, s.RequestsMatching(http.MethodGet, "/attachments/*"), 1, "one address request")
}
