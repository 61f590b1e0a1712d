package convo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
			files := parseTestFiles(t, dir)
			unexported := map[string]bool{}
			for _, f := range files {
				for name := range packageLevelNames(f) {
					if name != "_" && !ast.IsExported(name) {
						unexported[name] = true
					}
				}
			}
			var bad []string
			for _, f := range files {
				for _, fn := range exampleFuncs(f) {
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						id, ok := n.(*ast.Ident)
						if ok && unexported[id.Name] && resolvesToPackageLevel(fn, id) {
							bad = append(bad, fn.Name.Name+" uses "+id.Name)
						}
						return true
					})
				}
			}
			assert.Empty(t, bad, "examples must use only exported API:\n%s", strings.Join(bad, "\n"))
		})
	}
}

// exportedFuncs returns the exported functions of the package in dir as "F"
// and its exported methods on exported types as "T_M", as Example names
// spell them.
func exportedFuncs(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	var names []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
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
	for _, f := range parseTestFiles(t, dir) {
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

func parseTestFiles(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
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

// resolvesToPackageLevel reports whether id, used in fn, refers to a
// package-level name: it is not declared anywhere inside fn (a local
// variable, parameter or type of the same name shadows it), and it is not a
// field or method selected from a value (x.id) or a struct literal's key.
func resolvesToPackageLevel(fn *ast.FuncDecl, id *ast.Ident) bool {
	if localNames(fn)[id.Name] {
		return false
	}
	selected := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel == id {
			selected = true
		}
		if kv, ok := n.(*ast.KeyValueExpr); ok && kv.Key == id {
			selected = true
		}
		return !selected
	})
	return !selected
}

// localNames returns every name fn declares: parameters, results, variables
// (var, :=, range), constants, types and function literals' parameters.
func localNames(fn *ast.FuncDecl) map[string]bool {
	names := map[string]bool{}
	addFields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				names[n.Name] = true
			}
		}
	}
	addFields(fn.Type.Params)
	addFields(fn.Type.Results)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		case *ast.TypeSpec:
			names[n.Name.Name] = true
		case *ast.FuncLit:
			addFields(n.Type.Params)
			addFields(n.Type.Results)
		}
		return true
	})
	return names
}

func pkgName(dir string) string {
	if dir == "." {
		return "convo"
	}
	return filepath.Base(dir)
}
