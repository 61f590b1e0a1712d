package oascheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// This file holds what the drift tests compare: the names the document
// declares, and the names the Go code declares (by reflection over struct
// tags, or by reading the source for what reflection cannot list). Every
// list comes back sorted and without repeats.

// set collects names and lists them sorted.
type set map[string]bool

func (s set) sorted() []string { return slices.Sorted(maps.Keys(s)) }

// Operations lists the document's operations as "METHOD /path", with every
// path parameter written "{}".
func Operations(doc *openapi3.T) []string {
	out := set{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out[method+" "+WildPath(path)] = true
		}
	}
	return out.sorted()
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
	out := set{}
	if op := Operation(doc, id); op != nil {
		for _, p := range op.Parameters {
			if p.Value.In == openapi3.ParameterInQuery {
				out[p.Value.Name] = true
			}
		}
	}
	return out.sorted()
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
		if s = properties(s)[p]; s == nil {
			return nil, fmt.Errorf("no property %s in %s", p, dotted)
		}
	}
	return s, nil
}

// PropertyNames lists the properties of a schema, through allOf.
func PropertyNames(s *openapi3.Schema) []string { return slices.Sorted(maps.Keys(properties(s))) }

func properties(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	for _, sub := range s.AllOf {
		maps.Copy(out, properties(sub.Value))
	}
	for k, v := range s.Properties {
		out[k] = v.Value
	}
	return out
}

// Enum lists the string values of a schema's enum, or of its
// x-extensible-enum (ExtensibleEnum) when it has no enum.
func Enum(s *openapi3.Schema) []string {
	out := set{}
	for _, v := range enumValues(s) {
		out[v] = true
	}
	return out.sorted()
}

// ResponseCodes lists every message.error value that some response of the
// document restricts itself to, in message itself or in one of its
// alternatives (oneOf, anyOf), through allOf.
func ResponseCodes(doc *openapi3.T) []string {
	out := set{}
	var visit func(s *openapi3.Schema)
	visit = func(s *openapi3.Schema) {
		if msg := s.Properties["message"]; msg != nil && msg.Value != nil {
			for _, alt := range append(openapi3.SchemaRefs{msg}, append(msg.Value.OneOf, msg.Value.AnyOf...)...) {
				if e := alt.Value.Properties["error"]; e != nil {
					for _, v := range Enum(e.Value) {
						out[v] = true
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
	return out.sorted()
}

// JSONNames lists the JSON names of a struct type's fields ("-" and
// unexported fields left out; embedded structs flattened).
func JSONNames(t reflect.Type) []string { return tagNames(t, "json").sorted() }

// URLNames lists the go-querystring names of a struct type's fields.
func URLNames(t reflect.Type) []string { return tagNames(t, "url").sorted() }

func tagNames(t reflect.Type, key string) set {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := set{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get(key), ",")
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			maps.Copy(out, tagNames(f.Type, key))
		case name == "-" || (!f.IsExported() && name == ""):
		case name == "":
			out[f.Name] = true
		default:
			out[name] = true
		}
	}
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
	return inspect(dir, func(n ast.Node, out set) {
		gd, ok := n.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			return
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) && keep(name.Name, vs.Type) {
					if v, ok := stringLit(vs.Values[i]); ok {
						out[v] = true
					}
				}
			}
		}
	})
}

// SourceCalls reads the non-test Go files of dir for calls of a method named
// method whose second and third arguments are the HTTP method and the path
// (the SDK's one request pipeline), and returns them as "METHOD /path" with
// every non-literal part of the path written "{}".
func SourceCalls(dir, method string) ([]string, error) {
	return inspect(dir, func(n ast.Node, out set) {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 3 {
			return
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == method {
			if verb, ok := stringLit(call.Args[1]); ok {
				out[verb+" "+pathOf(call.Args[2])] = true
			}
		}
	})
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

// SourcePaths reads the non-test Go files of dir for string literals that
// look like API routes ("/chatapp/contacts", "GET /v1/channels",
// "/conversations/{}/messages") under one of the given top-level segments,
// and returns them with the method and the /v1 or /api/v1 prefix removed and
// every wildcard written "{}".
func SourcePaths(dir string, tops []string) ([]string, error) {
	route := regexp.MustCompile(`^(?:[A-Z]+ )?(?:/api)?(?:/v1)?(/([a-z][a-z0-9_-]*)(?:/(?:[a-z][a-z0-9_-]*|\{[^}/]*\}))*)/?$`)
	return inspect(dir, func(n ast.Node, out set) {
		if lit, ok := stringLit(n); ok {
			if m := route.FindStringSubmatch(lit); m != nil && slices.Contains(tops, m[2]) {
				out[WildPath(m[1])] = true
			}
		}
	})
}

// SourceQueryNames reads the non-test Go files of dir for the query
// parameter names a handler reads from its url.Values variable named
// varName: varName.Get("x"), varName.Has("x"), varName["x"], and helper
// calls that take varName then the name, f(varName, "x", ...).
func SourceQueryNames(dir, varName string) ([]string, error) {
	isVar := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && id.Name == varName
	}
	return inspect(dir, func(n ast.Node, out set) {
		var name ast.Node
		switch n := n.(type) {
		case *ast.IndexExpr:
			if isVar(n.X) {
				name = n.Index
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isVar(sel.X) && len(n.Args) > 0 {
				name = n.Args[0]
			} else if len(n.Args) > 1 && isVar(n.Args[0]) {
				name = n.Args[1]
			}
		}
		if s, ok := stringLit(name); ok {
			out[s] = true
		}
	})
}

func stringLit(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// inspect parses the non-test Go files of dir, calls visit on every node,
// and returns what visit collected.
func inspect(dir string, visit func(n ast.Node, out set)) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out, fset := set{}, token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool { visit(n, out); return true })
	}
	return out.sorted(), nil
}

// SourceJSONNames reads the non-test Go files of dir for the struct type a
// dotted path names — a type, then the JSON names of fields down to a
// nested struct, e.g. "errorBody.message" — and lists the JSON names of its
// fields by the rules of JSONNames: for the unexported types that
// reflection cannot reach from another package.
func SourceJSONNames(dir, dotted string) ([]string, error) {
	structs := map[string]*ast.StructType{}
	if _, err := inspect(dir, func(n ast.Node, _ set) {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = st
			}
		}
	}); err != nil {
		return nil, err
	}
	parts := strings.Split(dotted, ".")
	st := structs[parts[0]]
	if st == nil {
		return nil, fmt.Errorf("no struct type %s in %s", parts[0], dir)
	}
	for _, p := range parts[1:] {
		var next *ast.StructType
		for _, f := range st.Fields.List {
			for _, name := range fieldJSONNames(f) {
				if name == p {
					next = structOf(f.Type, structs)
				}
			}
		}
		if next == nil {
			return nil, fmt.Errorf("no struct field %s in %s (%s)", p, dotted, dir)
		}
		st = next
	}
	out := set{}
	if err := sourceTagNames(st, structs, out); err != nil {
		return nil, fmt.Errorf("%s: %w", dotted, err)
	}
	return out.sorted(), nil
}

// structOf resolves a field's type to a struct: written in place, or a
// struct type of the same files (a generic one instantiated), through a
// pointer.
func structOf(e ast.Expr, structs map[string]*ast.StructType) *ast.StructType {
	switch e := e.(type) {
	case *ast.StarExpr:
		return structOf(e.X, structs)
	case *ast.IndexExpr:
		return structOf(e.X, structs)
	case *ast.IndexListExpr:
		return structOf(e.X, structs)
	case *ast.StructType:
		return e
	case *ast.Ident:
		return structs[e.Name]
	}
	return nil
}

// fieldJSONNames lists the JSON names of a field declaration, as tagNames
// does: its json tag's name, else its Go name when exported.
func fieldJSONNames(f *ast.Field) []string {
	tag := ""
	if f.Tag != nil {
		if s, err := strconv.Unquote(f.Tag.Value); err == nil {
			tag, _, _ = strings.Cut(reflect.StructTag(s).Get("json"), ",")
		}
	}
	var out []string
	for _, id := range f.Names {
		switch {
		case tag == "-" || (!id.IsExported() && tag == ""):
		case tag == "":
			out = append(out, id.Name)
		default:
			out = append(out, tag)
		}
	}
	return out
}

func sourceTagNames(st *ast.StructType, structs map[string]*ast.StructType, out set) error {
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 { // embedded: a struct is flattened, as reflection does
			var inner *ast.StructType
			if _, ptr := f.Type.(*ast.StarExpr); !ptr {
				inner = structOf(f.Type, structs)
			}
			if inner == nil {
				return fmt.Errorf("embedded field %s is not a struct of the same package", types.ExprString(f.Type))
			}
			if err := sourceTagNames(inner, structs, out); err != nil {
				return err
			}
			continue
		}
		for _, name := range fieldJSONNames(f) {
			out[name] = true
		}
	}
	return nil
}
