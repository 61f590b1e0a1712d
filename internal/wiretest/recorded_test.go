package wiretest

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/convoapi/convo-go/internal/testkit"
	"github.com/convoapi/convo-go/internal/wiretest/oascheck"
)

// TestRecordedExchanges validates against api/openapi.yaml (its strict
// reading) every exchange the core module's tests recorded: every request
// and answer of the fakes they start, of the convofake processes they talk
// to, and every request of their SDK clients on canned answers. A mismatch
// fails the subtest of the package, naming the test that made the exchange.
//
// .ci/run runs the core's tests with CONVO_WIRE_RECORD set to a directory,
// then this test with the same setting. Without it, the test runs the
// recording packages' tests itself (go test, without -race) into a
// temporary directory first.
func TestRecordedExchanges(t *testing.T) {
	want, err := recordingPackages(coreDir)
	require.NoError(t, err)
	require.NotEmpty(t, want, "no test of the core module records its exchanges (package wirerecord)")
	dir := os.Getenv(testkit.EnvDir)
	if dir == "" {
		dir = t.TempDir()
		recordCoreTests(t, dir, want)
	}
	records, err := testkit.Read(dir)
	require.NoError(t, err)

	type key struct{ pkg, test string }
	checkers := map[key]*oascheck.Checker{}
	for _, r := range records {
		k := key{r.Package, r.Test}
		if checkers[k] == nil {
			checkers[k], err = oascheck.New()
			require.NoError(t, err)
		}
		checkers[k].Check(r)
	}
	byPackage := map[string][]key{}
	for k := range checkers {
		byPackage[k.pkg] = append(byPackage[k.pkg], k)
	}
	for _, pkg := range want {
		assert.Contains(t, byPackage, pkg, "the tests of %s recorded no exchange in %s", pkg, dir)
	}
	for _, pkg := range slices.Sorted(maps.Keys(byPackage)) {
		t.Run(pkg, func(t *testing.T) {
			keys := byPackage[pkg]
			slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.test, b.test) })
			total := oascheck.Stats{Skipped: map[string]int{}}
			for _, k := range keys {
				st := checkers[k].Stats()
				total.Exchanges += st.Exchanges
				total.Requests += st.Requests
				total.Answers += st.Answers
				total.Refused += st.Refused
				for reason, n := range st.Skipped {
					total.Skipped[reason] += n
				}
				for _, line := range st.Mismatches {
					total.Mismatches = append(total.Mismatches, line)
					t.Errorf("%s (in %s): oascheck: mismatch: %s", k.test, pkg, line)
				}
			}
			t.Logf("%d tests: %s", len(keys), total.Summary())
			assert.Positive(t, total.Requests+total.Refused, "no recorded request was validated")
		})
	}
}

// recordingPackages lists the core module's packages (directories relative
// to it, with slashes) whose tests record their exchanges: a test file
// calls one of package testkit's recorders (Middleware, Transport,
// RequestTransport), or imports the examples' demotest, which does.
func recordingPackages(root string) ([]string, error) {
	const module = "github.com/convoapi/convo-go"
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // a nested module, or no package
			}
		}
		tests, err := filepath.Glob(filepath.Join(path, "*_test.go"))
		if err != nil {
			return err
		}
		for _, name := range tests {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				return err
			}
			if records(f, module) {
				rel, err := filepath.Rel(root, path)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	return out, err
}

// records reports whether the test file f records exchanges: it imports
// the examples' demotest, or calls a recorder of package testkit (which
// holds other test support too, so importing it is not enough).
func records(f *ast.File, module string) bool {
	testkit := ""
	for _, spec := range f.Imports {
		switch p, _ := strconv.Unquote(spec.Path.Value); p {
		case module + "/examples/internal/demotest":
			return true
		case module + "/internal/testkit":
			testkit = "testkit"
			if spec.Name != nil {
				testkit = spec.Name.Name
			}
		}
	}
	if testkit == "" {
		return false
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return !found
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == testkit && slices.Contains([]string{"Middleware", "Transport", "RequestTransport"}, sel.Sel.Name) {
			found = true
		}
		return !found
	})
	return found
}

// recordCoreTests runs the tests of the core's packages pkgs, recording
// their exchanges into dir.
func recordCoreTests(t *testing.T, dir string, pkgs []string) {
	t.Helper()
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-5*time.Second))
		defer cancel()
	}
	args := []string{"test", "-count=1"}
	for _, p := range pkgs {
		args = append(args, "./"+p)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = coreDir
	cmd.Env = append(os.Environ(), testkit.EnvDir+"="+dir)
	t.Logf("%s unset: recording the core's tests (go %s)", testkit.EnvDir, strings.Join(args, " "))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the core's tests failed:\n%s", out)
}

// TestRecordingCatchesAMismatch: an answer off the document, recorded as
// the core's tests record theirs, is a mismatch naming the operation and
// the field, attributed to the test that made the exchange.
func TestRecordingCatchesAMismatch(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(testkit.EnvDir, dir)
	t.Run("core test", func(t *testing.T) {
		h := testkit.Middleware(t)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = io.WriteString(w, `{"success":true,"timestamp":"2026-11-22T10:00:00.000Z","data":[{"id":7}]}`)
		}))
		req := httptest.NewRequest(http.MethodGet, "/v1/channels", nil)
		req.Header.Set("Authorization", "Bearer key")
		h.ServeHTTP(httptest.NewRecorder(), req)
	})
	records, err := testkit.Read(dir)
	require.NoError(t, err)
	require.Len(t, records, 1)
	assert.Equal(t, "TestRecordingCatchesAMismatch/core_test", records[0].Test)
	c, err := oascheck.New()
	require.NoError(t, err)
	c.Check(records[0])
	st := c.Stats()
	assert.Equal(t, 1, st.Requests, "the request is valid")
	require.NotEmpty(t, st.Mismatches)
	assert.Contains(t, st.Mismatches[0], "GET /channels (listChannels): answer 200: ")
	assert.Contains(t, strings.Join(st.Mismatches, "\n"), "field /data = [{\"id\":7}]: value must be an object")
}
