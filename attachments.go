package convo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/convoapi/convo-go/internal/netx"
)

// Attachment is a temporary address for a message's file (OpenAPI getAttachment). The
// address needs no API key, and the SDK never sends the key to it.
type Attachment struct {
	// MediaID is the media_id that was exchanged.
	MediaID string `json:"media_id"`
	// URL is absolute and temporary. It needs no API key, and the SDK never
	// sends the key to it. It is a bearer secret: do not log it.
	URL string `json:"url"`
	// ExpiresAt is when URL stops working; zero when the service sent none.
	ExpiresAt time.Time `json:"expires_at"`
	// MimeType is the file's media type; empty when unknown.
	MimeType string `json:"mime_type"`
	// FileSize is the file's size in bytes; 0 when unknown.
	FileSize int64 `json:"file_size"`
	// Filename is the file's original name; empty when unknown.
	Filename string `json:"filename"`

	// lifetime is ExpiresAt minus the service's time when it answered (the
	// envelope's timestamp), and received the local reading (with its
	// monotonic clock) when the answer arrived: the address expires at
	// received+lifetime, measured on the service's clock, whatever the local
	// wall clock says. timed is false when either time was missing.
	lifetime time.Duration
	received time.Time
	timed    bool
}

// observeServiceTime records when the service said it answered; the pipeline
// calls it on every payload that implements it.
func (a *Attachment) observeServiceTime(serviceTime, received time.Time) {
	if a.ExpiresAt.IsZero() || serviceTime.IsZero() {
		return
	}
	a.lifetime, a.received, a.timed = a.ExpiresAt.Sub(serviceTime), received, true
}

// Expired reports whether the address has expired, judged on the service's
// clock: the time left is what separated expires_at from the service's own
// time when it answered (the response timestamp), counted from the moment
// the answer arrived on this machine's monotonic clock. A client whose wall
// clock is off by minutes (or a test fake on a frozen clock) therefore judges
// it as the service does. It is false when that cannot be told (an
// Attachment not returned by Get or ForMessage, or an answer without
// expires_at or timestamp): the file host's answer then decides.
func (a *Attachment) Expired() bool {
	return a != nil && a.timed && time.Since(a.received) >= a.lifetime
}

// ErrNoMedia reports a message whose file cannot be fetched (media_id null,
// which is a normal case: OpenAPI Message). It is returned without any request; the *NoMediaError that
// carries it says why.
var ErrNoMedia = errors.New("convo: message has no retrievable media")

// NoMediaError says why a message has no file to fetch.
type NoMediaError struct {
	// MessageID is the message's message_id.
	MessageID string
	// MediaStatus is unknown or no_reference, or empty when the message has
	// no media block at all (not a media message).
	MediaStatus MediaStatus
}

// Error names the message and the media status.
func (e *NoMediaError) Error() string {
	if e.MediaStatus == "" {
		return fmt.Sprintf("convo: message %s has no media block", e.MessageID)
	}
	return fmt.Sprintf("convo: message %s has no retrievable media (media_status %s)", e.MessageID, e.MediaStatus)
}

// Unwrap makes errors.Is(err, ErrNoMedia) true.
func (e *NoMediaError) Unwrap() error { return ErrNoMedia }

// AttachmentsService exchanges media ids for files (OpenAPI getAttachment).
type AttachmentsService struct{ c *Client }

// Get exchanges a media_id for a temporary address of the file.
func (s *AttachmentsService) Get(ctx context.Context, mediaID string, opts ...Option) (*Attachment, error) {
	if err := requireID("Attachments.Get", "media id", mediaID); err != nil {
		return nil, err
	}
	a := new(Attachment)
	if err := s.c.call(ctx, "GET", "/attachments/"+pathSegment(mediaID), nil, nil, a, opts); err != nil {
		return nil, err
	}
	return a, nil
}

// ForMessage returns the attachment of a media message. When the message has
// no retrievable file it returns a *NoMediaError (errors.Is ErrNoMedia)
// without sending any request: the attachment endpoint must not be called
// for a null media_id (OpenAPI Message).
func (s *AttachmentsService) ForMessage(ctx context.Context, msg Message, opts ...Option) (*Attachment, error) {
	if !msg.Media.Available() {
		e := &NoMediaError{MessageID: msg.MessageID}
		if msg.Media != nil {
			e.MediaStatus = msg.Media.MediaStatus
		}
		return nil, e
	}
	return s.Get(ctx, msg.Media.MediaID, opts...)
}

// Download streams a message's file into w and returns the bytes written:
// ForMessage, then DownloadAttachment. The file is never held in memory. The
// request to the temporary address carries no API key and no Authorization
// header, and follows no redirect. When the address has expired (by its
// expires_at on the service's clock, or the file host answers 403, 404 or
// 410) a fresh one is asked for once. The file host's cookies are not sent either, and the
// http.Client's Timeout does not apply (it would cut a large file): bound the
// download with ctx. A plain http:// address is refused unless it is loopback
// or WithInsecureHTTP was given.
func (s *AttachmentsService) Download(ctx context.Context, msg Message, w io.Writer, opts ...Option) (int64, error) {
	if w == nil {
		return 0, errors.New("convo: Attachments.Download: nil writer")
	}
	att, err := s.ForMessage(ctx, msg, opts...)
	if err != nil {
		return 0, err
	}
	return s.DownloadAttachment(ctx, att, w, opts...)
}

// DownloadAttachment streams the file of an attachment you already hold (from
// Get or ForMessage) into w, without asking for its address again, under the
// same rules as Download: no key sent, no redirect followed, and one fresh
// address asked for when this one has expired (see [Attachment.Expired], or
// the file host answers 403, 404 or 410) — before the transfer or on the way.
//
// The requests to the file host are attempts of a call like any other: they
// pass through the client's middleware and the call's (WithMiddleware), are
// traced with the route AttachmentFileRoute, and are retried by the same
// rules as a GET, with the backoff between them. A transfer cut part-way
// (the connection lost, or no byte for the stall timeout: see
// WithStallTimeout) resumes from the byte reached with a Range request,
// never starting over; each request that brings no new byte uses one retry
// of the call's budget (WithMaxRetries), a request that brings some does
// not, and a download sends at most 4×(1+that budget) requests to one
// address (24 by default), progress or not: past either bound the error
// wraps ErrIncompleteDownload. The backoff starts over after progress.
//
// The body is taken as it is sent: a file the host compresses for transfer
// is written compressed, never inflated. At most file_size bytes are
// written when the attachment states it (else at most the client's
// WithMaxResponseBytes): a longer body is refused there with an error
// wrapping ErrResponseTooLarge, and a shorter total with one wrapping
// ErrIncompleteDownload. An answer 206 whose range does not start at the
// byte asked for, or that answers a request without Range, is refused; a
// 200 to a Range request sends the whole file again, whose bytes already
// written are skipped. opts apply to the requests for an address and to
// those of the download (retries, timeout, middleware, trace); the API's
// headers and key never go to the file host.
func (s *AttachmentsService) DownloadAttachment(ctx context.Context, att *Attachment, w io.Writer, opts ...Option) (int64, error) {
	if w == nil {
		return 0, errors.New("convo: Attachments.DownloadAttachment: nil writer")
	}
	if att == nil {
		return 0, errors.New("convo: Attachments.DownloadAttachment: nil attachment")
	}
	if ctx == nil {
		return 0, errors.New("convo: nil context")
	}
	o, err := callConfig(opts)
	if err != nil {
		return 0, err
	}
	d := download{s: s, att: att, w: w, opts: opts, cfg: &o}
	return d.run(ctx)
}

// download is one DownloadAttachment: the bytes written so far, and whether
// the address was renewed (once at most).
type download struct {
	s       *AttachmentsService
	att     *Attachment
	w       io.Writer
	opts    []Option
	cfg     *config
	written int64
	renewed bool
}

func (d *download) run(ctx context.Context) (int64, error) {
	if d.att.Expired() {
		if err := d.renew(ctx); err != nil {
			return 0, err
		}
	}
	for {
		n, err := d.s.c.fetchFile(ctx, d.cfg, d.att, d.written, d.w)
		d.written += n
		var fe *FileError
		switch {
		case err == nil:
			return d.written, d.checkSize()
		case errors.As(err, &fe) && fe.expired() && !d.renewed && d.att.MediaID != "":
			if err := d.renew(ctx); err != nil {
				return d.written, err
			}
		default:
			return d.written, err
		}
	}
}

// renew asks for a fresh address of the same media, once.
func (d *download) renew(ctx context.Context) error {
	if err := requireID("Attachments.DownloadAttachment", "media id", d.att.MediaID); err != nil {
		return err
	}
	att, err := d.s.Get(ctx, d.att.MediaID, d.opts...)
	if err != nil {
		return err
	}
	d.att, d.renewed = att, true
	return nil
}

// checkSize compares the bytes written with the file_size the attachment
// states, if any.
func (d *download) checkSize() error {
	if d.att.FileSize > 0 && d.written != d.att.FileSize {
		return fmt.Errorf("%w: %d bytes written, file_size %d", ErrIncompleteDownload, d.written, d.att.FileSize)
	}
	return nil
}

// ErrIncompleteDownload reports a download whose size differs from the
// file_size its attachment states, or that gave up resuming.
var ErrIncompleteDownload = errors.New("convo: download incomplete")

// FileError reports a file host's refusal to serve a temporary address.
type FileError struct {
	// StatusCode is the file host's HTTP status.
	StatusCode int
	// Host is the file host; the address itself (a bearer secret) is left out.
	Host string
}

// Error names the status and host.
func (e *FileError) Error() string {
	return fmt.Sprintf("convo: file host %s answered %d %s", e.Host, e.StatusCode, http.StatusText(e.StatusCode))
}

func (e *FileError) expired() bool {
	switch e.StatusCode {
	case http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

// fetchFile streams a temporary address into w from byte offset on, as one
// call of the pipeline (see DownloadAttachment), and returns the bytes
// written. It carries none of the API's headers, and no key, and waits for
// no limiter: the file host is not the API.
func (c *Client) fetchFile(ctx context.Context, o *config, att *Attachment, offset int64, w io.Writer) (int64, error) {
	u, err := url.Parse(att.URL)
	if err != nil || u.Host == "" {
		return 0, fmt.Errorf("convo: attachment address is not an absolute URL")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && (netx.IsLoopback(u.Hostname()) || c.insecure)) {
		return 0, fmt.Errorf("convo: attachment address on %s uses scheme %q; refusing", u.Host, u.Scheme)
	}
	r := c.newRequest(ctx, http.MethodGet, "", o)
	r.route, r.url = AttachmentFileRoute, u.String()
	// identity: Go's transport would otherwise ask for gzip and inflate the
	// answer, which must be written as it is, and capped as it is.
	r.header = http.Header{"User-Agent": {c.userAgent}, "Accept-Encoding": {"identity"}}
	limit := c.maxBody
	if att.FileSize > 0 {
		limit = att.FileSize
	}
	f := &fileTransfer{w: w, host: u.Host, label: "(attachment on " + u.Host + ")", limit: limit, start: offset, written: offset}
	f.prepareHeader(r.header)
	requests, err := r.execute(ctx, f)
	var cut *cutError
	if errors.As(err, &cut) {
		err = fmt.Errorf("%w after %d requests: %w", ErrIncompleteDownload, requests, err)
	}
	return f.written - offset, err
}

// fileTransfer is the strategy of a download's call, and what its attempts
// share: where the transfer stands, and how the last answer ended it.
type fileTransfer struct {
	w       io.Writer
	host    string
	label   string // names the transfer in errors and logs: the address is a bearer secret
	limit   int64  // the most bytes the file may have
	start   int64  // the byte this call started from
	written int64  // the byte reached: the next request resumes there
	stuck   int    // requests in a row that brought no new byte
	outcome error  // why the last answer, not retried, ended the transfer
}

// client is that of every download: no key, no jar, no redirect.
func (f *fileTransfer) client(c *Client) http.Client { return c.files }

// retryMax bounds the requests of one download to one address: a transfer
// that makes progress may resume more often than the call's budget.
func (f *fileTransfer) retryMax(budget int) int { return f.maxRequests(budget) - 1 }

func (f *fileTransfer) maxRequests(budget int) int { return 4 * (budget + 1) }

// backoffStep starts over after progress.
func (f *fileTransfer) backoffStep(*call) int { return f.stuck }

func (f *fileTransfer) where(*call, *http.Request) string { return f.label }
func (f *fileTransfer) target(*call) string               { return f.label }

// finish is the transfer's outcome: nil when the file arrived whole.
func (f *fileTransfer) finish(*call, *http.Response) error { return f.outcome }

// retryable is the retry rule of a download: a cut body resumes, and any
// other failure is retried as for a GET; each request that brought no new
// byte uses one retry of the budget, within the bound of maxRequests.
func (f *fileTransfer) retryable(c *call, resp *http.Response, err error, o Outcome) bool {
	if c.attempt >= f.maxRequests(c.maxRetries) {
		return false
	}
	var cut *cutError
	if !errors.As(err, &cut) {
		if !retryableOutcome(http.MethodGet, c.maxWait, err, o) {
			return false
		}
		f.stuck++
	}
	return f.stuck <= c.maxRetries
}

// prepare points the next request at the byte reached.
func (f *fileTransfer) prepare(req *http.Request) {
	req.Header = req.Header.Clone() // the loop's copy of the request shares the map
	f.prepareHeader(req.Header)
}

func (f *fileTransfer) prepareHeader(h http.Header) {
	if f.written > 0 {
		h.Set("Range", "bytes="+strconv.FormatInt(f.written, 10)+"-")
	} else {
		h.Del("Range")
	}
}

// receive is the response handler of a download: it checks the answer
// against the request and writes its body. A read that fails is a
// *cutError, which the loop retries from the byte reached; any other end is
// the transfer's outcome.
func (f *fileTransfer) receive(_ *call, resp *http.Response) error {
	defer discard(resp)
	f.outcome = nil
	offset := f.written
	switch {
	case offset > 0 && resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && rangeTotal(resp) == offset:
		return nil // the cut came after the last byte
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		f.outcome = &FileError{StatusCode: resp.StatusCode, Host: f.host}
		return nil
	case resp.StatusCode == http.StatusPartialContent && resp.Request.Header.Get("Range") == "":
		f.outcome = fmt.Errorf("convo: file host %s answered 206 to a request without Range", f.host)
		return nil
	case resp.StatusCode == http.StatusPartialContent && rangeStart(resp) != offset:
		f.outcome = fmt.Errorf("convo: file host %s answered a range from another byte than %d", f.host, offset)
		return nil
	case offset > 0 && resp.StatusCode != http.StatusPartialContent:
		// The whole file again: skip what was written already.
		if _, err := io.CopyN(io.Discard, resp.Body, offset); err != nil {
			f.stuck++
			return &cutError{fmt.Errorf("convo: downloading attachment from %s: %w", f.host, err)}
		}
	}
	return f.copy(resp.Body)
}

// copy writes the body from the byte reached, at most up to the limit.
func (f *fileTransfer) copy(body io.Reader) error {
	r := &readErrors{r: body}
	left := f.limit - f.written
	buf := copyBuffers.Get().(*[]byte)
	n, err := io.CopyBuffer(writerOnly{f.w}, io.LimitReader(r, left), *buf)
	copyBuffers.Put(buf)
	if err == nil && n < left {
		err = io.EOF // the body ended before the limit
	}
	f.written += n
	if n > 0 {
		f.stuck = 0
	} else {
		f.stuck++
	}
	switch {
	case r.err != nil:
		return &cutError{fmt.Errorf("convo: downloading attachment from %s: %w", f.host, r.err)}
	case err == io.EOF:
		return nil
	case err != nil:
		f.outcome = fmt.Errorf("convo: writing attachment from %s: %w", f.host, err)
		return nil
	}
	// The limit is reached: the body must end here.
	var one [1]byte
	if m, _ := io.ReadFull(body, one[:]); m > 0 {
		f.outcome = fmt.Errorf("%w: the file host %s sent more than the %d bytes of the file", ErrResponseTooLarge, f.host, f.limit)
	}
	return nil
}

// copyBuffers hold the buffers a file is copied through: 64 KiB, so that a
// file arrives in a quarter of the reads a writer's own ReadFrom would make
// (io.Discard reads 8 KiB at a time).
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// writerOnly hides a writer's ReadFrom, so that io.CopyBuffer uses its
// buffer.
type writerOnly struct{ io.Writer }

// cutError is a transfer cut while the body was read: resumable.
type cutError struct{ err error }

func (e *cutError) Error() string { return e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// readErrors notes the failure of a read, to tell a cut transfer from a
// writer that failed.
type readErrors struct {
	r   io.Reader
	err error
}

func (r *readErrors) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// rangeStart is the first byte of a 206 answer's Content-Range
// ("bytes 100-199/200"); -1 when unreadable.
func rangeStart(resp *http.Response) int64 {
	var start, end, total int64
	if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/%d", &start, &end, &total); err != nil {
		return -1
	}
	return start
}

// rangeTotal is the size a 416 answer's Content-Range states ("bytes */200");
// -1 when unreadable.
func rangeTotal(resp *http.Response) int64 {
	var total int64
	if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes */%d", &total); err != nil {
		return -1
	}
	return total
}
