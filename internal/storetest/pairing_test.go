package storetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The two stores stay paired: a reader who finds a method in one store
// finds its twin in the file of the same name in the other, and a
// database of either kind takes the same numbered migration steps. These
// tests read the sources; they build neither driver.

// storeDirs are the stores compared, by package directory.
var storeDirs = []string{"../sqlite", "../postgres"}

// oneStoreFiles are the files that exist in one store only.
var oneStoreFiles = map[string]string{
	"sqlite/bulk.go":          "gatehouse.BulkIngester: SQLite batches an import in one writer transaction; PostgreSQL's IngestEvents already copies a batch in",
	"sqlite/hotstmts.go":      "statements kept prepared on SQLite's one write connection; pgx prepares and caches statements itself",
	"sqlite/readpool.go":      "SQLite's pool of read-only connections with prepared statements; PostgreSQL reads through pgxpool",
	"postgres/ingest_rows.go": "the statements that store a batch from arrays or a copied table, recent ids first; SQLite inserts a batch's rows one statement each (sqlite/ingest.go)",
	"postgres/partitions.go":  "gatehouse.EventPartitioner: PostgreSQL keeps events in partitions of a month; SQLite keeps one table",
	"postgres/months.go":      "gatehouse.EventPartitioner: the months' partitions made ahead and before a write; SQLite keeps one table",
	"postgres/compact.go":     "gatehouse.EventPartitioner: the indexes of a month's partition rebuilt packed; SQLite keeps one table",
	"postgres/directory.go":   "the database's side of shards (internal/shards): its shard id and the directory of organizations; SQLite has no shards",
	"postgres/testhooks.go":   "a test hook the store suite on shards (internal/shards) reaches from another package; SQLite's is in its export_test.go",
	"postgres/values.go":      "the dictionary of the values events name by key (migration 0033), which SQLite's wide row does not need",
	"postgres/ingest_held.go": "an ingest holds its access points' rows while it writes, since PostgreSQL reads a batch's places before the write; SQLite reads them in its one writer's transaction",
	// The file named after its package (sqlite.go, postgres.go) opens and
	// closes the store; packageFile compares the two under one name.
}

// oneStoreMethods are the exported methods of DB that exist in one store
// only.
var oneStoreMethods = map[string]string{
	"sqlite.BeginBulkIngest":            "gatehouse.BulkIngester, for imports on SQLite's one writer (see sqlite/bulk.go)",
	"postgres.AddEventPartitions":       "gatehouse.EventPartitioner (see postgres/months.go)",
	"postgres.DropExpiredPartitions":    "gatehouse.EventPartitioner (see postgres/months.go)",
	"postgres.ForgetRecentIDs":          "gatehouse.EventPartitioner (see postgres/months.go)",
	"postgres.CompactPartitions":        "gatehouse.EventPartitioner (see postgres/compact.go)",
	"postgres.UseReplica":               "a read replica for the list endpoints: SQLite has no replica",
	"postgres.ShardID":                  "shards (see postgres/directory.go)",
	"postgres.PlaceOrganization":        "shards (see postgres/directory.go)",
	"postgres.UnplaceOrganization":      "shards (see postgres/directory.go)",
	"postgres.ShardOf":                  "shards (see postgres/directory.go)",
	"postgres.MarkShardOf":              "shards (see postgres/directory.go)",
	"postgres.ShardOfMain":              "shards (see postgres/directory.go)",
	"postgres.Placements":               "shards (see postgres/directory.go)",
	"postgres.WatchDirectory":           "shards (see postgres/directory.go)",
	"postgres.CreateOrganizationAs":     "shards: a router places an organization before it exists (see postgres/directory.go)",
	"postgres.OrgOfUser":                "shards: a router finds a user's shard by it (internal/shards)",
	"postgres.WebhookDue":               "shards: a router ranks each primary's next webhook by it (internal/shards)",
	"postgres.MarkMoving":               "shards: a move marks an organization in the directory (see postgres/directory.go)",
	"postgres.EndMove":                  "shards: a move ends with the directory naming the target (see postgres/directory.go)",
	"postgres.CheckAcquire":             "shards: a router fences an organization being moved at each connection it takes (internal/shards)",
	"postgres.ForgetOrganization":       "shards: a move deletes an organization from the primary it leaves (internal/shards)",
	"postgres.HoldIngestCommitsForTest": "a test hook for the store suite on shards (see postgres/testhooks.go)",
	"postgres.Writers":                  "gatehouse.ParallelWriter: PostgreSQL commits from several connections at once; SQLite has one writer",
}

// packageFile is the name under which the file named after its package
// is compared.
const packageFile = "<package>.go"

// storeSource is what one store's sources declare.
type storeSource struct {
	name    string            // the package's directory name: sqlite, postgres
	files   map[string]bool   // non-test .go files, by compared name
	methods map[string]string // exported methods of *DB: name → compared file name
}

func readStore(t *testing.T, dir string) storeSource {
	t.Helper()
	s := storeSource{name: filepath.Base(dir), files: map[string]bool{}, methods: map[string]string{}}
	_, paths, files := parseStore(t, dir)
	for i, f := range files {
		name := filepath.Base(paths[i])
		if name == s.name+".go" {
			name = packageFile
		}
		s.files[name] = true
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() || !isDBPointer(fn.Recv) {
				continue
			}
			if other, ok := s.methods[fn.Name.Name]; ok {
				t.Errorf("%s: DB.%s declared in %s and %s", s.name, fn.Name.Name, other, name)
			}
			s.methods[fn.Name.Name] = name
		}
	}
	if len(s.methods) == 0 {
		t.Fatalf("%s: no methods of DB found in %s", s.name, dir)
	}
	return s
}

// parseStore parses the non-test Go files of a store's directory, in
// name order: what every check of this file reads.
func parseStore(t *testing.T, dir string) (*token.FileSet, []string, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var paths []string
	var files []*ast.File
	for _, path := range names {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		paths, files = append(paths, path), append(files, f)
	}
	return fset, paths, files
}

func isDBPointer(recv *ast.FieldList) bool {
	if len(recv.List) != 1 {
		return false
	}
	star, ok := recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "DB"
}

// TestStoresPaired fails when an exported method of DB lives in files of
// different names in the two stores, exists in one store only, or a file
// exists in one store only, outside the allowlists above.
func TestStoresPaired(t *testing.T) {
	a, b := readStore(t, storeDirs[0]), readStore(t, storeDirs[1])
	used := map[string]bool{}
	for _, pair := range [][2]storeSource{{a, b}, {b, a}} {
		s, other := pair[0], pair[1]
		for _, m := range slices.Sorted(maps.Keys(s.methods)) {
			file := s.methods[m]
			twin, ok := other.methods[m]
			switch {
			case !ok:
				key := s.name + "." + m
				if _, allowed := oneStoreMethods[key]; !allowed {
					t.Errorf("DB.%s exists in %s (%s) only: add it to %s or list it in oneStoreMethods with the reason", m, s.name, file, other.name)
				}
				used[key] = true
			case s.name == a.name && file != twin:
				t.Errorf("DB.%s lives in %s/%s and %s/%s: move it so both files share a name", m, a.name, file, b.name, twin)
			}
		}
		for _, f := range slices.Sorted(maps.Keys(s.files)) {
			if other.files[f] {
				continue
			}
			key := s.name + "/" + f
			if _, allowed := oneStoreFiles[key]; !allowed {
				t.Errorf("%s exists in one store only: name it as in %s or list it in oneStoreFiles with the reason", key, other.name)
			}
			used[key] = true
		}
	}
	for _, list := range []map[string]string{oneStoreMethods, oneStoreFiles} {
		for key := range list {
			if !used[key] {
				t.Errorf("allowlist entry %s no longer applies: remove it", key)
			}
		}
	}
}

// TestStoreMethodsLabelErrors fails when an exported method of DB that
// returns an error does not begin by deferring sqlstore.Label with its own
// name, so a new method cannot fail without saying where. A method that
// takes an orgID names it first after the operation, so the one log line
// of a failure names the operation and the organization.
func TestStoreMethodsLabelErrors(t *testing.T) {
	for _, dir := range storeDirs {
		fset, _, files := parseStore(t, dir)
		for _, f := range files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || !fn.Name.IsExported() || !isDBPointer(fn.Recv) || !returnsError(fn.Type) {
					continue
				}
				if !defersLabel(fn) {
					t.Errorf("%s: DB.%s returns an error but does not begin with defer sqlstore.Label(&err, %q, orgID, …)",
						fset.Position(fn.Pos()), fn.Name.Name, "Store."+fn.Name.Name)
				}
			}
		}
	}
}

// TestStoreMethodsLabelOnce fails when a method of DB calls an exported
// method of DB that labels its errors: the failure would carry two labels
// (Store.RenameLocation(…): Store.FindLocation(…): …). It calls the
// unlabelled helper the exported method wraps instead.
func TestStoreMethodsLabelOnce(t *testing.T) {
	for _, dir := range storeDirs {
		fset, _, files := parseStore(t, dir)
		labelled := map[string]bool{}
		for _, f := range files {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.IsExported() && isDBPointer(fn.Recv) && defersLabel(fn) {
					labelled[fn.Name.Name] = true
				}
			}
		}
		if len(labelled) == 0 {
			t.Fatalf("%s: no labelled methods of DB found", dir)
		}
		for _, f := range files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || !isDBPointer(fn.Recv) || len(fn.Recv.List[0].Names) == 0 || fn.Body == nil {
					continue
				}
				recv := fn.Recv.List[0].Names[0].Name
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == recv && labelled[sel.Sel.Name] {
						t.Errorf("%s: DB.%s calls DB.%s, which labels its errors too: call an unlabelled helper, so a failure carries one label",
							fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
					}
					return true
				})
			}
		}
	}
}

func returnsError(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	id, ok := ft.Results.List[len(ft.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

func defersLabel(fn *ast.FuncDecl) bool {
	if len(fn.Body.List) == 0 {
		return false
	}
	d, ok := fn.Body.List[0].(*ast.DeferStmt)
	if !ok || len(d.Call.Args) < 2 {
		return false
	}
	sel, ok := d.Call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Label" {
		return false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "sqlstore" {
		return false
	}
	op, ok := d.Call.Args[1].(*ast.BasicLit)
	if !ok || op.Value != strconv.Quote("Store."+fn.Name.Name) {
		return false
	}
	if !takesParam(fn.Type, "orgID") {
		return true
	}
	if len(d.Call.Args) < 3 {
		return false
	}
	org, ok := d.Call.Args[2].(*ast.Ident)
	return ok && org.Name == "orgID"
}

// takesParam reports whether ft has a parameter called name.
func takesParam(ft *ast.FuncType, name string) bool {
	for _, field := range ft.Params.List {
		for _, n := range field.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}
