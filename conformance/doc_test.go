package conformance_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryExportedNameIsDocumentedAndShown fails on an exported name of
// the package without a doc comment, and on an exported function or method
// without an Example.
func TestEveryExportedNameIsDocumentedAndShown(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var files, tests []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ParseComments)
		require.NoError(t, err)
		if strings.HasSuffix(e.Name(), "_test.go") {
			tests = append(tests, f)
		} else {
			files = append(files, f)
		}
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/convoapi/convo-go/conformance")
	require.NoError(t, err)
	examples := map[string]bool{}
	for _, f := range tests {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") {
				examples[strings.TrimPrefix(fn.Name.Name, "Example")] = true
			}
		}
	}
	interfaceMethods := map[string]bool{"Error": true, "RoundTrip": true}
	var undocumented, unshown []string
	need := func(name, text string) {
		if strings.TrimSpace(text) == "" {
			undocumented = append(undocumented, name)
		}
	}
	for _, v := range append(p.Consts, p.Vars...) {
		for _, n := range v.Names {
			need(n, v.Doc)
		}
	}
	for _, f := range p.Funcs {
		need(f.Name, f.Doc)
		if !examples[f.Name] {
			unshown = append(unshown, f.Name)
		}
	}
	for _, typ := range p.Types {
		need(typ.Name, typ.Doc)
		for _, v := range append(typ.Consts, typ.Vars...) {
			for _, n := range v.Names {
				need(n, v.Doc)
			}
		}
		for _, f := range typ.Funcs {
			need(f.Name, f.Doc)
			if !examples[f.Name] {
				unshown = append(unshown, f.Name)
			}
		}
		for _, m := range typ.Methods {
			need(typ.Name+"."+m.Name, m.Doc)
			if !examples[typ.Name+"_"+m.Name] && !interfaceMethods[m.Name] {
				unshown = append(unshown, typ.Name+"."+m.Name)
			}
		}
		for _, spec := range typ.Decl.Specs {
			if st, ok := spec.(*ast.TypeSpec).Type.(*ast.StructType); ok {
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						if n.IsExported() {
							need(typ.Name+"."+n.Name, fld.Doc.Text()+fld.Comment.Text())
						}
					}
				}
			}
		}
	}
	assert.Empty(t, undocumented, "exported names without a doc comment")
	assert.Empty(t, unshown, "exported functions and methods without an Example")
}
