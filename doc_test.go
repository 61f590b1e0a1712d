package convo_test

// Meta-tests of the documentation: every exported name has a doc comment and
// an Example, examples use only exported API, the package overviews cover the
// basics, and neither godoc nor error texts cite internal notes.

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryExportedNameHasADocComment parses each public package (convo,
// fake, api) and fails on any exported type, function, method, constant,
// variable or struct field without a doc comment (a group's comment covers
// the names of the group).
func TestEveryExportedNameHasADocComment(t *testing.T) {
	for _, dir := range []string{".", "fake", "api"} {
		t.Run(dir, func(t *testing.T) { checkDocComments(t, dir) })
	}
}

func checkDocComments(t *testing.T, dir string) {
	fset, files := parseDir(t, dir, false)
	p, err := doc.NewFromFiles(fset, files, "github.com/convoapi/convo-go/"+dir)
	require.NoError(t, err)
	if strings.TrimSpace(p.Doc) == "" {
		t.Errorf("%s: no package doc", dir)
	}
	// need reports an exported name whose doc comment (a CommentGroup's Text
	// is "" when it is nil) says nothing.
	need := func(name, text string, pos token.Pos) {
		if ast.IsExported(name) && strings.TrimSpace(text) == "" {
			t.Errorf("exported name without a doc comment: %s: %s", fset.Position(pos), name)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, n := range vs.Names {
					need(n.Name, v.Doc+vs.Doc.Text()+vs.Comment.Text(), n.Pos())
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			need(prefix+f.Name, f.Doc, f.Decl.Pos())
		}
	}
	values(p.Consts)
	values(p.Vars)
	funcs("", p.Funcs)
	for _, typ := range p.Types {
		need(typ.Name, typ.Doc, typ.Decl.Pos())
		values(typ.Consts)
		values(typ.Vars)
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
		for _, spec := range typ.Decl.Specs {
			ts := spec.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok && ast.IsExported(ts.Name.Name) {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						need(ts.Name.Name+"."+n.Name, f.Doc.Text()+f.Comment.Text(), n.Pos())
					}
				}
			}
		}
	}
}

// interfaceMethods are methods that exist to satisfy an interface of the
// standard library (error, fmt.Stringer, json.Marshaler, http.Handler…):
// callers reach them through fmt, errors or encoding/json, never by name, so
// they need no Example of their own; the type's examples show them at work.
var interfaceMethods = map[string]bool{
	"Error": true, "Unwrap": true, "Is": true, "As": true,
	"String": true, "GoString": true, "Format": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true,
	"ServeHTTP": true,
}

// exampleDirs are the packages whose exported functions and methods must each
// have an Example.
var exampleDirs = []string{".", "fake"}

// TestEveryExportedFuncHasAnExample lists the exported functions and methods
// of convo and fake that have no Example (ExampleF, ExampleT_M, with an
// optional _suffix) in the package's external test package, and fails on any.
func TestEveryExportedFuncHasAnExample(t *testing.T) {
	for _, dir := range exampleDirs {
		t.Run(dir, func(t *testing.T) {
			api := exportedFuncs(t, dir)
			examples := exampleNames(t, dir)
			var missing []string
			for _, name := range api {
				if !examples[name] {
					missing = append(missing, "Example"+name)
				}
			}
			assert.Empty(t, missing, "exported functions and methods of %s without an Example (write these, in a package %s_test file):\n%s",
				dir, pkgName(dir), strings.Join(missing, "\n"))
		})
	}
}

// TestExamplesUseOnlyExportedAPI fails when an Example refers to a
// package-level identifier of its test package that is not exported (a test
// helper, a fixture): a reader copying the example would not have it.
func TestExamplesUseOnlyExportedAPI(t *testing.T) {
	for _, dir := range exampleDirs {
		t.Run(dir, func(t *testing.T) {
			files := testFiles(t, dir)
			unexported := map[string]bool{}
			for _, f := range files {
				for name := range packageLevelNames(f) {
					unexported[name] = name != "_" && !ast.IsExported(name)
				}
			}
			var bad []string
			for _, f := range files {
				for _, fn := range exampleFuncs(f) {
					for _, id := range packageLevelUses(f, fn) {
						if unexported[id.Name] {
							bad = append(bad, fn.Name.Name+" uses "+id.Name)
						}
					}
				}
			}
			assert.Empty(t, bad, "examples must use only exported API:\n%s", strings.Join(bad, "\n"))
		})
	}
}

// packageLevelUses returns the identifiers in fn that the parser's object
// resolution ties to a package-level name: one of f's own, or one it left
// unresolved (declared in another file of the package, or predeclared). A
// literal's key is a field, whatever the parser made of it.
func packageLevelUses(f *ast.File, fn *ast.FuncDecl) []*ast.Ident {
	unresolved := map[*ast.Ident]bool{}
	for _, id := range f.Unresolved {
		unresolved[id] = true
	}
	keys := map[*ast.Ident]bool{}
	var uses []*ast.Ident
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				keys[id] = true
			}
		case *ast.Ident:
			if !keys[n] && (unresolved[n] || n.Obj != nil && f.Scope.Lookup(n.Name) == n.Obj) {
				uses = append(uses, n)
			}
		}
		return true
	})
	return uses
}

// exportedFuncs returns the exported functions of the package in dir as "F"
// and its exported methods on exported types as "T_M", as Example names
// spell them.
func exportedFuncs(t *testing.T, dir string) []string {
	t.Helper()
	_, files := parseDir(t, dir, false)
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			if fn.Recv == nil {
				names = append(names, fn.Name.Name)
				continue
			}
			recv := receiverType(fn.Recv.List[0].Type)
			if ast.IsExported(recv) && !interfaceMethods[fn.Name.Name] {
				names = append(names, recv+"_"+fn.Name.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// receiverType names a receiver's type: T for T, *T, T[P] and *T[P].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// exampleNames returns the set of names covered by the Examples of dir's
// external test package: ExampleF_suffix covers F, ExampleT_M_suffix covers
// T_M (a suffix starts with a lower-case letter, as go test requires).
func exampleNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	covered := map[string]bool{}
	for _, f := range testFiles(t, dir) {
		if f.Name.Name != pkgName(dir)+"_test" {
			continue
		}
		for _, fn := range exampleFuncs(f) {
			parts := strings.Split(strings.TrimPrefix(fn.Name.Name, "Example"), "_")
			if last := parts[len(parts)-1]; len(parts) > 1 && last != "" && unicode.IsLower(rune(last[0])) {
				parts = parts[:len(parts)-1]
			}
			covered[strings.Join(parts, "_")] = true
		}
	}
	return covered
}

// parseDir parses the Go files of dir with their comments and the parser's
// object resolution: the test files if tests, else the others. Every
// meta-test of this file reads code through it.
func parseDir(t *testing.T, dir string, tests bool) (*token.FileSet, []*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") != tests {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	return fset, files
}

func testFiles(t *testing.T, dir string) []*ast.File {
	t.Helper()
	_, files := parseDir(t, dir, true)
	return files
}

func exampleFuncs(f *ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") && fn.Body != nil {
			out = append(out, fn)
		}
	}
	return out
}

// packageLevelNames returns the names a file declares at package level.
func packageLevelNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				}
			}
		}
	}
	return names
}

func pkgName(dir string) string {
	if dir == "." {
		return "convo"
	}
	return filepath.Base(dir)
}

// TestPackageDocCoversTheBasics holds the package overviews to the topics a
// new user looks for first, as `go doc` shows them.
func TestPackageDocCoversTheBasics(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	tests := []struct {
		pkg      string
		headings []string
	}{
		{".", []string{"Authentication", "Retries and rate limits", "Pagination", "Errors", "Media", "Testing with fake", "Examples"}},
		{"./fake", []string{"Starting a server", "Seeding", "Time", "Faults and the journal"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command(goTool, "doc", tt.pkg).CombinedOutput()
			require.NoError(t, err, string(out))
			for _, h := range tt.headings {
				assert.Contains(t, string(out), "\n# "+h+"\n", "the package overview has a %q section", h)
			}
		})
	}
}

// internalReference matches what only the team's own notes explain: a
// decision number ("D16"), the design notes' file name, and a rule cited in
// the notes' dotted shorthand ("rule 2.3.3") where the words of the rule are
// what a reader needs.
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
		fset, files := parseDir(t, dir, false)
		var bad []string
		for _, f := range files {
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
