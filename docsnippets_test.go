package convo_test

// The Go snippets of the doc comments compile: what `go doc` and pkg.go.dev
// show a reader to copy must type-check against the code as it is, as the
// README's blocks do (readme_test.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snippetPrelude is what the snippets of one package assume: the parameters
// of the function they are compiled in (their t, ctx, start, …) and the
// packages they may use. The function returns an error, so a snippet may
// `return err`.
type snippetPrelude struct {
	params  string
	imports []string
}

// snippetPreludes holds a prelude for each package (its directory, relative
// to the repository) whose doc comments show Go code; a package that shows
// Go code without one fails the test.
var snippetPreludes = map[string]snippetPrelude{
	".": {
		params:  "t *testing.T, ctx context.Context, start time.Time, phone string, err error",
		imports: []string{"context", "errors", "fmt", "testing", "time", modulePath + "/fake"},
	},
	"fake": {
		params:  "t *testing.T, start time.Time",
		imports: []string{"testing", "testing/synctest", "time", modulePath},
	},
	"internal/testkit": {
		params:  "t *testing.T",
		imports: []string{"testing", modulePath + "/fake"},
	},
	"internal/wiretest/oascheck": {
		params:  "t *testing.T",
		imports: []string{"net/http", "testing", modulePath + "/fake"},
	},
	"otelconvo": {
		params:  "key string",
		imports: []string{modulePath},
	},
	"redislimit": {
		params:  "apiKey string",
		imports: []string{modulePath, "github.com/redis/go-redis/v9"},
	},
}

// uncompiledSnippet names a code block of a doc comment that is not
// compiled, and says why: by its package's directory, the documented name
// ("package" for the overview) and a piece of its first line.
type uncompiledSnippet struct{ dir, name, firstLine, reason string }

// uncompiledSnippets are the code blocks that are not compiled, other than
// shell commands (recognised on their own): text that is not Go, or Go that
// cannot compile for a stated reason. An entry that matches no block fails.
var uncompiledSnippets = []uncompiledSnippet{
	{".", "Error.Error", "convo: 404 CONTACT_NOT_FOUND", "not Go: the text the method returns"},
	{"examples/contact-sync", "package", "phone        required", "not Go: the CSV file's columns"},
}

const modulePath = "github.com/convoapi/convo-go"

// shellLine starts a code block that is a shell command (a prompt, one of
// this repository's commands, a go subcommand, curl, or an environment
// assignment), not Go: `go func() {…}()` is Go.
var shellLine = regexp.MustCompile(`^(\$ |go (build|doc|env|generate|get|install|list|mod|run|test|tool|vet) |curl |convo(check|fake) |[A-Z][A-Z0-9_]*=)`)

// docSnippet is one code block of a doc comment.
type docSnippet struct {
	dir, name string // the package's directory and the documented name ("package" for the overview)
	index     int    // its place among the comment's code blocks, from 1
	text      string
}

// docComment is a doc comment with code blocks.
type docComment struct {
	dir, importPath, name string
	snippets              []docSnippet
}

// describe names the comment for a failure message.
func (c docComment) describe() string {
	if c.name == "package" {
		return fmt.Sprintf("the overview of package %s", c.dir)
	}
	return fmt.Sprintf("the doc comment of %s in package %s", c.name, c.dir)
}

// TestDocSnippetsCompile extracts every code block from the doc comments of
// every package (its overview and its exported names), and type-checks the
// Go ones. The blocks of one comment compile together, each nested in the
// ones before it (so a later block sees an earlier block's variables and may
// declare them again), inside a function whose parameters are the package's
// prelude. A block of declarations (import, func, type) goes to the top
// level. An ellipsis (… or a line of ...) stands for code left out. An
// unused variable or import is no error: a snippet is a fragment.
func TestDocSnippetsCompile(t *testing.T) {
	modules := []string{"."}
	for _, nested := range []string{"otelconvo", "redislimit", "internal/wiretest"} {
		if _, err := os.Stat(nested + "/go.mod"); err == nil {
			modules = append(modules, nested) // absent from a module download
		}
	}
	compiled, shell, uncompiled := 0, 0, 0
	usedUncompiled := map[int]bool{}
	for _, mod := range modules {
		var comments []docComment
		for _, p := range listPackages(t, mod) {
			comments = append(comments, docComments(t, p)...)
		}
		var goComments []docComment
		for _, c := range comments {
			var keep []docSnippet
			for _, s := range c.snippets {
				first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(s.text), "\n", 2)[0])
				if shellLine.MatchString(first) {
					shell++
					continue
				}
				if i := slices.IndexFunc(uncompiledSnippets, func(n uncompiledSnippet) bool {
					return n.dir == s.dir && n.name == s.name && strings.Contains(first, n.firstLine)
				}); i >= 0 {
					usedUncompiled[i] = true
					uncompiled++
					continue
				}
				keep = append(keep, s)
			}
			if len(keep) > 0 {
				c.snippets = keep
				goComments = append(goComments, c)
			}
		}
		compiled += checkSnippets(t, mod, goComments)
	}
	for i, n := range uncompiledSnippets {
		assert.True(t, usedUncompiled[i], "uncompiledSnippets lists a block no doc comment shows: %+v", n)
	}
	t.Logf("%d Go snippets compiled; %d shell blocks and %d other blocks (listed) not compiled", compiled, shell, uncompiled)
	assert.Positive(t, compiled, "the doc comments show Go code")
}

// goPackage is a package as go list describes it.
type goPackage struct {
	Dir, ImportPath, Name string
	GoFiles               []string
}

// listPackages lists the packages of the module in dir, with the files the
// build uses.
func listPackages(t *testing.T, dir string) []goPackage {
	out := goCommand(t, dir, "list", "-json", "./...")
	var pkgs []goPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// docComments returns the doc comments of p's overview and exported names
// that show code blocks.
func docComments(t *testing.T, p goPackage) []docComment {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	dp, err := doc.NewFromFiles(fset, files, p.ImportPath)
	require.NoError(t, err)
	rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, modulePath), "/")
	if rel == "" {
		rel = "."
	}
	var out []docComment
	add := func(name, text string) {
		c := docComment{dir: rel, importPath: p.ImportPath, name: name}
		var cp comment.Parser
		for _, b := range cp.Parse(text).Content {
			if code, ok := b.(*comment.Code); ok {
				c.snippets = append(c.snippets, docSnippet{dir: rel, name: name, index: len(c.snippets) + 1, text: code.Text})
			}
		}
		if len(c.snippets) > 0 {
			out = append(out, c)
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			add(v.Names[0], v.Doc) // a group's comment, named after its first name
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				add(vs.Names[0].Name, vs.Doc.Text())
			}
		}
	}
	add("package", dp.Doc)
	values(dp.Consts)
	values(dp.Vars)
	for _, f := range dp.Funcs {
		add(f.Name, f.Doc)
	}
	for _, typ := range dp.Types {
		add(typ.Name, typ.Doc)
		values(typ.Consts)
		values(typ.Vars)
		for _, f := range typ.Funcs {
			add(f.Name, f.Doc)
		}
		for _, f := range typ.Methods {
			add(typ.Name+"."+f.Name, f.Doc)
		}
		for _, spec := range typ.Decl.Specs {
			if st, ok := spec.(*ast.TypeSpec).Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					if len(fl.Names) > 0 && ast.IsExported(fl.Names[0].Name) {
						add(typ.Name+"."+fl.Names[0].Name, fl.Doc.Text())
					}
				}
			}
		}
	}
	return out
}

// checkSnippets type-checks the comments' snippets against the packages of
// the module in dir, one generated file per comment, and returns how many
// snippets it compiled.
func checkSnippets(t *testing.T, dir string, comments []docComment) int {
	if len(comments) == 0 {
		return 0
	}
	type generated struct {
		c    docComment
		src  string
		from []string // for each line of src, the snippet line it comes from
	}
	var gens []generated
	need := map[string]bool{}
	n := 0
	for _, c := range comments {
		prelude, ok := snippetPreludes[c.dir]
		if !assert.True(t, ok, "package %s shows Go code in its doc comments (%s): give it an entry in snippetPreludes", c.dir, c.name) {
			continue
		}
		src, from, imports, err := snippetFile(c, prelude)
		if err != nil {
			t.Errorf("%s: %v", c.describe(), err)
			continue
		}
		for _, path := range imports {
			need[path] = true
		}
		gens = append(gens, generated{c, src, from})
		n += len(c.snippets)
	}
	imp := exportImporter(t, dir, slices.Sorted(maps.Keys(need)))
	for _, g := range gens {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "snippet.go", g.src, 0)
		require.NoError(t, err, "generated:\n%s", g.src)
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			msg := err.Error()
			if strings.Contains(msg, "and not used") { // declared, imported (as x)
				return // a fragment: the reader's code goes on to use it
			}
			if te, ok := err.(types.Error); ok {
				line := fset.Position(te.Pos).Line
				if line >= 1 && line <= len(g.from) && g.from[line-1] != "" {
					msg = g.from[line-1] + ": " + te.Msg
				}
			}
			errs = append(errs, msg)
		}}
		_, _ = conf.Check("snippets", fset, []*ast.File{f}, nil)
		if len(errs) > 0 {
			t.Errorf("%s shows code that does not compile:\n\t%s", g.c.describe(), strings.Join(errs, "\n\t"))
		}
	}
	return n
}

// ellipsisLine is a line that is only "...", code left out.
var ellipsisLine = regexp.MustCompile(`(?m)^(\s*)\.\.\.\s*$`)

// snippetFile builds the Go file in which the snippets of c compile, the
// origin of each of its lines ("" for the prelude's), and its imports.
func snippetFile(c docComment, prelude snippetPrelude) (src string, from []string, imports []string, err error) {
	names := map[string]string{c.importPath: ""} // import path → name ("" for the package's own)
	for _, p := range prelude.imports {
		names[p] = ""
	}
	var top, body strings.Builder
	var topFrom, bodyFrom []string
	emit := func(b *strings.Builder, origin *[]string, s docSnippet, text string) {
		for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			b.WriteString(l + "\n")
			*origin = append(*origin, fmt.Sprintf("snippet %d line %d (%s)", s.index, i+1, strings.TrimSpace(l)))
		}
	}
	depth := 0
	for _, s := range c.snippets {
		text := strings.ReplaceAll(s.text, "…", "/* … */")
		text = ellipsisLine.ReplaceAllString(text, "$1// ...")
		fset := token.NewFileSet()
		if f, perr := parser.ParseFile(fset, "", "package p\n"+text, 0); perr == nil {
			// Declarations: the imports join the file's, the rest goes to the top level.
			for _, spec := range f.Imports {
				path := strings.Trim(spec.Path.Value, `"`)
				names[path] = ""
				if spec.Name != nil {
					names[path] = spec.Name.Name
				}
			}
			offset := func(p token.Pos) int { return fset.Position(p).Offset - len("package p\n") }
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
					emit(&top, &topFrom, s, text[offset(d.Pos()):offset(d.End())])
				}
			}
			continue
		}
		if _, perr := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+text+"\n}", 0); perr != nil {
			return "", nil, nil, fmt.Errorf("snippet %d is neither Go statements nor Go declarations (%v); if it is not Go, list it in uncompiledSnippets:\n%s", s.index, perr, s.text)
		}
		body.WriteString("{\n")
		bodyFrom = append(bodyFrom, "")
		emit(&body, &bodyFrom, s, text)
		depth++
	}
	var out strings.Builder
	var origin []string
	line := func(s string) {
		out.WriteString(s + "\n")
		origin = append(origin, "")
	}
	line("package snippets")
	line("import (")
	for _, p := range slices.Sorted(maps.Keys(names)) {
		line(strings.TrimSpace(names[p] + " " + fmt.Sprintf("%q", p)))
		imports = append(imports, p)
	}
	line(")")
	out.WriteString(top.String())
	origin = append(origin, topFrom...)
	line("func snippet(" + prelude.params + ") error {")
	out.WriteString(body.String())
	origin = append(origin, bodyFrom...)
	line(strings.Repeat("}", depth))
	line("return nil")
	line("}")
	return out.String(), origin, imports, nil
}

// exportImporter returns an importer that reads the compiled export data of
// the packages paths and their dependencies, as the go command of the module
// in dir builds them.
func exportImporter(t *testing.T, dir string, paths []string) types.Importer {
	out := goCommand(t, dir, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, paths...)...)
	exports := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(l, "=")
		exports[path] = file
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// goCommand runs the go command in dir and returns its standard output.
func goCommand(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go %s in %s: %s", strings.Join(args, " "), dir, stderr.String())
	return out
}

func TestSnippetFile(t *testing.T) {
	prelude := snippetPrelude{params: "err error", imports: []string{"errors"}}
	for _, tc := range []struct {
		name     string
		snippets []string
		want     []string // runs of lines the generated file holds
		wantErr  string
	}{
		{
			name:     "later blocks nest in earlier ones",
			snippets: []string{"x, err := 1, error(nil)\n", "_, err := x, err\n"},
			want:     []string{"{", "x, err := 1, error(nil)", "{", "_, err := x, err", "}}", "return nil"},
		},
		{
			name:     "an ellipsis is code left out",
			snippets: []string{"if errors.Is(err, err) { … }\nfunc() {\n\t...\n}()\n"},
			want:     []string{"if errors.Is(err, err) { /* … */ }", "func() {", "// ...", "}()"},
		},
		{
			name:     "declarations go to the top level, imports join the file's",
			snippets: []string{"import c \"github.com/convoapi/convo-go\"\n\nfunc helper() {}\n"},
			want:     []string{"\"errors\"", "c \"github.com/convoapi/convo-go\"", ")", "func helper() {}", "func snippet(err error) error {"},
		},
		{
			name:     "text that is not Go",
			snippets: []string{"convo: 404 CONTACT_NOT_FOUND (1 attempt)\n"},
			wantErr:  "list it in uncompiledSnippets",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := docComment{dir: ".", importPath: modulePath, name: "X"}
			for i, s := range tc.snippets {
				c.snippets = append(c.snippets, docSnippet{dir: ".", name: "X", index: i + 1, text: s})
			}
			src, from, _, err := snippetFile(c, prelude)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			_, err = parser.ParseFile(token.NewFileSet(), "", src, 0)
			require.NoError(t, err, src)
			assert.Len(t, from, strings.Count(src, "\n"), "one origin per line")
			assert.True(t, containsRun(normalizeLines(src), tc.want), "want %q in:\n%s", tc.want, src)
		})
	}
}

func TestShellLine(t *testing.T) {
	for line, shell := range map[string]bool{
		"$ go run ./cmd/convofake":                         true,
		"go run ./examples/quickstart":                     true,
		"go build -o anomaly-sweep ./examples/x":           true,
		"curl -s -H \"$auth\" \"$CONVO_BASE_URL\"":         true,
		"CONVO_BASE_URL=https://x/v1 CONVO_API_KEY=... \\": true,
		"convocheck --base-url http://127.0.0.1:8080/v1":   true,
		"convofake --addr 127.0.0.1:8080":                  true,
		"go func() { done <- c.Close() }()":                false,
		"client, err := convo.NewClient()":                 false,
		"X = 1":                                            false,
	} {
		assert.Equal(t, shell, shellLine.MatchString(line), line)
	}
}
