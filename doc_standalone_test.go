package convo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// internalReference matches what only the team's own notes explain: a
// decision number ("D16"), the design notes' file name, and a rule cited in
// the notes' dotted shorthand ("rule 2.3.3") where the words of the rule are
// what a reader needs. A citation of the service's specification by section
// ("spec §4.1", "spec §2.3 rule 1") may stay beside the rule it names.
var internalReference = regexp.MustCompile(`\bD[0-9]+\b|DESIGN\.md|\brule [0-9]+\.[0-9]`)

// TestGoDocStandsAlone reads the documentation as a user does, with
// `go doc -all`, and fails on any reference a reader cannot follow.
func TestGoDocStandsAlone(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	for _, pkg := range []string{".", "./fake"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command(goTool, "doc", "-all", pkg).CombinedOutput()
			require.NoError(t, err, string(out))
			var bad []string
			for i, line := range strings.Split(string(out), "\n") {
				if internalReference.MatchString(line) {
					bad = append(bad, strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
			assert.Empty(t, bad, "go doc -all %s cites internal notes; say the rule in words (docs/behaviour.md has them all):\n%s",
				pkg, strings.Join(bad, "\n"))
		})
	}
}

// TestErrorTextsStandAlone fails when a string literal in the code of convo
// or fake (error texts among them) cites an internal decision instead of
// saying the rule.
func TestErrorTextsStandAlone(t *testing.T) {
	for _, dir := range []string{".", "fake"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		fset := token.NewFileSet()
		var bad []string
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if ok && lit.Kind == token.STRING && internalReference.MatchString(lit.Value) {
					bad = append(bad, fset.Position(lit.Pos()).String()+": "+lit.Value)
				}
				return true
			})
		}
		assert.Empty(t, bad, "string literals citing internal notes:\n%s", strings.Join(bad, "\n"))
	}
}
