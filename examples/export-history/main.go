// Command export-history writes every message of every conversation (open,
// resolved and archived) since a date as JSON Lines, downloads the media that
// can still be fetched, and can be interrupted and resumed at any point
// without losing or duplicating a line.
//
// Everything goes into one folder, --dir: history.jsonl, its state file
// history.jsonl.state, and media/ (--media=false skips the media). Each line
// is one message as the service returns it (OpenAPI Message, without the
// raw field, which is outside the contract) plus conversation_id, contact_id
// and channel, and media_file when its file was downloaded. Conversations
// come most recently active first, the messages of each newest first.
//
// --since (an RFC 3339 time, a date, or an age such as 90d or 36h counted
// back from the service's clock) is passed to every read, which otherwise
// covers only the last 30 days. Conversations are read --concurrency at a
// time with convo.ParallelSeq, a few pages ahead of the one being written;
// the file is the same, byte for byte, whatever the concurrency.
//
// After each page the state file records the conversations done, the one
// in progress with the cursor of its next page, and the file's length. Run
// the same command again after an interruption (Ctrl-C, a crash, a lost
// connection): it cuts the file back to that length and goes on from the
// cursor; once complete, it does nothing (delete the state file to export
// again). A state written with another --since, or by an export from another
// service address, is refused. The embedded demo fake is one service for
// this check, whatever its address, but its data (ids, times, cursors) is
// new at every run: a state it wrote is not resumed, the export starts over
// (the file and the media it listed are replaced), so the demo command below
// does the same thing every time. Exit code 0 when the export is complete,
// 1 otherwise (run again to resume).
//
// Without an account it runs on an embedded fake loaded with demo data:
//
//	go run ./examples/export-history --since 60d --dir demo-export
//
// With your account:
//
//	CONVO_BASE_URL=https://api.example.com/v1 CONVO_API_KEY=... \
//	    go run ./examples/export-history --since 2026-01-01 --dir export-2026
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
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
	since := fs.String("since", "90d", "export messages sent at or after this: RFC 3339 time, date (UTC) or age such as 90d or 36h")
	e := &exporter{progress: stderr}
	fs.StringVar(&e.dir, "dir", "convo-export", "`folder` for the export: history.jsonl, its state file and media/")
	fs.BoolVar(&e.media, "media", true, "download the media that can still be fetched into <dir>/media")
	fs.IntVar(&e.pageSize, "page-size", 100, "messages per request, 1-100")
	fs.IntVar(&e.concurrency, "concurrency", convo.DefaultParallelLimit, "conversations read at once")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	// A bulk job gives a call more retries than the default: under a rate
	// limit a read should wait its turn, not end the run.
	client, done, err := demo.Client(stderr, convo.WithMaxRetries(8))
	if err == nil {
		defer done()
		e.c = client
		err = e.loadState(ctx, *since)
	}
	if err != nil {
		fmt.Fprintln(stderr, "export-history:", err)
		return 1
	}
	out := filepath.Join(e.dir, "history.jsonl")
	if e.st.Complete {
		fmt.Fprintf(stdout, "Export already complete: %d messages in %s. Delete %s.state to export again.\n", e.st.Lines, out, out)
		return 0
	}
	if err := e.export(ctx); err != nil {
		if ctx.Err() != nil {
			err = errors.New("interrupted")
		}
		fmt.Fprintf(stderr, "export-history: %v; %d messages are safely exported, run the same command again to resume\n", err, e.st.Lines)
		return 1
	}
	fmt.Fprintf(stdout, "Exported %s of %s since %s to %s, %s.\n",
		count(e.st.Lines, "message"), count(len(e.st.Done), "conversation"), e.st.Since.UTC().Format(time.RFC3339), out, count(e.st.Files, "media file"))
	return 0
}

// serviceTime is the service's clock, as stated by the timestamp of a cheap
// answer (the channel list): an age such as 90d counts back from it, never
// from this machine's clock, which may be off.
func serviceTime(ctx context.Context, c *convo.Client) (time.Time, error) {
	var meta convo.Response
	if _, err := c.Channels.List(ctx, convo.CaptureResponse(&meta)); err != nil {
		return time.Time{}, fmt.Errorf("asking the service's time: %w", err)
	}
	return meta.Timestamp, nil
}

func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return now.AddDate(0, 0, -n), nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want an RFC 3339 time, a date such as 2026-01-01, or an age such as 90d or 36h", s)
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
	Raw       json.RawMessage      `json:"raw,omitempty"`
	MediaFile string               `json:"media_file,omitempty"`
}

type media struct {
	MediaID     *string           `json:"media_id"`
	MediaStatus convo.MediaStatus `json:"media_status"`
	MimeType    *string           `json:"mime_type"`
	FileSize    *int64            `json:"file_size"`
	Filename    *string           `json:"filename"`
}

func newLine(cur *current, m convo.Message, file string) line {
	l := line{ConversationID: cur.ConversationID, ContactID: cur.ContactID, Channel: cur.Channel, Message: m, MediaFile: file}
	if m.Status != "" {
		l.Status = &m.Status
	}
	null := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	if m.Media != nil {
		l.Media = &media{null(m.Media.MediaID), m.Media.MediaStatus, null(m.Media.MimeType), m.Media.FileSize, null(m.Media.Filename)}
	}
	return l
}

type exporter struct {
	c           *convo.Client
	st          state
	dir         string
	media       bool
	pageSize    int
	concurrency int
	progress    io.Writer

	f       *os.File
	w       *bufio.Writer
	pending counts // written since the last checkpoint
}

type counts struct {
	lines, files int
	bytes        int64
}

// export exports, after the conversation an earlier run was in the middle
// of, every conversation not done yet.
func (e *exporter) export(ctx context.Context) error {
	if err := e.open(); err != nil {
		return err
	}
	defer func() { e.w.Flush(); e.f.Close() }() // what follows the last checkpoint is cut by the next run
	if cur := e.st.Current; cur != nil {
		if err := e.write(ctx, aheadConv{cur: cur}); err != nil {
			return err
		}
	}
	todo, listErr := e.todo(ctx)
	// Conversations are read ahead, e.concurrency at a time, and written
	// here in list order, as a sequential run would. A failure is yielded
	// after every conversation before it.
	for conv, err := range convo.ParallelSeq(ctx, todo, e.readAhead, convo.ParallelLimit(e.concurrency)) {
		if err != nil {
			return err
		}
		if err := e.write(ctx, conv); err != nil {
			return err
		}
	}
	if *listErr != nil {
		return *listErr
	}
	e.st.Complete = true
	return e.checkpoint()
}

// open opens the output and cuts it back to the last checkpoint.
func (e *exporter) open() error {
	dir := e.dir
	if e.media {
		dir = filepath.Join(e.dir, "media")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(e.dir, "history.jsonl"), os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		err = f.Truncate(e.st.OutBytes)
	}
	if err == nil {
		_, err = f.Seek(e.st.OutBytes, io.SeekStart)
	}
	e.f, e.w = f, bufio.NewWriter(f)
	return err
}

// todo lists the conversations not done yet; the listing's error, if any,
// is set once the sequence ends.
func (e *exporter) todo(ctx context.Context) (iter.Seq[*current], *error) {
	var listErr error
	return func(yield func(*current) bool) {
		done := map[string]bool{}
		for _, id := range e.st.Done {
			done[id] = true
		}
		params := &convo.ListConversationsParams{Status: convo.ConversationAll, Since: e.st.Since, Limit: 100}
		for conv, err := range e.c.Conversations.All(ctx, params) {
			if err != nil {
				listErr = fmt.Errorf("listing conversations: %w", err)
				return
			}
			if !done[conv.ID] && !yield(&current{ConversationID: conv.ID, ContactID: conv.ContactID, Channel: conv.Channel}) {
				return
			}
			done[conv.ID] = true // the list's order changes as conversations move: each once
		}
	}, &listErr
}

// maxPagesAhead bounds how many pages of one conversation are read before
// it is written; the rest of a longer one is read as it is written.
const maxPagesAhead = 8

// page is a page of messages with its media downloaded.
type page struct {
	*convo.MessagePage
	files map[string]string // message id → media file
}

type aheadConv struct {
	cur   *current
	pages []page
}

// readAhead reads the first pages of a conversation, and downloads their
// media, while earlier conversations are being written.
func (e *exporter) readAhead(ctx context.Context, cur *current) (aheadConv, error) {
	conv := aheadConv{cur: cur}
	for p, err := range e.pages(ctx, cur) {
		if err != nil {
			return conv, err
		}
		if conv.pages = append(conv.pages, p); len(conv.pages) == maxPagesAhead {
			break
		}
	}
	return conv, nil
}

// pages reads a conversation's pages from cur.Cursor on, fetching the next
// page while this one is handled (WithReadAhead), and downloads the media of
// each.
func (e *exporter) pages(ctx context.Context, cur *current) iter.Seq2[page, error] {
	return func(yield func(page, error) bool) {
		params := &convo.ListMessagesParams{Since: e.st.Since, Limit: e.pageSize, Cursor: cur.Cursor}
		for mp, err := range e.c.Messages.Pages(ctx, cur.ConversationID, params, convo.WithReadAhead()) {
			if err != nil {
				yield(page{}, fmt.Errorf("conversation %s: reading messages: %w", cur.ConversationID, err))
				return
			}
			p := page{mp, map[string]string{}}
			for _, m := range mp.Items {
				if e.media && m.Media != nil && m.Media.Available() {
					if p.files[m.MessageID], err = e.download(ctx, m); err != nil {
						yield(page{}, fmt.Errorf("conversation %s, message %s: %w", cur.ConversationID, m.MessageID, err))
						return
					}
				}
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// write writes one conversation, checkpointing after each page: first the
// pages read ahead, then the rest as it is read.
func (e *exporter) write(ctx context.Context, conv aheadConv) error {
	e.st.Current = conv.cur
	for _, p := range conv.pages {
		if err := e.writePage(ctx, conv.cur, p); err != nil || !p.HasMore() {
			return err
		}
	}
	for p, err := range e.pages(ctx, conv.cur) {
		if err != nil {
			return err
		}
		if err := e.writePage(ctx, conv.cur, p); err != nil || !p.HasMore() {
			return err
		}
	}
	return nil
}

func (e *exporter) writePage(ctx context.Context, cur *current, p page) error {
	for _, m := range p.Items {
		b, err := json.Marshal(newLine(cur, m, p.files[m.MessageID]))
		if err != nil {
			return err
		}
		n, err := e.w.Write(append(b, '\n'))
		if err != nil {
			return err
		}
		e.pending.lines, e.pending.bytes = e.pending.lines+1, e.pending.bytes+int64(n)
		if p.files[m.MessageID] != "" {
			e.pending.files++
		}
		if afterLine != nil {
			afterLine()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if p.HasMore() {
		cur.Cursor = p.NextCursor
		return e.checkpoint()
	}
	e.st.Done, e.st.Current = append(e.st.Done, cur.ConversationID), nil
	err := e.checkpoint()
	fmt.Fprintf(e.progress, "export: %s done, %s, %s\n", count(len(e.st.Done), "conversation"), count(e.st.Lines, "message"), count(e.st.Files, "media file"))
	return err
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// download fetches a message's file into the media folder, unless an
// earlier run did already, and returns its path.
func (e *exporter) download(ctx context.Context, m convo.Message) (string, error) {
	ext := filepath.Ext(m.Media.Filename)
	if exts, _ := mime.ExtensionsByType(m.Media.MimeType); ext == "" && len(exts) > 0 {
		ext = exts[0]
	}
	path := filepath.Join(e.dir, "media", unsafeName.ReplaceAllString(m.Media.MediaID, "_")+ext)
	if _, err := os.Stat(path); err == nil {
		return path, nil // complete: a file appears under its name only once written
	}
	tmp, err := os.Create(path + ".part")
	if err == nil {
		_, err = e.c.Attachments.Download(ctx, m, tmp)
		err = errors.Join(err, tmp.Close())
	}
	if err == nil {
		return path, os.Rename(tmp.Name(), path)
	}
	os.Remove(path + ".part")
	return "", fmt.Errorf("downloading media %s: %w", m.Media.MediaID, err)
}

// count is n things, in the singular for one: "1 conversation", "2
// conversations".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}
