package gatehouse_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gatehouse/gatehouse"

// TestRootHoldsOnlyNouns keeps the layering of the packages, as Go's own
// go/build/deps_test.go keeps the standard library's. The root package
// holds the nouns and their rules: it imports nothing of internal/, and
// nothing in it runs on its own: no goroutine, channel, mutex, timer or
// sleep. What runs lives in internal/service.
func TestRootHoldsOnlyNouns(t *testing.T) {
	fset := token.NewFileSet()
	for _, f := range parseSources(t, fset, ".") {
		pos := func(n ast.Node) token.Position { return fset.Position(n.Pos()) }
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module+"/internal/") {
				t.Errorf("%s: the root imports %s; the root imports nothing of internal/", pos(imp), path)
			}
			if path == "sync" || path == "sync/atomic" {
				t.Errorf("%s: the root imports %s; what needs it belongs in internal/service", pos(imp), path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: a goroutine in the root; it belongs in internal/service", pos(n))
			case *ast.ChanType:
				t.Errorf("%s: a channel in the root; it belongs in internal/service", pos(n))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" &&
					slices.Contains([]string{"NewTimer", "NewTicker", "After", "AfterFunc", "Tick", "Sleep"}, n.Sel.Name) {
					t.Errorf("%s: time.%s in the root; it belongs in internal/service", pos(n), n.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestStoresImportOnlyTheRoot: the stores implement the root's Store and
// know nothing of the service or the doors above them.
func TestStoresImportOnlyTheRoot(t *testing.T) {
	above := []string{"internal/service", "internal/server", "internal/dashboard", "internal/cli", "internal/app"}
	fset := token.NewFileSet()
	for _, dir := range []string{"internal/sqlite", "internal/postgres", "internal/sqlstore"} {
		for _, f := range parseSources(t, fset, dir) {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if rel, ok := strings.CutPrefix(path, module+"/"); ok && slices.Contains(above, rel) {
					t.Errorf("%s: %s imports %s, which stands above the stores", fset.Position(imp.Pos()), dir, path)
				}
			}
		}
	}
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
