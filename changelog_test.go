package convo_test

// CHANGELOG.md names what the next release adds as it is in the code: a
// name renamed or removed before the release leaves no stale entry.

import (
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changelogNotNames are backquoted words of the "Added" sections that look
// like Go names but name something else, with what they are.
var changelogNotNames = map[string]string{
	"Host": "an HTTP header",
}

// TestChangelogAddedNamesExist checks each backquoted name in the "Added"
// sections of [Unreleased] (released sections are history: what a release
// added may have gone since, in a release that says so): a Go name (Name,
// Type.Member, pkg.Name, (*Type).Method, a member alone) must resolve in
// package convo, fake, otelconvo or redislimit; a flag (--name) must be declared by one
// of the programs; an environment variable (NAME_WITH_CAPS) must be read by
// the code; a route (GET /_fake/seed) or an admin path must be served by
// convofake; a path must exist in the repository (or be a standard library
// package). JSON fields, headers and code expressions are not checked.
func TestChangelogAddedNamesExist(t *testing.T) {
	log, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	names := changelogAddedNames(string(log))
	require.NotEmpty(t, names, "CHANGELOG.md's [Unreleased] has Added sections with names")
	goSrc := goSources(t)
	pkgs := changelogPackages(t)
	goroot := strings.TrimSpace(string(goCommand(t, ".", "env", "GOROOT")))
	checked := 0
	for _, name := range names {
		kind, ok := "", true
		switch {
		case changelogNotNames[name] != "":
			continue
		case flagName.MatchString(name):
			kind, ok = "flag", strings.Contains(goSrc, `"`+flagName.FindStringSubmatch(name)[1]+`"`)
		case envName.MatchString(name):
			kind, ok = "environment variable", strings.Contains(goSrc, `"`+name+`"`)
		case route.MatchString(name):
			_, path, _ := strings.Cut(name, " ")
			kind, ok = "HTTP route", strings.Contains(goSrc, path) // in a pattern, or a constant
		case strings.HasPrefix(name, "/_fake/"):
			kind, ok = "admin path", strings.Contains(goSrc, name)
		case goName.MatchString(name) && !pathExists(goroot, name):
			kind, ok = "Go name", resolveName(pkgs, name)
		case repoPath.MatchString(name) || pathExists(goroot, name):
			kind, ok = "path", pathExists(goroot, name)
		default:
			continue // a route, JSON, a header, an expression
		}
		checked++
		assert.True(t, ok, "CHANGELOG.md's Added names the %s `%s`, which the code does not have", kind, name)
	}
	t.Logf("%d names of %d backquoted words checked", checked, len(names))
}

var (
	flagName = regexp.MustCompile(`^--([a-z][a-z0-9-]*)(?: [A-Z]+)?$`)
	route    = regexp.MustCompile(`^(?:GET|POST|PATCH|PUT|DELETE) /\S*$`)
	envName  = regexp.MustCompile(`^[A-Z][A-Z0-9]*_[A-Z0-9_]+$`)
	// goName: a package of ours, (*Type), or a capitalized name with a
	// lowercase letter (not GET), each followed by .Member as often as need be.
	goName   = regexp.MustCompile(`^(?:convo|fake|otelconvo|redislimit|\(\*[A-Z]\w*\)|[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(?:\.[A-Z]\w*)*$`)
	repoPath = regexp.MustCompile(`^[\w.-]+/(?:[\w.-]+/?)*$`)
)

// changelogAddedNames returns the backquoted words of the "### Added…"
// sections under "## [Unreleased]".
func changelogAddedNames(log string) []string {
	unreleased, _, _ := strings.Cut(log[strings.Index(log, "## [Unreleased]"):], "\n## [")
	var names []string
	added := false
	for line := range strings.Lines(unreleased) {
		if strings.HasPrefix(line, "### ") {
			added = strings.HasPrefix(line, "### Added")
			continue
		}
		if added {
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// changelogPackages type-checks-loads the packages a Go name may be in, by
// their names.
func changelogPackages(t *testing.T) map[string]*types.Package {
	load := func(dir string, paths ...string) types.Importer { return exportImporter(t, dir, paths) }
	pkgs := map[string]*types.Package{}
	imp := load(".", modulePath, modulePath+"/fake")
	for _, path := range []string{modulePath, modulePath + "/fake"} {
		p, err := imp.Import(path)
		require.NoError(t, err)
		pkgs[p.Name()] = p
	}
	for _, nested := range []string{"otelconvo", "redislimit"} {
		if _, err := os.Stat(nested + "/go.mod"); err == nil { // absent from a module download
			p, err := load(nested, modulePath+"/"+nested).Import(modulePath + "/" + nested)
			require.NoError(t, err)
			pkgs[p.Name()] = p
		}
	}
	return pkgs
}

// resolveName reports whether name is a package of pkgs, or names an
// exported declaration of one of them, or a field or method of one, or of
// what a field holds (Contacts.Ensure: Client's field, its type's method).
func resolveName(pkgs map[string]*types.Package, name string) bool {
	name = regexp.MustCompile(`^\(\*(\w+)\)`).ReplaceAllString(name, "$1")
	parts := strings.Split(name, ".")
	in := pkgs
	if p, ok := pkgs[parts[0]]; ok {
		if parts = parts[1:]; len(parts) == 0 {
			return true
		}
		in = map[string]*types.Package{p.Name(): p}
	}
	for _, p := range in {
		if obj := p.Scope().Lookup(parts[0]); obj != nil && obj.Exported() && selects(obj, parts[1:]) {
			return true
		}
		// A member alone: a field or method of one of the package's types.
		for _, n := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(n).(*types.TypeName)
			if !ok || !tn.Exported() {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, p, parts[0])
			if obj != nil && obj.Exported() && selects(obj, parts[1:]) {
				return true
			}
		}
	}
	return false
}

// selects reports whether each of rest is an exported field or method of
// what came before, starting from obj.
func selects(obj types.Object, rest []string) bool {
	for _, sel := range rest {
		switch obj.(type) {
		case *types.TypeName, *types.Var:
		default:
			return false // a func or a constant has no members
		}
		obj, _, _ = types.LookupFieldOrMethod(obj.Type(), true, obj.Pkg(), sel)
		if obj == nil || !obj.Exported() {
			return false
		}
	}
	return true
}

// pathExists reports whether the path is a file or folder of the
// repository, or a package of the standard library.
func pathExists(goroot, path string) bool {
	if _, err := os.Stat(filepath.FromSlash(path)); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(goroot, "src", filepath.FromSlash(path)))
	return err == nil
}

// goSources is the text of the repository's Go files, tests aside.
func goSources(t *testing.T) string {
	var b strings.Builder
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			b.Write(src)
			return err
		}
		return nil
	})
	require.NoError(t, err)
	return b.String()
}

func TestResolveName(t *testing.T) {
	pkgs := changelogPackages(t)
	for name, want := range map[string]bool{
		"fake":                 true,
		"convo.Parallel":       true,
		"Client.Do":            true,
		"Contacts.Ensure":      true, // Client's field, its type's method
		"(*Server).ExportSeed": true,
		"RequestsMatching":     true, // a method alone
		"Media.MediaID":        true,
		"WithRequestAPIKey":    false,
		"convo.Nope":           false,
		"Client.Nope":          false,
		"convo.Parallel.X":     false, // a func has no members
	} {
		assert.Equal(t, want, resolveName(pkgs, name), name)
	}
}

func TestChangelogAddedNames(t *testing.T) {
	log := "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- `A` and `B`.\n\n### Changed\n\n- `C`\n\n" +
		"### Added (more)\n\n- `D`\n\n## [0.1.0] - 2026-11-22\n\n### Added\n\n- `E`\n"
	assert.Equal(t, []string{"A", "B", "D"}, changelogAddedNames(log))
}
