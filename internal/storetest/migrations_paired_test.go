package storetest

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sharedFrom is the first migration number that both stores took for the
// same step (0010_relock): below it the numbers are one apart (SQLite's
// 0002_fts_automerge, PostgreSQL's 0009_answer_counts), and they stay so,
// since each database records the numbers it applied in
// schema_migrations and renumbering would run a step twice or never.
const sharedFrom = 10

// TestMigrationsNumberedAlike fails when, from sharedFrom on, a migration
// number exists in one store only or names a different step in each (the
// two file names differ). A step one database does not need is still
// taken there, by a file of the same name whose SQL is only a comment.
func TestMigrationsNumberedAlike(t *testing.T) {
	a, b := readMigrations(t, storeDirs[0]), readMigrations(t, storeDirs[1])
	if a[sharedFrom] == "" || a[sharedFrom] != b[sharedFrom] {
		t.Fatalf("migration %04d is not the same step in both stores (%q, %q)", sharedFrom, a[sharedFrom], b[sharedFrom])
	}
	for _, pair := range [][2]map[int]string{{a, b}, {b, a}} {
		for _, v := range slices.Sorted(maps.Keys(pair[0])) {
			if v >= sharedFrom && pair[1][v] == "" {
				t.Errorf("migration %s exists in one store only: add %04d to the other store too (a file whose SQL is only a comment when that database needs nothing)", pair[0][v], v)
			}
		}
	}
	for _, v := range slices.Sorted(maps.Keys(a)) {
		if v >= sharedFrom && b[v] != "" && a[v] != b[v] {
			t.Errorf("migration %04d is %s in %s but %s in %s: from %04d on, one number is one step, under one file name in both stores",
				v, a[v], filepath.Base(storeDirs[0]), b[v], filepath.Base(storeDirs[1]), sharedFrom)
		}
	}
}

// readMigrations returns the store's migration files by number. Two files
// of one number fail the test here, at review, rather than at the store's
// first start, where Migrate refuses them; kept in the map, one would hide
// the other from the checks above.
func readMigrations(t *testing.T, dir string) map[int]string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "migrations"))
	if err != nil {
		t.Fatal(err)
	}
	ms := map[int]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		v, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			t.Fatalf("%s/migrations/%s: name must start with a number", dir, e.Name())
		}
		if other, ok := ms[v]; ok {
			t.Errorf("%s/migrations: %s and %s share the number %04d; give the later step the next free number", dir, other, e.Name(), v)
		}
		ms[v] = e.Name()
	}
	return ms
}
