package convo

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer is the largest buffer put back in the pool: a rare large
// answer must not keep its memory alive for the small ones that follow.
const maxPooledBuffer = 1 << 20

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		bufPool.Put(buf)
	}
}

// drainLimit and drainWindow bound what is read of a body only to free its
// connection: what is left of a proxy's error page, if it arrives at once.
const (
	drainLimit  = 4 << 20
	drainWindow = 100 * time.Millisecond
)

// discard ends a response nobody will read further. A body announced larger
// than drainLimit is closed unread; any other is drained (see drainSoon).
func discard(resp *http.Response) {
	if resp.ContentLength > drainLimit {
		_ = resp.Body.Close()
		return
	}
	_, _ = drainSoon(io.Discard, resp.Body)
}

// drainSoon copies what is left of body into w, at most drainLimit bytes
// for at most drainWindow, then closes it: a connection whose answer is
// already arriving goes back to the pool, and one that trickles is dropped
// rather than waited for, perhaps for minutes. late says the window ran out
// (w has what arrived in time); err is a read failure before that.
func drainSoon(w io.Writer, body io.ReadCloser) (late bool, err error) {
	var expired atomic.Bool
	// Closing the body from the timer unblocks a read that waits.
	stop := time.AfterFunc(drainWindow, func() { expired.Store(true); _ = body.Close() })
	_, err = io.Copy(w, io.LimitReader(body, drainLimit))
	stop.Stop()
	_ = body.Close()
	if expired.Load() {
		return true, nil
	}
	return false, err
}

// keepLimit bounds what is kept in memory of an answer about to be
// retried: the service's error envelopes are a few hundred bytes.
const keepLimit = 64 << 10

// keepConnection reads a response that is about to be retried, so that its
// connection goes back to the pool (retryablehttp would drain only 4 KiB and
// close). The first keepLimit bytes stay readable from memory, because if the
// retries run out this response is the one the caller's typed error is
// built from; a body that does not arrive at once is not waited for (see
// drainSoon), and keeps what came in time.
func keepConnection(resp *http.Response) {
	head := &headWriter{max: keepLimit}
	late, err := drainSoon(head, resp.Body)
	switch {
	case late || err == nil:
		resp.Body = io.NopCloser(bytes.NewReader(head.buf))
	default:
		// Cut mid-answer: what was read comes first, then the failure.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(head.buf), failingReader{err}))
	}
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// headWriter keeps the first max bytes written to it and drops the rest.
type headWriter struct {
	buf []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
