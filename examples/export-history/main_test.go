package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demotest"
	"github.com/convoapi/convo-go/fake"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const (
	convA = "00000000-0000-4000-8000-00000000000a" // open, 6 messages in range, across the 30-day window
	convB = "00000000-0000-4000-8000-00000000000b" // resolved, 4 messages 40 days ago
	convC = "00000000-0000-4000-8000-00000000000c" // archived, all before --since
	convD = "00000000-0000-4000-8000-00000000000d" // open, 2 of 3 messages in range
	convE = "00000000-0000-4000-8000-00000000000e" // open, no message at all
)

type world struct {
	s    *fake.Server
	co   *fake.Company
	acc  string
	want map[string]string // message id → conversation id, for every message to export
	data map[string][]byte // message id → file content, for available media
}

// newWorld seeds conversations of every status relative to the service date
// t0 (82 days after 2026-09-01) and points demo.Client at them.
func newWorld(t *testing.T, t0 time.Time) *world {
	t.Helper()
	s := demotest.Fake(t, t0)
	co := s.Company()
	w := &world{s: s, co: co, want: map[string]string{}, data: map[string][]byte{}}
	w.acc = co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	n := 0
	add := func(conv string, daysAgo int, at time.Duration, m fake.Message) {
		n++
		m.MessageID, m.At = fmt.Sprintf("msg-%02d", n), t0.AddDate(0, 0, -daysAgo).Add(at)
		if m.Sender == "" {
			m.Sender = fake.SenderContact
		}
		if m.Text == "" && m.Media == nil {
			m.Text = fmt.Sprintf("message %d", n)
		}
		co.AddMessage(conv, m)
		if daysAgo <= 82 {
			w.want[m.MessageID] = conv
		}
		if m.Media != nil && len(m.Media.Data) > 0 {
			w.data[m.MessageID] = m.Media.Data
		}
	}
	for i, c := range []struct {
		id     string
		status convo.ConversationStatus
	}{{convA, convo.ConversationOpen}, {convB, convo.ConversationResolved}, {convC, convo.ConversationArchived}, {convD, convo.ConversationOpen}, {convE, convo.ConversationOpen}} {
		ct := co.AddContact(fake.Contact{ChannelAccountID: w.acc, PhoneNumber: fmt.Sprint("55119000000", 10+i)})
		co.AddConversation(fake.Conversation{ID: c.id, ContactID: ct, Status: c.status})
	}
	add(convA, 60, 0, fake.Message{})
	add(convA, 45, 0, fake.Message{Type: "image", Text: "the sofa", Media: &fake.Media{MimeType: "image/png", Filename: "sofa.png", Data: []byte("\x89PNG sofa")}})
	add(convA, 31, 0, fake.Message{Sender: fake.SenderAgent})
	add(convA, 10, 0, fake.Message{Type: "document", Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "application/pdf"}})
	add(convA, 2, 0, fake.Message{Sender: fake.SenderAutomation, Reactions: []fake.Reaction{{Emoji: "👍"}}})
	add(convA, 0, -time.Hour, fake.Message{})
	add(convB, 40, 0, fake.Message{})
	add(convB, 40, time.Minute, fake.Message{Sender: fake.SenderAgent, Type: "document", Media: &fake.Media{MimeType: "application/pdf", Data: []byte("%PDF-1.4 quote")}})
	add(convB, 40, 2*time.Minute, fake.Message{Type: "audio", Media: &fake.Media{MediaStatus: convo.MediaNoReference}})
	add(convB, 39, 0, fake.Message{Sender: fake.SenderAgent})
	add(convC, 100, 0, fake.Message{}) // all before --since
	add(convC, 99, 0, fake.Message{Sender: fake.SenderAgent})
	add(convD, 95, 0, fake.Message{})
	add(convD, 20, 0, fake.Message{})
	add(convD, 5, 0, fake.Message{Sender: fake.SenderPhone})
	return w
}

type exportLine struct {
	ConversationID string    `json:"conversation_id"`
	ContactID      string    `json:"contact_id"`
	Channel        string    `json:"channel"`
	MessageID      string    `json:"message_id"`
	SentAt         time.Time `json:"sent_at"`
	Type           string    `json:"type"`
	MediaFile      string    `json:"media_file"`
}

func readLines(t *testing.T, path string) []exportLine {
	t.Helper()
	var out []exportLine
	for l := range strings.Lines(readFile(t, path)) {
		var el exportLine
		require.NoError(t, json.Unmarshal([]byte(l), &el), "line %d: %s", len(out)+1, l)
		out = append(out, el)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// export runs the command in dir, into dir itself (so that two exports into
// two folders write identical files), with pages of 2 messages, since
// 2026-09-01 unless args say otherwise. It cancels the run, as a Ctrl-C
// would, once stopAfter lines are written (0: never).
func export(t *testing.T, dir string, stopAfter int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Chdir(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	written := 0
	afterLine = func() {
		if written++; written == stopAfter {
			cancel()
		}
	}
	defer func() { afterLine = nil }()
	var out, errOut bytes.Buffer
	code = run(ctx, append([]string{"--since", "2026-09-01", "--dir", ".", "--page-size", "2"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestFullExport(t *testing.T) {
	w := newWorld(t, t0)
	wd := t.TempDir()
	code, out, errOut := export(t, wd, 0, "--dir", "out")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Exported 12 messages of 3 conversations since 2026-09-01T00:00:00Z to out/history.jsonl, 2 media files.")
	assert.Contains(t, errOut, "export: 3 conversations done, 12 messages, 2 media files")
	// Everything goes into --dir, nothing into the working directory.
	top, err := os.ReadDir(wd)
	require.NoError(t, err)
	require.Len(t, top, 1)
	names := []string{}
	in, err := os.ReadDir("out")
	require.NoError(t, err)
	for _, e := range in {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"history.jsonl", "history.jsonl.state", "media"}, names)

	got := map[string]string{}
	for _, l := range readLines(t, "out/history.jsonl") {
		assert.NotContains(t, got, l.MessageID, "duplicate line")
		got[l.MessageID] = l.ConversationID
		assert.Equal(t, "chatapp", l.Channel)
		assert.NotEmpty(t, l.ContactID)
		if data, ok := w.data[l.MessageID]; ok {
			assert.Equal(t, filepath.Join("out", "media", w.s.MediaID(l.MessageID)+map[string]string{"image": ".png", "document": ".pdf"}[l.Type]), l.MediaFile)
			assert.Equal(t, string(data), readFile(t, l.MediaFile))
		} else {
			assert.Empty(t, l.MediaFile, "%s has no file to fetch", l.MessageID)
		}
	}
	assert.Equal(t, w.want, got, "every message since --since, with its conversation, and nothing else")
	// Nulls stay null; raw (outside the contract) is left out.
	text := readFile(t, "out/history.jsonl")
	assert.NotContains(t, text, `"raw"`)
	for l := range strings.Lines(text) {
		switch {
		case strings.Contains(l, `"message_id":"msg-04"`):
			assert.Contains(t, l, `"status":null`)
			assert.Contains(t, l, `"media":{"media_id":null,"media_status":"unknown","mime_type":"application/pdf","file_size":null,"filename":null}`)
		case strings.Contains(l, `"message_id":"msg-05"`):
			assert.Contains(t, l, `"status":"delivered"`)
			assert.Contains(t, l, `"reactions":[{"emoji":"👍","direction":"inbound"`)
		}
	}
	entries, err := os.ReadDir("out/media")
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no leftover temporary file")
	// Every read went beyond the 30-day window with since; the unknown and
	// no_reference media were never asked for.
	for _, r := range w.s.RequestsMatching("GET", "/conversations/*/messages") {
		assert.Equal(t, "2026-09-01T00:00:00.000Z", r.Query.Get("since"), r.Path)
	}
	assert.Len(t, w.s.RequestsMatching("GET", "/attachments/*"), 2)

	// Once complete, running again changes nothing.
	code, out, _ = export(t, wd, 0, "--dir", "out")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Export already complete: 12 messages in out/history.jsonl. Delete out/history.jsonl.state to export again.")
	assert.Equal(t, text, readFile(t, "out/history.jsonl"))
}

// An export interrupted after n lines, then after m more, then run to the
// end, writes exactly the file an uninterrupted export writes.
func TestResumeAfterInterruption(t *testing.T) {
	w := newWorld(t, t0)
	code, _, errOut := export(t, t.TempDir(), 0)
	require.Equal(t, 0, code, errOut)
	want := readFile(t, "history.jsonl")
	for _, tt := range []struct{ n, m int }{{1, 1}, {2, 3}, {3, 4}, {5, 1}, {7, 2}, {11, 1}, {12, 0}} {
		t.Run(fmt.Sprintf("after %d then %d", tt.n, tt.m), func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := export(t, dir, tt.n)
			require.Equal(t, 1, code)
			assert.Contains(t, errOut, "interrupted; ")
			assert.Contains(t, errOut, "run the same command again to resume")
			// The interrupted run leaves its n lines, some of them past the
			// last checkpoint; the resumed run must cut those.
			assert.Len(t, readLines(t, "history.jsonl"), tt.n)
			if tt.m > 0 {
				code, _, _ = export(t, dir, tt.m)
				require.Equal(t, 1, code)
			}
			code, out, errOut := export(t, dir, 0)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "Exported 12 messages of 3 conversations since 2026-09-01T00:00:00Z to history.jsonl, 2 media files.")
			assert.Equal(t, want, readFile(t, "history.jsonl"), "no duplicate, nothing lost, same order")
			media, err := os.ReadDir("media")
			require.NoError(t, err)
			assert.Len(t, media, len(w.data))
		})
	}
}

// A failure at the service stops the export at the last checkpoint; the
// next run goes on, and a conversation started meanwhile is exported too.
func TestResumeAfterServiceFailure(t *testing.T) {
	w := newWorld(t, t0)
	dir := t.TempDir()
	// The first read of conversation B fails (a 400 is not retried).
	w.s.AddFault(fake.Fault{Path: "/conversations/" + convB + "/messages", Status: 400, Code: "INVALID_PARAM", Times: 1})
	code, _, errOut := export(t, dir, 0)
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, "conversation "+convB+": reading messages: convo: 400 INVALID_PARAM")
	assert.Contains(t, errOut, "messages are safely exported, run the same command again to resume")

	conv, msg := w.co.Receive(w.acc, "5511900000099", "Newcomer", fake.Message{Text: "hello!", At: t0})
	code, out, errOut := export(t, dir, 0)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Exported 13 messages of 4 conversations")
	seen := map[string]string{}
	for _, l := range readLines(t, "history.jsonl") {
		assert.NotContains(t, seen, l.MessageID, "duplicate line")
		seen[l.MessageID] = l.ConversationID
	}
	assert.Len(t, seen, 13)
	assert.Equal(t, conv, seen[msg])
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		before func(t *testing.T) // runs in the export's folder
		args   []string
		stderr string
	}{
		{name: "bad since", args: []string{"--since", "last week"}, stderr: `--since "last week": want an RFC 3339 time`},
		{name: "page size", args: []string{"--page-size", "101"}, stderr: "reading messages: convo: 400 INVALID_PARAM"},
		{
			name:   "another since than the state's",
			before: func(t *testing.T) { export(t, ".", 3) }, // past the first checkpoint (page size 2)
			args:   []string{"--since", "2026-10-01"}, stderr: "history.jsonl.state was written by an export with --since 2026-09-01",
		},
		{
			// A state written against one service is never resumed against another.
			name:   "another service than the state's",
			before: func(t *testing.T) { export(t, ".", 3); newWorld(t, t0) },
			stderr: "history.jsonl.state was written by an export from http://127.0.0.1:",
		},
		{
			// The embedded demo fake and a service never share a folder.
			name:   "a service after the embedded demo fake",
			before: func(t *testing.T) { embedded(t); export(t, ".", 3); newWorld(t, t0) },
			stderr: "history.jsonl.state was written by an export from the embedded demo fake, not http://127.0.0.1:",
		},
		{
			name:   "the embedded demo fake after a service",
			before: func(t *testing.T) { export(t, ".", 3); embedded(t) },
			stderr: "history.jsonl.state was written by an export from http://127.0.0.1:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newWorld(t, t0)
			dir := t.TempDir()
			if tt.before != nil {
				t.Chdir(dir)
				tt.before(t)
			}
			code, _, errOut := export(t, dir, 0, tt.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.stderr)
		})
	}
}

func TestWithoutMedia(t *testing.T) {
	w := newWorld(t, t0)
	code, out, errOut := export(t, t.TempDir(), 0, "--media=false")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Exported 12 messages of 3 conversations since 2026-09-01T00:00:00Z to history.jsonl, 0 media files.\n")
	assert.NoDirExists(t, "media")
	assert.Empty(t, w.s.RequestsMatching("", "/attachments/*"))
}

func TestParseSince(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026-01-02T03:04:05Z": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"2026-01-02":           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"90d":                  t0.AddDate(0, 0, -90),
		"36h":                  t0.Add(-36 * time.Hour),
	} {
		got, err := parseSince(in, t0)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: %v", in, got)
	}
	for _, bad := range []string{"", "yesterday", "-3h", "0s", "d", "-2d"} {
		_, err := parseSince(bad, t0)
		assert.Error(t, err, bad)
	}
}

// embedded makes demo.Client start the embedded demo fake.
func embedded(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "")
	t.Setenv("CONVO_API_KEY", "")
}

// The command of the doc comment, on the embedded demo data.
func TestEmbeddedDemo(t *testing.T) {
	embedded(t)
	code, out, errOut := export(t, t.TempDir(), 0, "--since", "60d", "--page-size", "100")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "embedded fake")
	assert.Contains(t, out, "Exported ")
	lines := readLines(t, "history.jsonl")
	require.NotEmpty(t, lines)
	var sent []time.Time
	for _, l := range lines {
		if l.MediaFile != "" {
			assert.FileExists(t, l.MediaFile)
		}
		sent = append(sent, l.SentAt)
	}
	span := slices.MaxFunc(sent, time.Time.Compare).Sub(slices.MinFunc(sent, time.Time.Compare))
	assert.Greater(t, span, 30*24*time.Hour, "the demo data has history beyond the 30-day read window")

	// Again, in the same folder: new demo data (new ids), so the export
	// starts over, and the media of the first run go.
	code, out2, errOut := export(t, ".", 0, "--since", "60d", "--page-size", "100")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "written on the embedded demo fake, whose data is new at every run: exporting again")
	counts, _, _ := strings.Cut(out, " since ")
	assert.True(t, strings.HasPrefix(out2, counts+" since "), "the same counts: %q, then %q", out, out2)
	var files []string
	for _, l := range readLines(t, "history.jsonl") {
		if l.MediaFile != "" {
			files = append(files, filepath.Base(l.MediaFile))
		}
	}
	entries, err := os.ReadDir("media")
	require.NoError(t, err)
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, e.Name())
	}
	assert.ElementsMatch(t, files, onDisk, "media/ holds the files of the second run only")
}

// bigWorld is a fake with n conversations of perConv messages each (one in
// five with an image), seeded alike on every call but for the ids the fake
// draws itself, which are fixed here.
func bigWorld(tb testing.TB, n, perConv int) *fake.Server {
	tb.Helper()
	s := demotest.Fake(tb, t0)
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	for c := range n {
		ct := co.AddContact(fake.Contact{ID: fmt.Sprintf("00000000-0000-4000-8000-1%011d", c), ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", c)})
		cv := co.AddConversation(fake.Conversation{ID: fmt.Sprintf("00000000-0000-4000-8000-2%011d", c), ContactID: ct})
		for i := range perConv {
			m := fake.Message{MessageID: fmt.Sprintf("m-%d-%d", c, i), Sender: fake.SenderContact, Text: fmt.Sprint("hello ", i),
				At: t0.Add(-time.Duration(c*perConv+i) * time.Minute)}
			if i%5 == 4 {
				m.Text, m.Media = "", &fake.Media{MimeType: "image/png", Filename: fmt.Sprintf("p%d-%d.png", c, i), Data: []byte(fmt.Sprint("png ", c, i))}
			}
			co.AddMessage(cv, m)
		}
	}
	return s
}

// The same data exported one conversation at a time and sixteen at once:
// the same file, byte for byte, and the same media.
func TestConcurrentExportMatchesSequential(t *testing.T) {
	files := map[string]string{}
	for _, c := range []string{"1", "16"} {
		s := bigWorld(t, 40, 7)
		code, _, errOut := export(t, t.TempDir(), 0, "--concurrency", c, "--page-size", "3")
		require.Equal(t, 0, code, errOut)
		files[c] = readFile(t, "history.jsonl")
		for conv := range 40 { // media ids are drawn by each fake: name them
			id := fmt.Sprintf("m-%d-4", conv)
			files[c] = strings.ReplaceAll(files[c], s.MediaID(id), "media-of-"+id)
		}
		media, err := os.ReadDir("media")
		require.NoError(t, err)
		assert.Len(t, media, 40, "one image in each conversation, no leftover")
	}
	assert.Equal(t, 280, strings.Count(files["1"], "\n"))
	assert.Equal(t, files["1"], files["16"])
}

// TestExportOnAnyDate runs a full export and an interrupted-then-resumed one
// with the service's clock at 2001-01-01 and at 2099-12-31, and the world
// and --since 82d counted on it: the same messages, files and requests as
// at the reference date.
func TestExportOnAnyDate(t *testing.T) {
	exportAt := func(t *testing.T, at time.Time) []any {
		w := newWorld(t, at)
		dir := t.TempDir()
		code, _, errOut := export(t, dir, 0, "--since", "82d")
		require.Equal(t, 0, code, errOut)
		var ids []string
		for _, l := range readLines(t, "history.jsonl") {
			ids = append(ids, l.MessageID)
		}
		media, err := os.ReadDir("media")
		require.NoError(t, err)
		_, again, _ := export(t, dir, 0, "--since", "82d")
		// Counted before the interrupted run: how many addresses it asked
		// for before the cancel depends on how far its read-ahead got.
		addresses := len(w.s.RequestsMatching("", "/attachments/*"))
		want := readFile(t, "history.jsonl")
		export(t, t.TempDir(), 5, "--since", "82d")
		code, _, errOut = export(t, ".", 0, "--since", "82d")
		require.Equal(t, 0, code, errOut)
		return []any{ids, len(media), addresses, again, want == readFile(t, "history.jsonl")}
	}
	reference := exportAt(t, t0)
	require.Len(t, reference[0], 12)
	for _, at := range []time.Time{time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(2099, 12, 31, 12, 0, 0, 0, time.UTC)} {
		t.Run(at.Format("2006-01-02"), func(t *testing.T) {
			assert.Equal(t, reference, exportAt(t, at))
		})
	}
}

// The documented commands, run twice in a row on the embedded fake in one
// folder: the second run starts the export over (the demo data is new at
// every run) and ends as the first, exit code 0.
func TestDocumentedCommands(t *testing.T) {
	exported := demotest.Outcome{Code: 0, Stdout: []string{"Exported 34 messages of 10 conversations since ", "6 media files.\n"}}
	demotest.CheckDocumentedCommands(t, "export-history", run, map[string]demotest.Outcome{
		"--since 90d --dir convo-export": exported,
		"--since 60d --dir demo-export":  exported,
	})
}

// The summary counts in the singular for one: "1 conversation", "1 media
// file".
func TestCountSingular(t *testing.T) {
	for _, tc := range []struct {
		n     int
		thing string
		want  string
	}{{0, "conversation", "0 conversations"}, {1, "conversation", "1 conversation"}, {2, "media file", "2 media files"}, {1, "message", "1 message"}} {
		assert.Equal(t, tc.want, count(tc.n, tc.thing))
	}
}
