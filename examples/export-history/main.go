// Command export-history writes every message of every conversation (open,
// resolved and archived) since a date as JSON Lines, downloads the media that
// can still be fetched, and can be interrupted and resumed at any point
// without losing or duplicating a line.
//
// Each line of --out is one message, as the service returns it (spec §2.3,
// without the contract-less raw field), plus conversation_id, contact_id and
// channel, and media_file (the downloaded file's path) when the media was
// downloaded. Conversations come most recently active first, and the
// messages of each newest first. Media files are named by media id plus an
// extension taken from the filename or the MIME type.
//
// Everything goes into one folder, --dir (default convo-export):
// history.jsonl, its state file history.jsonl.state and media/. --out,
// --state and --media-dir put one of them elsewhere (--media-dir "" skips
// the media).
//
// Conversations are read --concurrency at a time (default 8; 1 reads one
// after the other), a few pages ahead of the one being written, so that a
// network's round trips overlap; the file is the same, byte for byte,
// whatever the concurrency. When the service answers 429 every read in
// flight waits for its Retry-After and fewer run at once for a while.
// Within a conversation, --read-ahead (on by default) fetches the next page
// while the current one is written.
//
// The message read covers only the last 30 days unless asked for more: the
// export passes --since to every read to go beyond that window.
//
// Resuming: the state file records the service's base URL, and, after each
// page of messages, the ids of the conversations already exported, the one
// in progress and the cursor of its next page, and how long --out was then.
// Run the same command again after an interruption (Ctrl-C, a crash, a lost
// connection): it cuts --out back to that length and goes on from the
// cursor. Once the export is complete, running it again does nothing; delete
// the state file to export again. A state file written by an export from
// another service address is refused rather than resumed (the embedded demo
// fake gets a new address, and new data, at every run).
//
// Without an account it runs on an embedded fake loaded with demo data:
//
//	go run ./examples/export-history --since 60d --dir demo-export
//
// With your account:
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... \
//	    go run ./examples/export-history --since 2026-01-01 --dir export-2026
//
// --since takes an RFC 3339 time, a date (2026-01-01, UTC) or an age (90d,
// 36h). Exit code 0 when the export is complete, 1 otherwise (including an
// interruption: run again to resume).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// afterLine, when set, is called after each line is written: the tests use
// it to interrupt an export at a precise point.
var afterLine func()

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export-history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sinceFlag := fs.String("since", "90d", "export messages sent at or after this: RFC 3339 time, date (UTC) or age such as 90d or 36h")
	dir := fs.String("dir", "convo-export", "`folder` for the export: history.jsonl, its state file and media/")
	outPath := fs.String("out", "", "JSON Lines `file` to write (default <dir>/history.jsonl)")
	mediaDir := fs.String("media-dir", "", "`folder` for the downloaded media (default <dir>/media; \"\" given explicitly skips media)")
	statePath := fs.String("state", "", "state `file` for resuming (default <out>.state)")
	pageSize := fs.Int("page-size", 100, "messages per request, 1-100")
	concurrency := fs.Int("concurrency", 8, "conversations read at once, 1 to 64")
	readAhead := fs.Bool("read-ahead", true, "read a conversation's next page while the current one is written")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "export-history:", err)
		return 1
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *pageSize < 1 || *pageSize > 100 {
		return fail(errors.New("--page-size must be 1 to 100"))
	}
	if *concurrency < 1 || *concurrency > 64 {
		return fail(errors.New("--concurrency must be 1 to 64"))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *dir == "" {
		return fail(errors.New("--dir must name a folder"))
	}
	if *outPath == "" {
		*outPath = filepath.Join(*dir, "history.jsonl")
	}
	if !set["media-dir"] {
		*mediaDir = filepath.Join(*dir, "media")
	}
	if *statePath == "" {
		*statePath = *outPath + ".state"
	}
	// An age (90d, 36h) counts back from the service's time, asked for
	// below; here the flag is only checked.
	if _, err := parseSince(*sinceFlag, time.Time{}); err != nil {
		return fail(err)
	}

	st, err := loadState(*statePath)
	if err != nil {
		return fail(err)
	}
	if st != nil && st.SinceFlag != *sinceFlag {
		return fail(fmt.Errorf("%s was written by an export with --since %s; use the same --since to resume, or delete it to start over", *statePath, st.SinceFlag))
	}

	// A bulk job gives a call more retries than the default: under a rate
	// limit a read should wait its turn, not end the run.
	client, done, err := demo.Client(stderr, convo.WithMaxRetries(8))
	if err != nil {
		return fail(err)
	}
	defer done()
	switch {
	case st == nil:
		now, err := serviceTime(ctx, client)
		if err != nil {
			return fail(err)
		}
		since, _ := parseSince(*sinceFlag, now)
		st = &state{BaseURL: client.BaseURL(), SinceFlag: *sinceFlag, Since: since}
	case st.BaseURL != client.BaseURL():
		return fail(fmt.Errorf("%s was written by an export from %s, not %s: it cannot be resumed here; use another --dir, or delete it to start over",
			*statePath, orUnknown(st.BaseURL), client.BaseURL()))
	case st.Complete:
		fmt.Fprintf(stdout, "Export already complete: %d messages in %s. Delete %s to export again.\n", st.Lines, *outPath, *statePath)
		return 0
	}
	if err := os.MkdirAll(filepath.Dir(*outPath), 0o755); err != nil {
		return fail(err)
	}

	e := &exporter{c: client, st: st, statePath: *statePath, mediaDir: *mediaDir, pageSize: *pageSize,
		concurrency: *concurrency, progress: stderr, tty: demo.IsTerminal(stderr)}
	if *readAhead {
		e.pageOpts = []convo.Option{convo.WithReadAhead()}
	}
	if err := e.open(*outPath); err != nil {
		return fail(err)
	}
	err = e.export(ctx)
	if cerr := e.close(); err == nil {
		err = cerr
	}
	e.showProgress(true)
	switch {
	case err != nil && ctx.Err() != nil:
		fmt.Fprintf(stderr, "export-history: interrupted; %d messages are safely exported, run the same command again to resume\n", e.st.Lines)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "export-history: %v\nexport-history: %d messages exported so far; run the same command again to resume\n", err, e.st.Lines)
		return 1
	}
	fmt.Fprintf(stdout, "Exported %d messages of %d conversations since %s to %s", e.st.Lines, len(e.st.Done),
		e.st.Since.UTC().Format(time.RFC3339), *outPath)
	if *mediaDir != "" {
		fmt.Fprintf(stdout, ", %d media files in %s", e.st.Files, *mediaDir)
	}
	fmt.Fprintln(stdout, ".")
	return 0
}

// serviceTime is the service's clock, as stated by the timestamp of a cheap
// answer (the channel list): an age such as 90d counts back from it, never
// from this machine's clock, which may be off (or a test fake's frozen clock
// may be years away).
func serviceTime(ctx context.Context, c *convo.Client) (time.Time, error) {
	var meta convo.Response
	if _, err := c.Channels.List(ctx, convo.CaptureResponse(&meta)); err != nil {
		return time.Time{}, fmt.Errorf("asking the service's time: %w", err)
	}
	if meta.Timestamp.IsZero() {
		return time.Time{}, errors.New("the service's answer stated no timestamp: give --since as a date")
	}
	return meta.Timestamp, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown address"
	}
	return s
}

var ageRE = regexp.MustCompile(`^(\d+)d$`)

func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if m := ageRE.FindStringSubmatch(s); m != nil {
		days, _ := strconv.Atoi(m[1])
		return now.AddDate(0, 0, -days), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time, a date such as 2026-01-01, or an age such as 90d or 36h", s)
}

// state is what a later run needs to resume. It is rewritten (atomically)
// after every page of messages.
type state struct {
	// BaseURL is the service the export reads: a state is never resumed
	// against another one.
	BaseURL   string    `json:"base_url"`
	SinceFlag string    `json:"since_flag"`
	Since     time.Time `json:"since"`
	// Done are the conversations fully exported. Kept as a set rather than
	// a position in the list: the list is ordered by last activity, which
	// changes while the export runs.
	Done []string `json:"done"`
	// Current is the conversation in progress and Cursor the cursor of its
	// next page ("" for its first page).
	Current *current `json:"current,omitempty"`
	// OutBytes is the length of the output file at the last checkpoint;
	// anything after it was written by an interrupted run and is cut.
	OutBytes int64 `json:"out_bytes"`
	Lines    int   `json:"lines"`
	Files    int   `json:"files"` // lines with a media file
	Complete bool  `json:"complete,omitempty"`
}

type current struct {
	ConversationID string        `json:"conversation_id"`
	ContactID      string        `json:"contact_id"`
	Channel        convo.Channel `json:"channel"`
	Cursor         string        `json:"cursor,omitempty"`
}

func loadState(path string) (*state, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("state file %s: %w (delete it to start over)", path, err)
	}
	return &st, nil
}

func saveState(path string, st *state) error {
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// line is one message of the export. Status and Media shadow the embedded
// message's fields so that the service's nulls stay null in the file (the
// SDK reads a null status or media_id as ""); Raw shadows it to leave it out.
type line struct {
	ConversationID string        `json:"conversation_id"`
	ContactID      string        `json:"contact_id"`
	Channel        convo.Channel `json:"channel"`
	convo.Message
	Status    *convo.MessageStatus `json:"status"`
	Media     *media               `json:"media"`
	Raw       json.RawMessage      `json:"raw,omitempty"` // never set: raw is outside the contract and may change without notice (spec §2.3)
	MediaFile string               `json:"media_file,omitempty"`
}

type media struct {
	MediaID     *string           `json:"media_id"`
	MediaStatus convo.MediaStatus `json:"media_status"`
	MimeType    *string           `json:"mime_type"`
	FileSize    *int64            `json:"file_size"`
	Filename    *string           `json:"filename"`
}

func newLine(cur *current, m convo.Message) line {
	l := line{ConversationID: cur.ConversationID, ContactID: cur.ContactID, Channel: cur.Channel, Message: m}
	if m.Status != "" {
		l.Status = &m.Status
	}
	if m.Media != nil {
		l.Media = &media{MediaID: null(m.Media.MediaID), MediaStatus: m.Media.MediaStatus,
			MimeType: null(m.Media.MimeType), FileSize: m.Media.FileSize, Filename: null(m.Media.Filename)}
	}
	return l
}

func null(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type exporter struct {
	c           *convo.Client
	st          *state
	statePath   string
	mediaDir    string
	pageSize    int
	concurrency int
	pageOpts    []convo.Option // WithReadAhead, or none
	progress    io.Writer

	f            *os.File
	w            *bufio.Writer
	pending      int  // lines written since the last checkpoint
	pendingFiles int  // of which with a media file
	tty          bool // progress goes to a terminal
	lastMsg      time.Time
}

// open opens the output file and cuts it back to the last checkpoint.
func (e *exporter) open(path string) error {
	flags := os.O_RDWR | os.O_CREATE
	if e.st.OutBytes == 0 {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < e.st.OutBytes {
		err = fmt.Errorf("%s is shorter (%d bytes) than the state file says (%d): it was changed; delete %s to start over",
			path, fi.Size(), e.st.OutBytes, e.statePath)
	}
	if err == nil {
		err = f.Truncate(e.st.OutBytes)
	}
	if err == nil {
		_, err = f.Seek(e.st.OutBytes, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return err
	}
	e.f, e.w = f, bufio.NewWriter(f)
	return nil
}

// close flushes what was written (an interrupted run leaves it for the next
// run to cut) and closes the file.
func (e *exporter) close() error {
	err := e.w.Flush()
	if cerr := e.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (e *exporter) export(ctx context.Context) error {
	if e.mediaDir != "" {
		if err := os.MkdirAll(e.mediaDir, 0o755); err != nil {
			return err
		}
	}
	// Finish the conversation an earlier run was in the middle of.
	if cur := e.st.Current; cur != nil {
		if err := e.conversation(ctx, cur, nil); err != nil {
			return err
		}
	}
	done := make(map[string]bool, len(e.st.Done))
	for _, id := range e.st.Done {
		done[id] = true
	}
	var listErr error // set by todo before it ends; read after the loop
	params := &convo.ListConversationsParams{Status: convo.ConversationAll, Since: e.st.Since, Limit: 100}
	todo := func(yield func(*current) bool) {
		for conv, err := range e.c.Conversations.All(ctx, params) {
			if err != nil {
				listErr = fmt.Errorf("listing conversations: %w", err)
				return
			}
			if done[conv.ID] {
				continue // exported by an earlier run
			}
			done[conv.ID] = true
			if !yield(&current{ConversationID: conv.ID, ContactID: conv.ContactID, Channel: conv.Channel}) {
				return
			}
		}
	}
	// Conversations are read ahead, e.concurrency at a time, and written
	// here one after the other in list order, exactly as a sequential run
	// would: checkpoints, and so resuming, are unchanged.
	for ahead, err := range convo.ParallelSeq(ctx, todo, e.readAhead, convo.ParallelLimit(e.concurrency), convo.ParallelCollectAll()) {
		if err != nil {
			return err
		}
		if err := e.conversation(ctx, ahead.cur, ahead.pages); err != nil {
			return err
		}
	}
	if listErr != nil {
		return listErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e.st.Complete = true
	return e.checkpoint()
}

// maxPagesAhead bounds how many pages of one conversation are read before
// it is written; the rest of a longer one is read as it is written. Memory
// stays within concurrency × maxPagesAhead pages.
const maxPagesAhead = 8

// fetched is a page read ahead, with its media already downloaded.
type fetched struct {
	page      *convo.MessagePage
	ahead     bool              // read ahead: media already downloaded
	files     map[string]string // message id → media file
	err       error             // the failure that ends the read here
	failedMsg string            // the message whose download failed, if any
}

type aheadConv struct {
	cur   *current
	pages []fetched
}

// readAhead reads the first pages of a conversation, and downloads their
// media, while earlier conversations are being written. A failure is kept
// with the page it hit and reported when the writer gets there, so that
// everything before it is written first, as in a sequential run.
func (e *exporter) readAhead(ctx context.Context, cur *current) (aheadConv, error) {
	out := aheadConv{cur: cur}
	params := &convo.ListMessagesParams{Since: e.st.Since, Limit: e.pageSize, Cursor: cur.Cursor}
	for page, err := range e.c.Messages.Pages(ctx, cur.ConversationID, params, e.pageOpts...) {
		if err != nil {
			out.pages = append(out.pages, fetched{err: fmt.Errorf("conversation %s: reading messages: %w", cur.ConversationID, err)})
			break
		}
		f := fetched{page: page, ahead: true, files: map[string]string{}}
		for _, m := range page.Items {
			if e.mediaDir == "" || m.Media == nil || !m.Media.Available() {
				continue
			}
			p, err := e.download(ctx, m)
			if err != nil {
				f.err, f.failedMsg = fmt.Errorf("conversation %s, message %s: %w", cur.ConversationID, m.MessageID, err), m.MessageID
				break
			}
			f.files[m.MessageID] = p
		}
		out.pages = append(out.pages, f)
		if f.err != nil || len(out.pages) == maxPagesAhead {
			break // the writer reads the rest, if any, as it writes
		}
	}
	return out, nil
}

// conversation writes one conversation from cur.Cursor on, checkpointing
// after each page: first the pages read ahead (if any), then the rest as it
// is read (Messages.Pages, resumed from the cursor).
func (e *exporter) conversation(ctx context.Context, cur *current, ahead []fetched) error {
	e.st.Current = cur
	for _, f := range ahead {
		if done, err := e.writePage(ctx, cur, f); done || err != nil {
			return err
		}
	}
	params := &convo.ListMessagesParams{Since: e.st.Since, Limit: e.pageSize, Cursor: cur.Cursor}
	for page, err := range e.c.Messages.Pages(ctx, cur.ConversationID, params, e.pageOpts...) {
		if err != nil {
			return fmt.Errorf("conversation %s: reading messages: %w", cur.ConversationID, err)
		}
		if done, err := e.writePage(ctx, cur, fetched{page: page}); done || err != nil {
			return err
		}
	}
	return nil
}

// writePage writes a page's lines and checkpoints; done reports the
// conversation's last page.
func (e *exporter) writePage(ctx context.Context, cur *current, f fetched) (done bool, err error) {
	if f.page == nil {
		return false, f.err
	}
	for _, m := range f.page.Items {
		if f.failedMsg != "" && m.MessageID == f.failedMsg {
			return false, f.err // the download that failed, reached in order
		}
		if err := e.message(ctx, cur, m, f.files[m.MessageID], f.ahead); err != nil {
			return false, fmt.Errorf("conversation %s, message %s: %w", cur.ConversationID, m.MessageID, err)
		}
	}
	if !f.page.HasMore() {
		e.st.Done = append(e.st.Done, cur.ConversationID)
		e.st.Current = nil
		if err := e.checkpoint(); err != nil {
			return false, err
		}
		e.showProgress(false)
		return true, nil
	}
	cur.Cursor = f.page.NextCursor
	return false, e.checkpoint()
}

// message writes one line. file is the media file read ahead (when
// downloaded is true); otherwise the media, if any, is downloaded now.
func (e *exporter) message(ctx context.Context, cur *current, m convo.Message, file string, downloaded bool) error {
	l := newLine(cur, m)
	if !downloaded && e.mediaDir != "" && m.Media != nil && m.Media.Available() {
		p, err := e.download(ctx, m)
		if err != nil {
			return err
		}
		file = p
	}
	if file != "" {
		l.MediaFile = file
		e.pendingFiles++
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := e.w.Write(append(b, '\n')); err != nil {
		return err
	}
	e.pending++
	if m.SentAt != nil {
		e.lastMsg = *m.SentAt
	}
	e.showProgress(false)
	if afterLine != nil {
		afterLine()
	}
	return ctx.Err()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// download fetches a message's file into the media folder, unless an
// earlier run did already, and returns its path.
func (e *exporter) download(ctx context.Context, m convo.Message) (string, error) {
	ext := strings.ToLower(filepath.Ext(m.Media.Filename))
	if ext == "" || len(ext) > 10 {
		ext = ".bin"
		if exts, _ := mime.ExtensionsByType(m.Media.MimeType); len(exts) > 0 {
			ext = exts[0]
		}
	}
	path := filepath.Join(e.mediaDir, unsafeName.ReplaceAllString(m.Media.MediaID, "_")+ext)
	if _, err := os.Stat(path); err == nil {
		return path, nil // complete: files only appear under their name once written
	}
	tmp, err := os.CreateTemp(e.mediaDir, ".download-*")
	if err != nil {
		return "", err
	}
	_, err = e.c.Attachments.Download(ctx, m, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("downloading media %s: %w", m.Media.MediaID, err)
	}
	return path, nil
}

// checkpoint makes everything written so far durable, then records it.
func (e *exporter) checkpoint() error {
	if err := e.w.Flush(); err != nil {
		return err
	}
	if err := e.f.Sync(); err != nil {
		return err
	}
	off, err := e.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	e.st.OutBytes = off
	e.st.Lines += e.pending
	e.st.Files += e.pendingFiles
	e.pending, e.pendingFiles = 0, 0
	return saveState(e.statePath, e.st)
}

// showProgress keeps one progress line up to date on a terminal (after each
// message) and writes one line per finished conversation elsewhere (logs).
func (e *exporter) showProgress(final bool) {
	if !e.tty && (final || e.pending > 0) {
		return
	}
	at := ""
	if !e.lastMsg.IsZero() {
		at = ", at " + e.lastMsg.UTC().Format("2006-01-02")
	}
	if e.tty {
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(e.progress, "\rexport: %d conversations done, %d messages, %d media files%s   %s",
			len(e.st.Done), e.st.Lines+e.pending, e.st.Files+e.pendingFiles, at, end)
		return
	}
	fmt.Fprintf(e.progress, "export: %d conversations done, %d messages, %d media files%s\n",
		len(e.st.Done), e.st.Lines+e.pending, e.st.Files+e.pendingFiles, at)
}
