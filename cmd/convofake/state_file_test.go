package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/fake"
	"github.com/convoapi/convo-go/internal/testkit"
)

// contactCount is the number of contacts of the default company.
func contactCount(t *testing.T, p *proc) int {
	t.Helper()
	r := p.admin(http.MethodGet, "/_fake/state/contacts", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return len(r.JSON(t)["items"].([]any))
}

// A state written through the API survives a shutdown (the path SIGINT
// and SIGTERM take) and a restart from the file.
func TestStateFileSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	p := start(t, "--state", path, "--clock", "frozen:2026-11-22T10:00:00Z", "--rate-limit", "0")
	before := contactCount(t, p)
	for i := range 2000 {
		r := p.do(http.MethodPost, "/v1/chatapp/contacts", "Bearer "+fake.DefaultAPIKey,
			fmt.Sprintf(`{"phone_number_id":"5511940000001","phone_number":"5511%09d","name":"Load %d"}`, i, i))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	}
	seed := p.admin(http.MethodGet, "/_fake/seed", "")
	require.Equal(t, exitOK, p.stop())
	assert.Contains(t, p.stderr.String(), "state saved")

	assert.Contains(t, p.stdout.String(), "# data: the demo data; --state "+path+" does not exist yet: it is written on exit\n")

	again := start(t, "--state", path, "--rate-limit", "0")
	assert.Equal(t, before+2000, contactCount(t, again), "every contact written is back")
	assert.Regexp(t, `# data: --state `+regexp.QuoteMeta(path)+`, loaded: 1 company, \d+ contacts, \d+ conversations, \d+ messages \(written back on exit\)\n`,
		again.stdout.String(), "a restart says what it loaded")
	r := again.do(http.MethodGet, "/v1/chatapp/contacts/lookup?phone_number=5511000001999&phone_number_id=5511940000001", "Bearer "+fake.DefaultAPIKey, "")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "2026-11-22T10:00:00.000Z", again.admin(http.MethodGet, "/_fake/clock", "").JSON(t)["now"], "the frozen clock too")
	assert.JSONEq(t, string(seed.Body), string(again.admin(http.MethodGet, "/_fake/seed", "").Body))
}

// POST /_fake/save writes the file; a save cut half-way (the write fails, or
// the process dies and leaves its temporary file) leaves the previous file
// whole, and it loads.
func TestStateFileSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	p := start(t, "--state", path)
	r := p.admin(http.MethodPost, "/_fake/save", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, path, r.JSON(t)["file"])
	saved, err := os.ReadFile(path)
	require.NoError(t, err)

	tests := []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"the write fails half-way", func(w io.Writer) error {
			_, _ = w.Write(saved[:len(saved)/2])
			return errors.New("disk full")
		}},
		{"the encoding fails at once", func(io.Writer) error { return errors.New("cannot encode") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, writeAtomic(path, tt.write))
			now, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, saved, now, "the previous file is whole")
			assert.Equal(t, []string{".state.json.lock", "state.json"}, dirNames(t, dir), "no temporary file is left")
		})
	}

	// A process killed mid-save leaves its temporary file: the next start
	// removes it.
	count := contactCount(t, p)
	require.Equal(t, exitOK, p.stop())
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".state.json.tmp-123"), saved[:len(saved)/3], 0o600))
	again := start(t, "--state", path)
	assert.Equal(t, count, contactCount(t, again))
	assert.Equal(t, []string{".state.json.lock", "state.json"}, dirNames(t, dir), "the temporary file is gone")
}

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestStateFileErrors(t *testing.T) {
	p := start(t)
	r := p.admin(http.MethodPost, "/_fake/save", "")
	assertAdminError(t, r, http.StatusConflict, "no_state_file")

	bad := filepath.Join(t.TempDir(), "state.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"companies": [`), 0o600))
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--state", bad)
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "--state "+bad)

	// A file that does not exist yet: the start is empty-handed.
	fresh := filepath.Join(t.TempDir(), "state.json")
	f, seed, doc, err := openStateFile(fresh, defaultMaxSeedSize)
	require.NoError(t, err)
	assert.Nil(t, seed)
	assert.Nil(t, doc)
	f.lock.release()
}

// What cannot be a state file is refused at start, exit 2, naming the file
// and why: a place no save could write, null or another non-object, a file
// over --max-seed-size, a directory.
func TestStateFileRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	big := write("big.json", `{"companies": [{"contacts": []}]}`+strings.Repeat(" ", 4096))
	tests := []struct {
		name, path string
		args       []string
		want       string
	}{
		{"a directory that does not exist", filepath.Join(dir, "no", "state.json"), nil, "cannot be written: its lock file cannot be created"},
		{"a file system that is read-only", "/proc/convofake-state.json", nil, "--state /proc/convofake-state.json"},
		{"null", write("null.json", "null"), nil, "the document is null; want a JSON object"},
		{"an array", write("array.json", `[{"companies": []}]`), nil, "the document is an array; want a JSON object"},
		{"a number", write("number.json", `42`), nil, "the document is a number"},
		{"empty", write("empty.json", ""), nil, "the document is empty"},
		{"a byte-order mark", write("bom.json", "\xEF\xBB\xBF"+`{"companies": []}`), nil,
			"the document starts with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it without one"},
		{"random bytes", write("random.bin", "\x8f\x00\x13\xfe{}"), nil, "the document is not JSON: it starts with the byte 0x8F"},
		{"over --max-seed-size", big, []string{"--max-seed-size", "1KiB"}, "larger than --max-seed-size (1024 bytes)"},
		{"a directory", dir, nil, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stderr := runOnce(t, append([]string{"--addr", "127.0.0.1:0", "--state", tt.path}, tt.args...)...)
			assert.Equal(t, exitNoStart, code)
			assert.Contains(t, stderr, tt.want)
			assert.Contains(t, stderr, "--state "+tt.path)
		})
	}
	// --seed is read within --max-seed-size as well.
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--seed", big, "--max-seed-size", "1KiB")
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "--seed "+big+": larger than --max-seed-size")
}

// Two convofakes on one --state file: the second does not start (exit 2)
// and names the file and the process that holds it; once the first ends,
// the file is free again.
func TestStateFileLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	p := start(t, "--state", path)
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--state", path)
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "--state "+path+": the file is in use by process "+fmt.Sprint(os.Getpid()))
	require.Equal(t, exitOK, p.stop())
	again := start(t, "--state", path)
	assert.Positive(t, contactCount(t, again))
}

// A restart from the state file keeps the default company's id (the one
// ?company= and the journal's company_id name), and the other companies'.
func TestStateFileKeepsCompanyIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	p := start(t, "--state", path)
	require.Equal(t, http.StatusCreated, p.admin(http.MethodPost, "/_fake/companies", `{"api_key": "job-key"}`).Status)
	before := p.admin(http.MethodGet, "/_fake/companies", "").JSON(t)["items"]
	require.Equal(t, exitOK, p.stop())
	again := start(t, "--state", path)
	assert.Equal(t, before, again.admin(http.MethodGet, "/_fake/companies", "").JSON(t)["items"])
}

// The state file is a seed document: --seed takes it as well.
func TestStateFileIsASeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	p := start(t, "--state", path)
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/save", "").Status)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var seed fake.Seed
	require.NoError(t, json.Unmarshal(data, &seed))
	assert.NotEmpty(t, seed.Companies[0].Contacts)
	other := start(t, "--seed", path)
	assert.Equal(t, contactCount(t, p), contactCount(t, other))
	assert.False(t, strings.Contains(string(data), "\\u003c"), "HTML is not escaped")
}

// A save that cannot be written (the directory went away after the start):
// at shutdown it makes the exit code 1 and says why; POST /_fake/save
// answers 500 and the previous file stays.
func TestStateFileSaveFails(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(gone, 0o700))
	var stdout, stderr testkit.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), safetyTimeout)
	defer cancel()
	code := run(ctx, []string{"--addr", "127.0.0.1:0", "--state", filepath.Join(gone, "state.json")}, &stdout, &stderr, func(string) {
		require.NoError(t, os.RemoveAll(gone))
		cancel()
	})
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr.String(), "--state "+filepath.Join(gone, "state.json")+": the state was not saved")

	missing := filepath.Join(t.TempDir(), "no", "state.json")
	a := newAdmin(fake.New(t), testAdminToken, slog.New(slog.DiscardHandler))
	a.state = &stateFile{path: missing, srv: a.srv}
	r := serve(a, http.MethodPost, "/_fake/save", "Bearer "+testAdminToken)
	assertAdminError(t, r, http.StatusInternalServerError, "save_failed")

	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	assert.Error(t, writeAtomic(sub, func(w io.Writer) error { _, err := w.Write([]byte("{}")); return err }), "a file cannot replace a directory")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file is removed")
}

// A state file is read as strictly as a seed body: a key given twice is
// refused at start, naming the place.
func TestStateFileStrictness(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"companies": [{"api_key": "k1", "api_key": "k2"}]}`), 0o600))
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--state", path)
	assert.Equal(t, exitNoStart, code)
	assert.Contains(t, stderr, "--state "+path+": seed: companies[0].api_key is given more than once")
}

// The state file is compact JSON: a third smaller than indented, and
// quicker to read back.
func TestStateFileIsCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	p := start(t, "--state", path)
	require.Equal(t, http.StatusOK, p.admin(http.MethodPost, "/_fake/save", "").Status)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, data))
	assert.Equal(t, compact.String()+"\n", string(data))
}

// A --state file that is a symbolic link is the file it links to: the save
// writes the target and the link stays a link, and a second convofake on
// the target does not start while the first holds the link.
func TestStateFileSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("target.json", link)) // dangling until the first save
	p := start(t, "--state", link, "--clock", "frozen:2026-11-22T10:00:00Z")
	code, stderr := runOnce(t, "--addr", "127.0.0.1:0", "--state", target)
	assert.Equal(t, exitNoStart, code, "the target is the first's file: %s", stderr)
	require.Equal(t, exitOK, p.stop())

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is still a link")
	data, err := os.ReadFile(target)
	require.NoError(t, err, "the save wrote the target")
	assert.Contains(t, string(data), `"companies"`)
	again := start(t, "--state", link)
	assert.Positive(t, contactCount(t, again), "a restart through the link reads the target")
}
