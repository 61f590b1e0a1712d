package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
	"github.com/convoapi/convo-go/examples/internal/demo"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/oascheck"
)

var (
	t0    = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	since = "2026-09-01"
)

const (
	convA = "00000000-0000-4000-8000-00000000000a" // open, 6 messages in range, across the 30-day window
	convB = "00000000-0000-4000-8000-00000000000b" // resolved, 4 messages 40 days ago
	convC = "00000000-0000-4000-8000-00000000000c" // archived, all before --since
	convD = "00000000-0000-4000-8000-00000000000d" // open, 2 of 3 messages in range
	convE = "00000000-0000-4000-8000-00000000000e" // open, no message at all
)

type world struct {
	s    *fake.Server
	want map[string]string // message id → conversation id, for every message to export
	data map[string][]byte // message id → file content, for available media
	co   *fake.Company
	ct   string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	s := fake.New(t, fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	w := &world{s: s, co: co, want: map[string]string{}, data: map[string][]byte{}}
	days := func(n int) time.Time { return t0.AddDate(0, 0, -n) }
	n := 0
	add := func(conv string, at time.Time, m fake.Message) {
		n++
		m.MessageID = fmt.Sprintf("msg-%02d", n)
		m.At = at
		if m.Sender == "" {
			m.Sender = fake.SenderContact
		}
		if m.Text == "" && m.Media == nil {
			m.Text = fmt.Sprintf("message %d", n)
		}
		co.AddMessage(conv, m)
		if !at.Before(t0.AddDate(0, 0, -82)) { // 2026-09-01 is 82 days before t0
			w.want[m.MessageID] = conv
		}
		if m.Media != nil && len(m.Media.Data) > 0 {
			w.data[m.MessageID] = m.Media.Data
		}
	}
	conv := func(id, phone string, status convo.ConversationStatus) string {
		ct := co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: phone})
		w.ct = ct
		return co.AddConversation(fake.Conversation{ID: id, ContactID: ct, Status: status})
	}

	conv(convA, "5511900000010", convo.ConversationOpen)
	add(convA, days(60), fake.Message{})
	add(convA, days(45), fake.Message{Type: "image", Text: "the sofa", Media: &fake.Media{MimeType: "image/png", Filename: "sofa.png", Data: []byte("\x89PNG sofa")}})
	add(convA, days(31), fake.Message{Sender: fake.SenderAgent})
	add(convA, days(10), fake.Message{Type: "document", Media: &fake.Media{MediaStatus: convo.MediaUnknown, MimeType: "application/pdf"}})
	add(convA, days(2), fake.Message{Sender: fake.SenderAutomation, Reactions: []fake.Reaction{{Emoji: "👍"}}})
	add(convA, t0.Add(-time.Hour), fake.Message{})

	conv(convB, "5511900000011", convo.ConversationResolved)
	add(convB, days(40), fake.Message{})
	add(convB, days(40).Add(time.Minute), fake.Message{Sender: fake.SenderAgent, Type: "document", Media: &fake.Media{MimeType: "application/pdf", Data: []byte("%PDF-1.4 quote")}})
	add(convB, days(40).Add(2*time.Minute), fake.Message{Type: "audio", Media: &fake.Media{MediaStatus: convo.MediaNoReference}})
	add(convB, days(39), fake.Message{Sender: fake.SenderAgent})

	conv(convC, "5511900000012", convo.ConversationArchived)
	add(convC, days(100), fake.Message{})
	add(convC, days(99), fake.Message{Sender: fake.SenderAgent})

	conv(convD, "5511900000013", convo.ConversationOpen)
	add(convD, days(95), fake.Message{})
	add(convD, days(20), fake.Message{})
	add(convD, days(5), fake.Message{Sender: fake.SenderPhone})

	conv(convE, "5511900000014", convo.ConversationOpen)

	demo.PointAt(t, s)
	return w
}

type exportLine struct {
	ConversationID string    `json:"conversation_id"`
	ContactID      string    `json:"contact_id"`
	Channel        string    `json:"channel"`
	MessageID      string    `json:"message_id"`
	SentAt         time.Time `json:"sent_at"`
	Type           string    `json:"type"`
	Media          *struct {
		MediaID     string `json:"media_id"`
		MediaStatus string `json:"media_status"`
	} `json:"media"`
	MediaFile string `json:"media_file"`
}

func readLines(t *testing.T, path string) []exportLine {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []exportLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l exportLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %d: %s", len(out)+1, sc.Text())
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

// export runs the command in dir (relative --out and --media-dir, so that
// two exports into two folders write identical files).
func export(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	all := append([]string{"--since", since, "--out", "history.jsonl", "--media-dir", "media", "--page-size", "2"}, args...)
	code := run(context.Background(), all, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// exportInterrupted runs the command and cancels it once n more lines are
// written, as a Ctrl-C would.
func exportInterrupted(t *testing.T, dir string, n int) (int, string) {
	t.Helper()
	t.Chdir(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	written := 0
	afterLine = func() {
		if written++; written == n {
			cancel()
		}
	}
	defer func() { afterLine = nil }()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--since", since, "--out", "history.jsonl", "--media-dir", "media", "--page-size", "2"}, &stdout, &stderr)
	return code, stderr.String()
}

func TestFullExport(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	code, out, errOut := export(t, dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Exported 12 messages of 3 conversations since 2026-09-01T00:00:00Z to history.jsonl, 2 media files in media.")
	assert.Contains(t, errOut, "export: 3 conversations done, 12 messages, 2 media files")

	lines := readLines(t, filepath.Join(dir, "history.jsonl"))
	got := map[string]string{}
	for _, l := range lines {
		_, dup := got[l.MessageID]
		assert.False(t, dup, "duplicate line for %s", l.MessageID)
		got[l.MessageID] = l.ConversationID
		assert.Equal(t, "chatapp", l.Channel)
		assert.NotEmpty(t, l.ContactID)
		if data, ok := w.data[l.MessageID]; ok {
			require.NotEmpty(t, l.MediaFile, l.MessageID)
			assert.Equal(t, filepath.Join("media", w.s.MediaID(l.MessageID)+map[string]string{"image": ".png", "document": ".pdf"}[l.Type]), l.MediaFile)
			b, err := os.ReadFile(filepath.Join(dir, l.MediaFile))
			require.NoError(t, err)
			assert.Equal(t, data, b)
		} else {
			assert.Empty(t, l.MediaFile, "%s has no file to fetch", l.MessageID)
		}
	}
	assert.Equal(t, w.want, got, "every message since --since, with its conversation, and nothing else")
	// Nulls stay null; raw (outside the contract) is left out.
	text, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		assert.NotContains(t, l, `"raw"`)
		switch {
		case strings.Contains(l, `"message_id":"msg-04"`):
			assert.Contains(t, l, `"status":null`)
			assert.Contains(t, l, `"media":{"media_id":null,"media_status":"unknown","mime_type":"application/pdf","file_size":null,"filename":null}`)
		case strings.Contains(l, `"message_id":"msg-05"`):
			assert.Contains(t, l, `"status":"delivered"`)
			assert.Contains(t, l, `"reactions":[{"emoji":"👍","direction":"inbound"`)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "media"))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no leftover temporary file")

	// Every read went beyond the 30-day window with since; the unknown and
	// no_reference media were never asked for.
	var attachments int
	for _, r := range w.s.Requests() {
		if strings.HasSuffix(r.Path, "/messages") {
			assert.Equal(t, "2026-09-01T00:00:00.000Z", r.Query.Get("since"), r.Path)
		}
		if strings.Contains(r.Path, "/attachments/") {
			attachments++
		}
	}
	assert.Equal(t, 2, attachments)

	// Once complete, running again changes nothing.
	before, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	code, out, _ = export(t, dir)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Export already complete: 12 messages in history.jsonl. Delete history.jsonl.state to export again.")
	after, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

// An export interrupted after n lines, then after m more, then run to the
// end, writes exactly the file an uninterrupted export writes.
func TestResumeAfterInterruption(t *testing.T) {
	tests := []struct{ n, m int }{
		{1, 1}, {2, 3}, {3, 4}, {5, 1}, {7, 2}, {11, 1}, {12, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("after %d then %d", tt.n, tt.m), func(t *testing.T) {
			w := newWorld(t)
			ref := t.TempDir()
			code, _, errOut := export(t, ref)
			require.Equal(t, 0, code, errOut)
			want, err := os.ReadFile(filepath.Join(ref, "history.jsonl"))
			require.NoError(t, err)

			dir := t.TempDir()
			code, errOut = exportInterrupted(t, dir, tt.n)
			require.Equal(t, 1, code)
			assert.Contains(t, errOut, "interrupted; ")
			assert.Contains(t, errOut, "run the same command again to resume")
			// The interrupted run leaves its n lines, some of them past
			// the last checkpoint; the resumed run must cut those.
			assert.Len(t, readLines(t, filepath.Join(dir, "history.jsonl")), tt.n)

			if tt.m > 0 {
				code, _ = exportInterrupted(t, dir, tt.m)
				require.Equal(t, 1, code)
			}

			code, out, errOut := export(t, dir)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "Exported 12 messages of 3 conversations since 2026-09-01T00:00:00Z to history.jsonl, 2 media files in media.")
			got, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "no duplicate, nothing lost, same order")

			media, err := os.ReadDir(filepath.Join(dir, "media"))
			require.NoError(t, err)
			assert.Len(t, media, len(w.data))
		})
	}
}

// A failure at the service stops the export at the last checkpoint; the
// next run goes on, and a conversation started meanwhile is exported too.
func TestResumeAfterServiceFailure(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	// The first read of conversation B fails (a 400 is not retried).
	w.s.AddFault(fake.Fault{Path: "/conversations/" + convB + "/messages", Status: 400, Code: "INVALID_PARAM", Times: 1})
	code, _, errOut := export(t, dir)
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, "conversation "+convB+": reading messages: convo: 400 INVALID_PARAM")
	assert.Contains(t, errOut, "messages exported so far; run the same command again to resume")

	// Meanwhile a new contact writes in.
	conv, msg := w.co.Receive(w.s.Company().Contacts()[0].ChannelAccountID, "5511900000099", "Newcomer", fake.Message{Text: "hello!", At: t0})

	code, out, errOut := export(t, dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Exported 13 messages of 4 conversations")
	seen := map[string]bool{}
	for _, l := range readLines(t, filepath.Join(dir, "history.jsonl")) {
		assert.False(t, seen[l.MessageID], "duplicate %s", l.MessageID)
		seen[l.MessageID] = true
		if l.MessageID == msg {
			assert.Equal(t, conv, l.ConversationID)
		}
	}
	assert.Len(t, seen, 13)
	assert.True(t, seen[msg])
}

func TestRefusals(t *testing.T) {
	newWorld(t)
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"bad since", []string{"--since", "last week"}, `--since "last week": want an RFC 3339 time`},
		{"page size", []string{"--page-size", "101"}, "--page-size must be 1 to 100"},
		{"stray argument", []string{"now"}, `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := export(t, t.TempDir(), tt.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.stderr)
		})
	}

	t.Run("another since than the state's", func(t *testing.T) {
		dir := t.TempDir()
		code, _ := exportInterrupted(t, dir, 3) // past the first checkpoint (page size 2)
		require.Equal(t, 1, code)
		code, _, errOut := export(t, dir, "--since", "2026-10-01")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "history.jsonl.state was written by an export with --since 2026-09-01")
	})
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-01-02T03:04:05Z": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"2026-01-02":           time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"90d":                  now.AddDate(0, 0, -90),
		"36h":                  now.Add(-36 * time.Hour),
	} {
		got, err := parseSince(in, now)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: %v", in, got)
	}
	for _, bad := range []string{"", "yesterday", "-3h", "0s", "d"} {
		_, err := parseSince(bad, now)
		assert.Error(t, err, bad)
	}
}

// The command of the doc comment, on the embedded demo data.
func TestEmbeddedDemo(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "")
	t.Setenv("CONVO_API_KEY", "")
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--since", "60d", "--out", "history.jsonl", "--media-dir", "media"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "embedded fake")
	assert.Contains(t, stdout.String(), "Exported ")
	lines := readLines(t, "history.jsonl")
	assert.NotEmpty(t, lines)
	old := 0
	for _, l := range lines {
		if l.MediaFile != "" {
			_, err := os.Stat(l.MediaFile)
			assert.NoError(t, err)
		}
		if l.SentAt.Before(time.Now().AddDate(0, 0, -30)) {
			old++
		}
	}
	assert.NotZero(t, old, "the demo data has history beyond the 30-day read window")
}

// bigWorld is a fake with n conversations of perConv messages each (one in
// five with an image), seeded alike on every call but for the ids the fake
// draws itself, which are fixed here.
func bigWorld(t *testing.T, n, perConv int) *fake.Server {
	t.Helper()
	s := fake.New(t, fake.WithClock(fake.NewManualClock(t0)), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, ProviderIdentifier: "5511900000001"})
	for c := range n {
		ct := co.AddContact(fake.Contact{ID: fmt.Sprintf("00000000-0000-4000-8000-1%011d", c), ChannelAccountID: acc, PhoneNumber: fmt.Sprintf("55119%08d", c), Name: fmt.Sprint("C", c)})
		cv := co.AddConversation(fake.Conversation{ID: fmt.Sprintf("00000000-0000-4000-8000-2%011d", c), ContactID: ct})
		for i := range perConv {
			m := fake.Message{MessageID: fmt.Sprintf("m-%d-%d", c, i), Sender: fake.SenderContact, Text: fmt.Sprint("hello ", i),
				At: t0.Add(-time.Duration(c*perConv+i) * time.Minute)}
			if i%5 == 4 {
				m.Text = ""
				m.Media = &fake.Media{MimeType: "image/png", Filename: fmt.Sprintf("p%d-%d.png", c, i), Data: []byte(fmt.Sprint("png ", c, i))}
			}
			co.AddMessage(cv, m)
		}
	}
	demo.PointAt(t, s)
	return s
}

// The same data exported one conversation at a time and sixteen at once:
// the same file, byte for byte, and the same media.
func TestConcurrentExportMatchesSequential(t *testing.T) {
	files := map[string][]byte{}
	for _, c := range []string{"1", "16"} {
		s := bigWorld(t, 40, 7)
		dir := t.TempDir()
		code, _, errOut := export(t, dir, "--concurrency", c, "--page-size", "3")
		require.Equal(t, 0, code, errOut)
		b, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
		require.NoError(t, err)
		for conv := range 40 { // media ids are drawn by each fake: name them
			id := fmt.Sprintf("m-%d-4", conv)
			b = bytes.ReplaceAll(b, []byte(s.MediaID(id)), []byte("media-of-"+id))
		}
		files[c] = b
		media, err := os.ReadDir(filepath.Join(dir, "media"))
		require.NoError(t, err)
		assert.Len(t, media, 40, "one image in each conversation, no leftover")
	}
	assert.Equal(t, 280, bytes.Count(files["1"], []byte("\n")))
	assert.Equal(t, string(files["1"]), string(files["16"]))
}

// Without --out, --state and --media-dir, everything goes into --dir, and
// nothing into the working directory.
func TestExportGoesIntoOneFolder(t *testing.T) {
	newWorld(t)
	wd := t.TempDir()
	t.Chdir(wd)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--since", since, "--dir", "out"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	top, err := os.ReadDir(wd)
	require.NoError(t, err)
	require.Len(t, top, 1)
	assert.Equal(t, "out", top[0].Name())
	names := []string{}
	in, err := os.ReadDir(filepath.Join(wd, "out"))
	require.NoError(t, err)
	for _, e := range in {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"history.jsonl", "history.jsonl.state", "media"}, names)
	assert.Contains(t, stdout.String(), filepath.Join("out", "history.jsonl"))
}

// A state written against one service is never resumed against another.
func TestStateOfAnotherServiceIsRefused(t *testing.T) {
	newWorld(t)
	dir := t.TempDir()
	code, _ := exportInterrupted(t, dir, 3)
	require.Equal(t, 1, code)
	st, err := loadState(filepath.Join(dir, "history.jsonl.state"))
	require.NoError(t, err)
	other := newWorld(t) // a second fake, another address
	assert.NotEqual(t, other.s.URL(), st.BaseURL)
	code, _, errOut := export(t, dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "history.jsonl.state was written by an export from "+st.BaseURL+", not "+other.s.URL())
}
