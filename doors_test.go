package gatehouse_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doors are the packages that serve users: they parse input, call the
// service, and render its answer. internal/app, the one wiring, is the
// only package besides the stores that may hold a gatehouse.Store.
var doors = []string{"internal/server", "internal/dashboard", "internal/cli"}

// TestDoorsUseTheStoreOnlyThroughTheService type-checks the non-test
// files of every door and fails on any value of a type that is or
// implements gatehouse.Store (a field, a parameter, a variable, a call's
// result), on any call of one of its methods, and on any function that
// takes one (gatehouse.FindEvents, demo.Seed): an operation of a door
// happens in service.Service, or the next change (an audit entry, a
// tenant check) is written three times.
func TestDoorsUseTheStoreOnlyThroughTheService(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks three packages")
	}
	exports := exportData(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(f)
	})
	root, err := imp.Import("github.com/gatehouse/gatehouse")
	if err != nil {
		t.Fatal(err)
	}
	store := root.Scope().Lookup("Store").Type()
	storeIface := store.Underlying().(*types.Interface)
	isStore := func(tp types.Type) bool {
		if tp == nil || tp == types.Typ[types.Invalid] {
			return false
		}
		if types.Identical(tp, store) {
			return true
		}
		if _, isIface := tp.Underlying().(*types.Interface); isIface {
			return false // any, error, …: nothing of the store shows
		}
		return types.Implements(tp, storeIface) || types.Implements(types.NewPointer(tp), storeIface)
	}
	for _, dir := range doors {
		files := parseDir(t, fset, dir)
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check("github.com/gatehouse/gatehouse/"+dir, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", dir, err)
		}
		for expr, tv := range info.Types {
			if isStore(tv.Type) {
				t.Errorf("%s: %s is a store (%s); call the service instead", fset.Position(expr.Pos()), types.ExprString(expr), tv.Type)
			}
			if sig, ok := tv.Type.(*types.Signature); ok {
				for v := range sig.Params().Variables() {
					if isStore(v.Type()) {
						t.Errorf("%s: %s takes a store; call the service instead", fset.Position(expr.Pos()), types.ExprString(expr))
					}
				}
			}
		}
		for id, obj := range info.Defs {
			if obj != nil && isStore(obj.Type()) {
				t.Errorf("%s: %s holds a store; call the service instead", fset.Position(id.Pos()), id.Name)
			}
		}
	}
}

// exportData compiles the doors and returns the export data file of each
// package they depend on, as go list names them.
func exportData(t *testing.T) map[string]string {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
	for _, d := range doors {
		args = append(args, "./"+d)
	}
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return exports
}

// parseDir parses the package's non-test Go files.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
