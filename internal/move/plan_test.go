package move

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// schemas reads this release's two schemas, each freshly migrated, after
// running pgChange on the PostgreSQL one and sqliteChange on the SQLite
// one.
func schemas(t *testing.T, pgChange, sqliteChange []string) (*pgSchema, sqliteSchema) {
	t.Helper()
	ctx := context.Background()
	dsn := testenv.PostgresDSN(t)
	pg, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if err := pg.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	lite, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := lite.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	lite.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, s := range pgChange {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	pgs, err := readPG(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range sqliteChange {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	stx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer stx.Rollback()
	lites, err := readSQLite(ctx, stx)
	if err != nil {
		t.Fatal(err)
	}
	return pgs, lites
}

// TestMoveKnowsEveryTable: the move has a treatment for every table of
// this release's two schemas, a source for every PostgreSQL column of a
// copied table, a use for every SQLite column, a conversion for every
// type, the label of every sealed column and the column of every
// sequence; and no treatment names a table neither schema has. A
// migration that adds a table, a column or a sequence without saying
// what a move does with it fails here (and a move refuses to run).
func TestMoveKnowsEveryTable(t *testing.T) {
	pg, lite := schemas(t, nil, nil)
	p, err := makePlan(pg, lite)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range Tables() {
		_, inPG := pg.Tables[tb.Name]
		_, inSQLite := lite[tb.Name]
		if !inPG && !inSQLite {
			t.Errorf("the move treats %s, which neither schema has", tb.Name)
		}
	}
	for i, name := range p.order {
		for _, ref := range pg.Tables[name].Refs {
			for _, before := range p.order[i:] {
				if before == ref.Table && before != name {
					t.Errorf("%s is copied before %s, whose keys it references", name, ref.Table)
				}
			}
		}
	}
}

// TestMoveRefusesWhatItDoesNotKnow: each kind of addition a migration
// could make without a treatment is named by the plan's error.
func TestMoveRefusesWhatItDoesNotKnow(t *testing.T) {
	pg, lite := schemas(t, []string{
		"CREATE TABLE door_notes (org bigint NOT NULL, note text NOT NULL)",
		"ALTER TABLE events ADD COLUMN mood text",
		"ALTER TABLE grants ADD COLUMN spot point",
		"ALTER TABLE webhooks ADD COLUMN sealed_token bytea",
		"CREATE SEQUENCE loose_numbers",
	}, []string{
		"CREATE TABLE door_sketches (org INTEGER NOT NULL)",
		"ALTER TABLE users ADD COLUMN nickname TEXT",
		"ALTER TABLE grants ADD COLUMN spot TEXT",
		"ALTER TABLE webhooks ADD COLUMN sealed_token BLOB",
	})
	_, err := makePlan(pg, lite)
	if err == nil {
		t.Fatal("the plan took schemas with tables and columns it does not know")
	}
	for _, want := range []string{"PostgreSQL table door_notes", "SQLite table door_sketches", "column events.mood has no SQLite column",
		"SQLite column users.nickname", "column grants.spot: the move cannot convert type point",
		"column webhooks.sealed_token holds a sealed value", "PostgreSQL sequence loose_numbers"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the plan's error does not name %q:\n%v", want, err)
		}
	}
}
