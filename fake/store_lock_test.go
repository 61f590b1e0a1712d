package fake

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithStore(t *testing.T) {
	notFound := errf(404, "NOT_FOUND", "x")
	for _, tc := range []struct {
		name string
		mode lockMode
		f    func() *apiError
		want *apiError
	}{
		{"read, nil", readOnly, func() *apiError { return nil }, nil},
		{"read, an error", readOnly, func() *apiError { return notFound }, notFound},
		{"read, a panic", readOnly, func() *apiError { panic("boom") }, nil},
		{"write, nil", readWrite, func() *apiError { return nil }, nil},
		{"write, an error", readWrite, func() *apiError { return notFound }, notFound},
		{"write, a panic", readWrite, func() *apiError { panic("boom") }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{}
			held := false
			got := func() (e *apiError) {
				defer func() { _ = recover() }()
				return s.withStore(tc.mode, func() *apiError {
					held = !s.mu.TryRLock() // the write lock is held
					if !held {
						s.mu.RUnlock()
						held = !s.mu.TryLock() // a read lock is held
						if !held {
							s.mu.Unlock()
						}
					}
					return tc.f()
				})
			}()
			assert.True(t, held, "f runs under the lock")
			assert.Same(t, tc.want, got)
			require.True(t, s.mu.TryLock(), "the lock is released however f ends")
			s.mu.Unlock()
		})
	}
}

// storeLockCalls lists, as "file:line", the calls of a file that lock or
// unlock the state's lock (a field named mu: s.mu, c.s.mu) by hand.
func storeLockCalls(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "Lock", "Unlock", "RLock", "RUnlock", "TryLock", "TryRLock":
		default:
			return true
		}
		if field, ok := sel.X.(*ast.SelectorExpr); ok && field.Sel.Name == "mu" {
			p := fset.Position(call.Pos())
			out = append(out, filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line))
		}
		return true
	})
	return out
}

// declaresHandler reports whether a file declares an endpoint handler (a
// method named handle...).
func declaresHandler(f *ast.File) bool {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && strings.HasPrefix(fn.Name.Name, "handle") {
			return true
		}
	}
	return false
}

func TestStoreLockCalls(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"by hand", "package fake\nfunc (s *Server) handleX() {\n\ts.mu.RLock()\n\ts.mu.RUnlock()\n}\n", []string{"x.go:3", "x.go:4"}},
		{"through the company", "package fake\nfunc (c *Company) handleX() {\n\tc.s.mu.Lock()\n\tdefer c.s.mu.Unlock()\n}\n", []string{"x.go:3", "x.go:4"}},
		{"through the helper", "package fake\nfunc (s *Server) handleX() {\n\ts.withStore(readOnly, func() *apiError { return nil })\n}\n", nil},
		{"another lock", "package fake\nfunc (co *company) handleX() {\n\tco.reportMu.Lock()\n\tdefer co.reportMu.Unlock()\n}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, 0)
			require.NoError(t, err)
			assert.Equal(t, tc.want, storeLockCalls(fset, f))
		})
	}
}

// TestHandlersLockTheStoreOnlyThroughWithStore keeps the handlers' access
// to the state in one helper (withStore), which releases the lock however
// the handler ends: a file that declares a handler may not lock or unlock
// the state by hand.
func TestHandlersLockTheStoreOnlyThroughWithStore(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var handlerFiles []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		if !declaresHandler(f) {
			continue
		}
		handlerFiles = append(handlerFiles, p)
		assert.Empty(t, storeLockCalls(fset, f), "%s locks the state by hand; use s.withStore", p)
	}
	assert.Contains(t, handlerFiles, "channels.go", "the handler files are found")
	assert.Contains(t, handlerFiles, "messages.go", "the handler files are found")
}
