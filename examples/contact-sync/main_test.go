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
	"github.com/convoapi/convo-go/examples/internal/demo"
	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/oascheck"
)

const line = "5511900000001" // the chatapp account's provider_identifier

type world struct {
	s       *fake.Server
	account string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	s := fake.New(t, fake.WithClock(fake.NewManualClock(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))), fake.WithHandlerMiddleware(oascheck.Middleware(t)))
	co := s.Company()
	acc := co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelChatapp, DisplayName: "Sales", ProviderIdentifier: line})
	co.AddChannel(fake.ChannelAccount{Channel: convo.ChannelBotapp, DisplayName: "Bot", ProviderIdentifier: "bot-1"})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511987654321", Name: "Ana Souza",
		Tags: []string{"vip", "newsletter", "trial"}, CustomFields: map[string]string{"city": "São Paulo", "plan": "gold"}})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511911112222", Name: "Carla Mendes", Tags: []string{"trial"}})
	co.AddContact(fake.Contact{ChannelAccountID: acc, PhoneNumber: "5511933334444", Name: "Eva Martins", CustomFields: map[string]string{"city": "Recife"}})
	demo.PointAt(t, s)
	return &world{s: s, account: acc}
}

func (w *world) contact(t *testing.T, phone string) fake.Contact {
	t.Helper()
	ct, ok := w.s.Company().ContactByPhone(w.account, phone)
	require.True(t, ok, "no contact %s", phone)
	return ct
}

func writeCSV(t *testing.T, content string) string {
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

func TestSyncFromStdin(t *testing.T) {
	newWorld(t)
	stdin = strings.NewReader("phone,name\n5511900001111,Ivo\n")
	t.Cleanup(func() { stdin = os.Stdin })
	code, out, errOut := syncCSV(t, "--file", "-", "--phone-number-id", line)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "line 2: 5511900001111 Ivo: created")
}

func TestSyncRefusals(t *testing.T) {
	good := "phone,name\n5511900001111,Ivo\n"
	tests := []struct {
		name   string
		csv    string // written to a file passed as --file, unless args say otherwise
		args   []string
		stderr string
	}{
		{name: "no file flag", args: []string{"--phone-number-id", line}, stderr: "--file is required"},
		{name: "no account flag", csv: good, args: []string{}, stderr: "--phone-number-id is required"},
		{name: "missing file", args: []string{"--file", "/nonexistent/x.csv", "--phone-number-id", line}, stderr: "no such file"},
		{name: "unknown account", csv: good, args: []string{"--phone-number-id", "bot-1"},
			stderr: "--phone-number-id bot-1 is not one of the company's chatapp accounts: 5511900000001 (Sales)"},
		{name: "empty file", csv: "", args: []string{"--phone-number-id", line}, stderr: "the file is empty"},
		{name: "unknown column", csv: "phone,name,city\n", args: []string{"--phone-number-id", line}, stderr: `unknown column "city"`},
		{name: "no name column", csv: "phone,cf:city\n", args: []string{"--phone-number-id", line}, stderr: "the columns phone and name are required"},
		{name: "duplicate column", csv: "phone,name,phone\n", args: []string{"--phone-number-id", line}, stderr: `column "phone" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			args := tt.args
			if tt.csv != "" || tt.name == "empty file" {
				args = append([]string{"--file", writeCSV(t, tt.csv)}, args...)
			}
			code, _, errOut := syncCSV(t, args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.stderr)
			assert.Len(t, w.s.Company().Contacts(), 3, "nothing written")
		})
	}
}

// The command of the doc comment, on the embedded demo data.
func TestEmbeddedDemoWithSample(t *testing.T) {
	t.Setenv("CONVO_BASE_URL", "")
	t.Setenv("CONVO_API_KEY", "")
	code, out, errOut := syncCSV(t, "--file", "sample.csv", "--phone-number-id", "5511940000001")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "embedded fake")
	assert.Contains(t, errOut, "line 5: skipped: bad phone")
	assert.Contains(t, out, "3 skipped, 0 failed")
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

// withoutServerLine drops the first line of stderr, which names the
// server's address (a new port per fake).
func withoutServerLine(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// The same file on two fakes seeded alike, one row at a time and sixteen at
// once: byte-identical output, and the same contacts in the end.
func TestConcurrentSyncMatchesSequential(t *testing.T) {
	run := func(concurrency string) (string, string, []fake.Contact) {
		w := newWorld(t)
		for i := 0; i < 300; i += 3 { // a third of the rows' contacts exist already
			w.s.Company().AddContact(fake.Contact{ChannelAccountID: w.account, PhoneNumber: fmt.Sprintf("55119%08d", i), Name: "Old", Tags: []string{"trial"}})
		}
		code, out, errOut := syncCSV(t, "--file", writeCSV(t, bigCSV(w, 300)), "--phone-number-id", line, "--concurrency", concurrency)
		require.Equal(t, 0, code, errOut)
		cts := w.s.Company().Contacts()
		for i := range cts {
			cts[i].ID, cts[i].CreatedAt = "", time.Time{}
		}
		slices.SortFunc(cts, func(a, b fake.Contact) int { return strings.Compare(a.PhoneNumber, b.PhoneNumber) })
		// Tag ids are random per fake: name them.
		trial := w.s.Company().TagID("trial")
		return strings.ReplaceAll(out, trial, "TRIAL"), strings.ReplaceAll(withoutServerLine(errOut), trial, "TRIAL"), cts
	}
	seqOut, seqErr, seqState := run("1")
	parOut, parErr, parState := run("16")
	assert.Equal(t, seqOut, parOut)
	assert.Equal(t, seqErr, parErr)
	assert.Contains(t, seqOut, "Summary: 196 created, 98 updated, 0 unchanged, 6 skipped, 0 failed")
	assert.Equal(t, len(seqState), len(parState))
	for i := range seqState {
		assert.Equal(t, seqState[i].PhoneNumber, parState[i].PhoneNumber)
		assert.Equal(t, seqState[i].CustomFields, parState[i].CustomFields)
		assert.Equal(t, seqState[i].TagIDs == nil, parState[i].TagIDs == nil)
	}
}

// A row with only tags to remove, for a contact that has no tag at all,
// changes nothing: it is reported unchanged and no removal is sent.
func TestSyncTagsOnUntaggedContactIsUnchanged(t *testing.T) {
	w := newWorld(t)
	code, out, errOut := syncCSV(t, "--file", writeCSV(t, "phone,name,remove_tags\n5511933334444,Eva Martins,"+w.s.Company().TagID("vip")+"\n"),
		"--phone-number-id", line)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "line 2: 5511933334444 Eva Martins: unchanged (no tags to remove)")
	for _, r := range w.s.Requests() {
		assert.NotEqual(t, "DELETE", r.Method, "no removal sent")
	}
}

func TestHelpSaysWhatIsRequired(t *testing.T) {
	code, _, errOut := syncCSV(t, "--help")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `-file string\s+CSV file to sync, - for standard input \(required\)`, errOut)
	assert.Regexp(t, `-concurrency int\s+rows synced at once`, errOut)
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
