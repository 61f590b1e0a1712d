package demotest

import (
	"bytes"
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convo "github.com/convoapi/convo-go"
)

// Run is an example's run function: its arguments, its output streams, its
// exit code.
type Run func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Outcome is what a documented command does on the embedded fake, as its
// documentation says: the exit code of the program (the built binary's;
// `go run` turns any non-zero code into 1) and pieces of its standard output.
type Outcome struct {
	Code   int
	Stdout []string
}

// DocumentedCommands returns, keyed by their arguments joined by spaces, the
// commands that run the example name on the embedded fake as README.md (at
// the repository's root) and the example's doc comment (main.go) show them:
// `go run ./examples/<name> …`, or `./<name> …` for the built binary, with
// no CONVO_API_KEY on the command's line. The test runs in the example's
// folder.
func DocumentedCommands(tb testing.TB, name string) map[string][]string {
	tb.Helper()
	cmds := map[string][]string{}
	re := regexp.MustCompile(`(?:go run \./examples/` + regexp.QuoteMeta(name) + `|(?:^|[\s;&(])\./` + regexp.QuoteMeta(name) + `)((?:[ \t]+[^\s;&|#` + "`" + `]+)*)`)
	for _, file := range []string{"../../README.md", "main.go"} {
		b, err := os.ReadFile(file)
		require.NoError(tb, err)
		text := strings.ReplaceAll(string(b), "\\\n", " ") // a shell line continued
		for line := range strings.SplitSeq(text, "\n") {
			if strings.Contains(line, convo.EnvAPIKey+"=") {
				continue // on an account, not the embedded fake
			}
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				args := strings.Fields(m[1])
				cmds[strings.Join(args, " ")] = args
			}
		}
	}
	require.NotEmpty(tb, cmds, "no documented command runs %s", name)
	return cmds
}

// CheckDocumentedCommands runs each documented command of the example name
// (DocumentedCommands) twice in a row on the embedded fake, in one fresh
// folder holding the files the command names (copied from the repository
// under the same path), and checks that both runs have the outcome want
// gives for it. want must list exactly the documented commands: a new
// command in the documentation needs its outcome here, a command no longer
// documented is dropped from here.
func CheckDocumentedCommands(t *testing.T, name string, run Run, want map[string]Outcome) {
	cmds := DocumentedCommands(t, name)
	assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(cmds)),
		"the outcomes in the test and the commands documented for %s differ", name)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for key, args := range cmds {
		w, ok := want[key]
		if !ok {
			continue
		}
		t.Run(strings.Join(append([]string{name}, args...), " "), func(t *testing.T) {
			t.Setenv(convo.EnvBaseURL, "")
			t.Setenv(convo.EnvAPIKey, "")
			dir := t.TempDir()
			copyNamedFiles(t, root, dir, args)
			t.Chdir(dir)
			for i := range 2 {
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), args, &stdout, &stderr)
				assert.Equal(t, w.Code, code, "run %d: exit code; stderr:\n%s", i+1, stderr.String())
				for _, s := range w.Stdout {
					assert.Contains(t, stdout.String(), s, "run %d", i+1)
				}
			}
		})
	}
}

// copyNamedFiles copies into dir, under the same relative path, each file of
// the repository at root that an argument names.
func copyNamedFiles(t *testing.T, root, dir string, args []string) {
	for _, a := range args {
		src := filepath.Join(root, filepath.FromSlash(a))
		if !filepath.IsLocal(a) {
			continue
		}
		if info, err := os.Stat(src); err != nil || !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		dst := filepath.Join(dir, filepath.FromSlash(a))
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
}
