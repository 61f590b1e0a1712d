package oascheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// This file holds what the drift tests compare: the names the document
// declares, and the names the Go code declares (by reflection over struct
// tags, or by reading the source for what reflection cannot list).

// Operations lists the document's operations as "METHOD /path", with every
// path parameter written "{}".
func Operations(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+WildPath(path))
		}
	}
	sort.Strings(out)
	return out
}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// WildPath writes every "{name}" segment of p as "{}".
func WildPath(p string) string { return wildcard.ReplaceAllString(p, "{}") }

// Operation finds an operation by its operationId.
func Operation(doc *openapi3.T, id string) *openapi3.Operation {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID == id {
				return op
			}
		}
	}
	return nil
}

// QueryParams lists the query parameter names of the operation id.
func QueryParams(doc *openapi3.T, id string) []string {
	op := Operation(doc, id)
	if op == nil {
		return nil
	}
	var out []string
	for _, p := range op.Parameters {
		if p.Value.In == openapi3.ParameterInQuery {
			out = append(out, p.Value.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Schema resolves a dotted path from a component schema, e.g.
// "AnomalyReport.window" is the window property of AnomalyReport.
func Schema(doc *openapi3.T, dotted string) (*openapi3.Schema, error) {
	parts := strings.Split(dotted, ".")
	ref := doc.Components.Schemas[parts[0]]
	if ref == nil {
		return nil, fmt.Errorf("no schema %s", parts[0])
	}
	s := ref.Value
	for _, p := range parts[1:] {
		props := properties(s)
		next, ok := props[p]
		if !ok {
			return nil, fmt.Errorf("no property %s in %s", p, dotted)
		}
		s = next
	}
	return s, nil
}

// PropertyNames lists the properties of a schema, through allOf.
func PropertyNames(s *openapi3.Schema) []string {
	var out []string
	for name := range properties(s) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func properties(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	for _, sub := range s.AllOf {
		for k, v := range properties(sub.Value) {
			out[k] = v
		}
	}
	for k, v := range s.Properties {
		out[k] = v.Value
	}
	return out
}

// Enum lists the string values of a schema's enum.
func Enum(s *openapi3.Schema) []string {
	var out []string
	for _, v := range s.Enum {
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	return out
}

// ResponseCodes lists every message.error value that some response of the
// document restricts itself to.
func ResponseCodes(doc *openapi3.T) []string {
	seen := map[string]bool{}
	var visit func(s *openapi3.Schema)
	visit = func(s *openapi3.Schema) {
		if s == nil {
			return
		}
		if msg, ok := s.Properties["message"]; ok && msg.Value != nil {
			if e, ok := msg.Value.Properties["error"]; ok {
				for _, v := range Enum(e.Value) {
					seen[v] = true
				}
			}
			for _, alt := range append(msg.Value.OneOf, msg.Value.AnyOf...) {
				if e, ok := alt.Value.Properties["error"]; ok {
					for _, v := range Enum(e.Value) {
						seen[v] = true
					}
				}
			}
		}
		for _, sub := range s.AllOf {
			visit(sub.Value)
		}
	}
	for _, ref := range doc.Components.Schemas {
		visit(ref.Value)
	}
	var out []string
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// JSONNames lists the JSON names of a struct type's fields ("-" and
// unexported fields left out; embedded structs flattened).
func JSONNames(t reflect.Type) []string {
	return tagNames(t, "json")
}

// URLNames lists the go-querystring names of a struct type's fields.
func URLNames(t reflect.Type) []string {
	return tagNames(t, "url")
}

func tagNames(t reflect.Type, key string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, tagNames(f.Type, key)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get(key), ",")
		if name == "-" || (!f.IsExported() && name == "") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// SourceConsts reads the non-test Go files of dir and returns the string
// values of the constants whose name starts with prefix, e.g. "Code": the
// error codes a package declares, which reflection cannot list.
func SourceConsts(dir, prefix string) ([]string, error) {
	return sourceConsts(dir, func(name string, _ ast.Expr) bool { return strings.HasPrefix(name, prefix) })
}

// SourceConstsOfType is SourceConsts for the constants declared with the
// named type, e.g. "Bucket".
func SourceConstsOfType(dir, typeName string) ([]string, error) {
	return sourceConsts(dir, func(_ string, typ ast.Expr) bool {
		id, ok := typ.(*ast.Ident)
		return ok && id.Name == typeName
	})
}

func sourceConsts(dir string, keep func(name string, typ ast.Expr) bool) ([]string, error) {
	files, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !keep(name.Name, vs.Type) || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, err := strconv.Unquote(lit.Value); err == nil {
							seen[v] = true
						}
					}
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// SourceCalls reads the non-test Go files of dir for calls of a method named
// method whose second and third arguments are the HTTP method and the path
// (the SDK's one request pipeline), and returns them as "METHOD /path" with
// every non-literal part of the path written "{}".
func SourceCalls(dir, method string) ([]string, error) {
	files, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 3 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != method {
				return true
			}
			verb, ok := stringLit(call.Args[1])
			if !ok {
				return true
			}
			seen[verb+" "+pathOf(call.Args[2])] = true
			return true
		})
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// pathOf renders a path expression: literals as they are, anything else
// (an escaped identifier) as "{}".
func pathOf(e ast.Expr) string {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
		return pathOf(b.X) + pathOf(b.Y)
	}
	if s, ok := stringLit(e); ok {
		return s
	}
	return "{}"
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func goFiles(dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// SourcePaths reads the non-test Go files of dir for string literals that
// look like API routes ("/chatapp/contacts", "GET /v1/channels",
// "/conversations/{}/messages") under one of the given top-level segments,
// and returns them with the method and the /v1 or /api/v1 prefix removed and
// every wildcard written "{}".
func SourcePaths(dir string, tops []string) ([]string, error) {
	files, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	route := regexp.MustCompile(`^(?:[A-Z]+ )?(?:/api)?(?:/v1)?(/([a-z][a-z0-9_-]*)(?:/(?:[a-z][a-z0-9_-]*|\{[^}/]*\}))*)/?$`)
	top := map[string]bool{}
	for _, t := range tops {
		top[t] = true
	}
	seen := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			lit, ok := stringLit(s)
			if !ok {
				return true
			}
			if m := route.FindStringSubmatch(lit); m != nil && top[m[2]] {
				seen[WildPath(m[1])] = true
			}
			return true
		})
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// SourceQueryNames reads the non-test Go files of dir for the query
// parameter names a handler reads from its url.Values variable named
// varName: varName.Get("x"), varName.Has("x"), varName["x"], and helper
// calls that take varName then the name, f(varName, "x", ...).
func SourceQueryNames(dir, varName string) ([]string, error) {
	files, err := goFiles(dir)
	if err != nil {
		return nil, err
	}
	isVar := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == varName
	}
	seen := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IndexExpr:
				if s, ok := stringLit(n.Index); ok && isVar(n.X) {
					seen[s] = true
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isVar(sel.X) && len(n.Args) > 0 {
					if s, ok := stringLit(n.Args[0]); ok {
						seen[s] = true
					}
				}
				if len(n.Args) > 1 && isVar(n.Args[0]) {
					if s, ok := stringLit(n.Args[1]); ok {
						seen[s] = true
					}
				}
			}
			return true
		})
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
