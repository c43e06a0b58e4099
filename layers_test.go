package gatehouse_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gatehouse/gatehouse"

// runsOnItsOwn names, per import path, the functions that start a timer,
// sleep or run a function later on a goroutine of their own. The root
// calls none of them.
var runsOnItsOwn = map[string][]string{
	"time":    {"NewTimer", "NewTicker", "After", "AfterFunc", "Tick", "Sleep"},
	"context": {"AfterFunc"},
}

// TestRootHoldsOnlyNouns keeps the layering of the packages, as Go's own
// go/build/deps_test.go keeps the standard library's. The root package
// holds the nouns and their rules: it imports nothing of internal/, and
// nothing in it runs on its own: no goroutine, channel, mutex, timer,
// sleep or signal. What runs lives in internal/service.
func TestRootHoldsOnlyNouns(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range parseSources(t, fset, ".") {
		pos := func(n ast.Node) token.Position { return fset.Position(n.Pos()) }
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module+"/internal/") {
				t.Errorf("%s: the root imports %s; the root imports nothing of internal/", pos(imp), path)
			}
			if path == "sync" || path == "sync/atomic" || path == "os/signal" ||
				path == "golang.org/x/sync" || strings.HasPrefix(path, "golang.org/x/sync/") {
				t.Errorf("%s: the root imports %s; what needs it belongs in internal/service", pos(imp), path)
			}
			if _, ok := runsOnItsOwn[path]; ok && imp.Name != nil && imp.Name.Name == "." {
				t.Errorf("%s: the root dot-imports %s, which hides what its calls start; name the package", pos(imp), path)
			}
		}
		names := importNames(f)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a goroutine in the root; it belongs in internal/service", pos(n))
			case *ast.ChanType:
				t.Errorf("%s: a channel in the root; it belongs in internal/service", pos(n))
			case *ast.SelectorExpr:
				id, ok := n.X.(*ast.Ident)
				if !ok || id.Obj != nil {
					return true // a field or method of a value, not a package's function
				}
				if path, ok := names[id.Name]; ok && slices.Contains(runsOnItsOwn[path], n.Sel.Name) {
					t.Errorf("%s: %s.%s in the root; it belongs in internal/service", pos(n), path, n.Sel.Name)
				}
			}
			return true
		})
	}
}

// importNames maps the name each import of f goes by in f, its alias or
// the last element of its path, to the import path.
func importNames(f *ast.File) map[string]string {
	names := make(map[string]string)
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	return names
}

// TestStoresImportOnlyTheRoot: the stores implement the root's Store and
// know nothing of the service or the doors above them. Of this module
// they import only what the list below allows; a new entry is a decision
// about the layering, not a convenience.
func TestStoresImportOnlyTheRoot(t *testing.T) {
	allowed := []string{
		"",                  // the root: the nouns and the Store the stores implement
		"internal/sqlstore", // the SQL the two stores share and the labels on their errors
		"internal/clock",    // a pause that honours a context; it holds no state and starts nothing that outlives the call
	}
	fset := token.NewFileSet()
	for _, dir := range []string{"internal/sqlite", "internal/postgres", "internal/sqlstore"} {
		for _, f := range parseSources(t, fset, dir) {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if rel, ok := moduleRel(path); ok && !slices.Contains(allowed, rel) {
					t.Errorf("%s: %s imports %s; the stores import, of this module, only the root, internal/sqlstore and internal/clock", fset.Position(imp.Pos()), dir, path)
				}
			}
		}
	}
}

// TestServiceImportsOnlyTheRoot: internal/service runs the root's nouns
// over a Store it is handed. It knows nothing of the doors above it, of
// the wiring in internal/app, or of which store it runs on. Its test
// support, internal/service/servicetest, is left out: tests may reach
// wherever they must.
func TestServiceImportsOnlyTheRoot(t *testing.T) {
	allowed := []string{
		"",               // the root: the nouns, their rules and the Store interface
		"internal/clock", // a pause that honours a context; no state
	}
	fset := token.NewFileSet()
	var dirs []string
	err := filepath.WalkDir("internal/service", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "servicetest" || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		for _, f := range parseSources(t, fset, dir) {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ok := moduleRel(path)
				if !ok || slices.Contains(allowed, rel) || strings.HasPrefix(rel, "internal/service/") {
					continue
				}
				t.Errorf("%s: %s imports %s; the service imports, of this module, only the root and internal/clock, never a door, internal/app or a store", fset.Position(imp.Pos()), dir, path)
			}
		}
	}
}

// moduleRel reports whether path is of this module and, if so, its path
// inside the module; the root is "".
func moduleRel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// parseSources parses the non-test Go files of dir.
func parseSources(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
