package main

import (
	"bytes"
	"context"
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

const line = "5511900000001" // the chatapp account's provider_identifier

type world struct {
	s       *fake.Server
	account string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	s := demotest.Fake(t, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: line})
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot", ProviderIdentifier: "bot-1"})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321", Name: "Ana Souza",
		Tags: []string{"vip", "newsletter", "trial"}, CustomFields: map[string]string{"city": "São Paulo", "plan": "gold"}})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222", Name: "Carla Mendes", Tags: []string{"trial"}})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511933334444", Name: "Eva Martins", CustomFields: map[string]string{"city": "Recife"}})
	return &world{s: s, account: acc}
}

func (w *world) contact(t *testing.T, phone string) fake.Contact {
	t.Helper()
	ct, ok := w.s.Company().ContactByPhone(w.account, phone)
	require.True(t, ok, "no contact %s", phone)
	return ct
}

func writeCSV(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "contacts.csv")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func syncCSV(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// One file with every kind of row: a race on creation, a failure at the
// service, an update, bad rows of each kind, a creation, a no-op.
func TestSyncMixedFile(t *testing.T) {
	w := newWorld(t)
	co := w.s.Company()
	vip, trial, newsletter := co.TagID("vip"), co.TagID("trial"), co.TagID("newsletter")

	// Line 2: Carla exists: Contacts.Ensure's creation gets CONTACT_EXISTS
	// and finds her (the race of two creators is Ensure's own test).
	// Line 3: the first custom-field merge fails at the service.
	w.s.AddFault(fake.Fault{Method: "PATCH", Path: "/chatapp/contacts/custom-fields", Status: 400, Code: "INVALID_PARAM", Times: 1})

	csvText := "phone,name,cf:city,cf:plan,remove_tags\n" +
		"+55 11 91111-2222,Carla Mendes,,," + trial + "\n" + // 2: exists, tags only
		"+55 11 95555-6666,Dora Dias,Natal,,\n" + // 3: created, then the merge fails
		"+55 (11) 98765-4321,Ana Souza,Campinas,,  " + newsletter + " ; " + trial + "|" + newsletter + "\n" + // 4: updated
		"12345,Too Short,Nowhere,,\n" + // 5: bad phone
		"+55 11 97777-8888,,Curitiba,,\n" + // 6: missing name
		"+55 11 97777-9999,Hugo,Porto Alegre\n" + // 7: wrong column count
		"\"+55 11 9\"x,Bad Quote,,,\n" + // 8: broken quoting
		"5521998765432,Bruno Lima,Rio,basic,\n" + // 9: created
		"+55 11 93333-4444,Eva Martins,,,\n" // 10: unchanged
	// One row at a time: each fault above must meet the row it is meant for.
	code, out, errOut := syncCSV(t, "--file", writeCSV(t, csvText), "--phone-number-id", line, "--concurrency", "1")

	assert.Equal(t, 1, code, "a failed row makes the exit code 1\nstdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "line 2: 5511911112222 Carla Mendes: updated (tags removed if present "+trial+")")
	assert.Contains(t, out, "line 4: 5511987654321 Ana Souza: updated (custom fields city; tags removed if present "+newsletter+","+trial+")")
	assert.Contains(t, out, "line 9: 5521998765432 Bruno Lima: created (custom fields city,plan)")
	assert.Contains(t, out, "line 10: 5511933334444 Eva Martins: unchanged")
	assert.Contains(t, out, "Summary: 1 created, 2 updated, 1 unchanged, 4 skipped, 1 failed")

	assert.Contains(t, errOut, "line 3: 5511955556666: failed: merging custom fields: convo: 400 INVALID_PARAM")
	assert.Contains(t, errOut, `line 5: skipped: bad phone "12345"`)
	assert.Contains(t, errOut, "line 6: skipped: missing name")
	assert.Contains(t, errOut, "line 7: skipped: 3 columns, the header has 5")
	assert.Contains(t, errOut, "line 8: skipped: ")

	// The service's state is what the file asked for, and nothing else.
	ana := w.contact(t, "5511987654321")
	assert.Equal(t, map[string]string{"city": "Campinas", "plan": "gold"}, ana.CustomFields, "merged, not replaced")
	assert.Equal(t, []string{vip}, ana.TagIDs)
	assert.Empty(t, w.contact(t, "5511911112222").TagIDs)
	bruno := w.contact(t, "5521998765432")
	assert.Equal(t, "Bruno Lima", bruno.Name)
	assert.Equal(t, map[string]string{"city": "Rio", "plan": "basic"}, bruno.CustomFields)
	assert.Equal(t, "Dora Dias", w.contact(t, "5511955556666").Name, "created before the merge failed")
	assert.Equal(t, map[string]string{"city": "Recife"}, w.contact(t, "5511933334444").CustomFields)
	_, ok := co.ContactByPhone(w.account, "5511977778888")
	assert.False(t, ok, "a skipped row must not be created")
	assert.Len(t, co.Contacts(), 5)
}

func TestSyncCleanFileAndRerun(t *testing.T) {
	w := newWorld(t)
	file := writeCSV(t, "\ufeffname,phone,cf:plan\nBruno Lima,+55 21 99876-5432,basic\nAna Souza,5511987654321,gold\n")

	code, out, errOut := syncCSV(t, "--file", file, "--phone-number-id", line)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Summary: 1 created, 1 updated, 0 unchanged, 0 skipped, 0 failed")

	// Running the same file again creates nothing: it is idempotent.
	code, out, errOut = syncCSV(t, "--file", file, "--phone-number-id", line)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Summary: 0 created, 2 updated, 0 unchanged, 0 skipped, 0 failed")
	assert.Len(t, w.s.Company().Contacts(), 4)
}

func TestSyncRuns(t *testing.T) {
	good := "phone,name\n5511900001111,Ivo\n"
	file := []string{"--file", "FILE", "--phone-number-id", line} // FILE: the csv, written to a file
	tests := []struct {
		name     string
		csv      string
		args     []string
		stdin    string
		env      map[string]string // set after pointing the client at the fake
		code     int
		stdout   string
		stderr   string
		contacts int // contacts of the fake afterwards (3 seeded)
	}{
		{name: "standard input", stdin: good, args: []string{"--file", "-", "--phone-number-id", line}, stdout: "line 2: 5511900001111 Ivo: created", contacts: 4},
		{
			// Only tags to remove, for a contact that has none: nothing to send.
			name: "tags on an untagged contact", csv: "phone,name,remove_tags\n5511933334444,Eva Martins,some-tag\n", args: file,
			stdout: "line 2: 5511933334444 Eva Martins: unchanged (no tags to remove)", contacts: 3,
		},
		{name: "help", args: []string{"--help"}, stderr: "CSV file to sync, - for standard input (required)", contacts: 3},
		{name: "no file flag", args: []string{"--phone-number-id", line}, code: 1, stderr: "--file and --phone-number-id are required", contacts: 3},
		{name: "no account flag", csv: good, args: file[:2], code: 1, stderr: "--file and --phone-number-id are required", contacts: 3},
		{name: "missing file", args: []string{"--file", "/nonexistent/x.csv", "--phone-number-id", line}, code: 1, stderr: "no such file", contacts: 3},
		{name: "unknown account", csv: good, args: []string{"--file", "FILE", "--phone-number-id", "bot-1"}, code: 1,
			stderr: "--phone-number-id bot-1 is not one of the company's chatapp accounts: 5511900000001 (Sales)", contacts: 3},
		{name: "empty file", args: file, code: 1, stderr: "the file is empty", contacts: 3},
		{name: "unknown column", csv: "phone,name,city\n", args: file, code: 1, stderr: `unknown column "city"`, contacts: 3},
		{name: "no name column", csv: "phone,cf:city\n", args: file, code: 1, stderr: "the columns phone and name are required", contacts: 3},
		{name: "duplicate column", csv: "phone,name,phone\n", args: file, code: 1, stderr: `column "phone" appears twice`, contacts: 3},
		{name: "half configured", csv: good, args: file, env: map[string]string{convo.EnvAPIKey: ""}, code: 1,
			stderr: "CONVO_BASE_URL is set but CONVO_API_KEY is missing or empty", contacts: 3},
		{
			// The command of the doc comment, on the embedded demo data.
			name: "sample on demo data", args: []string{"--file", "sample.csv", "--phone-number-id", "5511940000001"},
			env: map[string]string{convo.EnvBaseURL: "", convo.EnvAPIKey: ""}, stdout: "3 skipped, 0 failed", stderr: "line 5: skipped: bad phone", contacts: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			stdin = strings.NewReader(tt.stdin)
			t.Cleanup(func() { stdin = os.Stdin })
			args := slices.Clone(tt.args)
			if i := slices.Index(args, "FILE"); i >= 0 {
				args[i] = writeCSV(t, tt.csv)
			}
			code, out, errOut := syncCSV(t, args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, out, tt.stdout)
			assert.Contains(t, errOut, tt.stderr)
			assert.Len(t, w.s.Company().Contacts(), tt.contacts)
			assert.Empty(t, w.s.RequestsMatching("DELETE", ""), "no tag removal sent")
		})
	}
}

// bigCSV is a file of n rows of every kind: known contacts (some with tags
// to remove), new ones, and a bad row every 50.
func bigCSV(w *world, n int) string {
	co := w.s.Company()
	var b strings.Builder
	b.WriteString("phone,name,cf:city,remove_tags\n")
	for i := range n {
		switch {
		case i%50 == 49:
			fmt.Fprintf(&b, "123%d,Bad %d,,\n", i, i)
		case i%3 == 0:
			fmt.Fprintf(&b, "+55 11 9%08d,Row %d,City %d,%s\n", i, i, i%7, co.TagID("trial"))
		case i%3 == 1:
			fmt.Fprintf(&b, "5511%09d,Row %d,,\n", i, i)
		default:
			fmt.Fprintf(&b, "5521%09d,Row %d,City %d,\n", i, i, i%5)
		}
	}
	return b.String()
}

// The same file on two fakes seeded alike, one row at a time and sixteen at
// once: byte-identical output, and the same contacts in the end.
func TestConcurrentSyncMatchesSequential(t *testing.T) {
	run := func(concurrency string) (out string, contacts map[string]any) {
		w := newWorld(t)
		for i := 0; i < 300; i += 3 { // a third of the rows' contacts exist already
			w.s.Company().AddContact(fake.Contact{ChannelAccountID: w.account, PhoneNumber: fmt.Sprintf("55119%08d", i), Name: "Old", Tags: []string{"trial"}})
		}
		code, out, errOut := syncCSV(t, "--file", writeCSV(t, bigCSV(w, 300)), "--phone-number-id", line, "--concurrency", concurrency)
		require.Equal(t, 0, code, errOut)
		contacts = map[string]any{}
		for _, ct := range w.s.Company().Contacts() {
			contacts[ct.PhoneNumber] = []any{ct.CustomFields, len(ct.TagIDs)}
		}
		// The first line of stderr names the fake's address; tag ids are
		// random per fake.
		_, errOut, _ = strings.Cut(errOut, "\n")
		return strings.ReplaceAll(out+errOut, w.s.Company().TagID("trial"), "TRIAL"), contacts
	}
	seqOut, seqContacts := run("1")
	parOut, parContacts := run("16")
	assert.Equal(t, seqOut, parOut)
	assert.Contains(t, seqOut, "Summary: 196 created, 98 updated, 0 unchanged, 6 skipped, 0 failed")
	assert.Len(t, seqContacts, 3+100+196) // seeded, existing, created
	assert.Equal(t, seqContacts, parContacts)
}

// cancelOnWrite cancels the run as soon as the first row is reported.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.Buffer.Write(p)
}

func TestInterruptedSyncSaysSoAndExits1(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	var errOut bytes.Buffer
	code := run(ctx, []string{"--file", writeCSV(t, bigCSV(w, 200)), "--phone-number-id", line}, out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), "interrupted")
	assert.Less(t, strings.Count(out.String(), "\nline "), 199, "the run stopped early")
}

// The documented command, run twice in a row on the embedded fake (new demo
// data each time): the same summary, exit code 0 (the bad rows of the sample
// are reported, not failures).
func TestDocumentedCommands(t *testing.T) {
	demotest.CheckDocumentedCommands(t, "contact-sync", run, map[string]demotest.Outcome{
		"--file examples/contact-sync/sample.csv --phone-number-id 5511940000001": {
			Code: 0, Stdout: []string{"Summary: 1 created, 2 updated, 0 unchanged, 3 skipped, 0 failed"}},
	})
}
