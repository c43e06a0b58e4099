package move_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// TestMoveRefusesAndLeavesTheTarget: a move that cannot run, or fails
// halfway, says why and leaves the target as it was (migrated, which a
// move needs anyway): no row in any table. (A sequence a trigger drew
// from may have advanced: PostgreSQL never takes a number back, which
// leaves a gap and nothing else.)
//   - a source whose schema is older than this release's (migrate it);
//   - a source a server still serves (its sweep lease is held);
//   - a source with a value PostgreSQL cannot hold (a NUL in a text):
//     the copy fails at that table, after the tables before it;
//   - an event whose outcome does not follow from its type, which
//     PostgreSQL's compact row would read otherwise.
func TestMoveRefusesAndLeavesTheTarget(t *testing.T) {
	testenv.PostgresURL(t) // skips (fails in CI) without a server, before the source is built
	ctx := context.Background()
	src := newSource(t, 100)
	src.srv.Close()
	must(t, src.db.Close())
	for _, c := range []struct {
		name, change, want string
	}{
		{"an older schema", "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)", "gatehouse migrate"},
		{"in use", "INSERT INTO leases (name, holder, until) VALUES ('commands.sweep', 'serve', " + strconv.FormatInt(src.clock.Now().UnixMilli()+5000, 10) + ")", "stop every instance"},
		{"a value PostgreSQL cannot hold", "UPDATE events SET location_name = 'Hall' || char(0) WHERE seq = (SELECT max(seq) FROM events WHERE org <> 0)", "events, after"},
		{"an outcome its type does not give", "UPDATE events SET allowed = 'denied' WHERE seq = (SELECT max(seq) FROM events WHERE org <> 0 AND type = 'ACCESS_GRANTED')",
			"outcome denied: PostgreSQL keeps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gatehouse.db")
			b, err := os.ReadFile(src.path)
			must(t, err)
			must(t, os.WriteFile(path, b, 0o600))
			db, err := sql.Open("sqlite", path)
			must(t, err)
			_, err = db.Exec(c.change)
			must(t, err)
			must(t, db.Close())
			dsn := testenv.PostgresDSN(t)
			_, err = app.Move(ctx, move.Options{From: path, To: dsn, Now: src.clock.Now})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("the move answered %v, want an error saying %q", err, c.want)
			}
			conn, err := pgx.Connect(ctx, dsn)
			must(t, err)
			defer conn.Close(ctx)
			rows, _ := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
				AND table_type = 'BASE TABLE' AND table_name NOT IN ('schema_migrations', 'feed_cursor_ceiling')`)
			tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
			must(t, err)
			for _, table := range tables {
				var n int
				must(t, conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n))
				if n != 0 {
					t.Errorf("the target's %s holds %d rows after the move failed", table, n)
				}
			}
			var ceiling string
			if err := conn.QueryRow(ctx, "SELECT xid::text FROM feed_cursor_ceiling").Scan(&ceiling); err == nil && ceiling == "0" {
				t.Error("the failed move set the feed cursors' ceiling")
			}
		})
	}
}

// TestMoveRefusesATargetInUse: a target an instance serves (its sweep
// lease is held) is refused, changing nothing: its other organizations'
// writes would draw keys the moved rows hold until the move commits.
func TestMoveRefusesATargetInUse(t *testing.T) {
	testenv.PostgresURL(t)
	ctx := context.Background()
	src := newSource(t, 100)
	src.srv.Close()
	must(t, src.db.Close())
	dsn := testenv.PostgresDSN(t)
	dst, _, _ := openTarget(t, dsn, src.clock) // migrated, as an instance leaves it
	conn, err := pgx.Connect(ctx, dsn)
	must(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "INSERT INTO leases (name, holder, until) VALUES ('commands.sweep', 'serve', $1)", src.clock.Now().Add(5*time.Second))
	must(t, err)
	_, err = app.Move(ctx, move.Options{From: src.path, To: dsn, Org: src.orgs[0].org.ID, Now: src.clock.Now})
	if err == nil || !strings.Contains(err.Error(), "the target is in use") {
		t.Fatalf("the move into a served target answered %v", err)
	}
	orgs, err := dst.ListOrganizations(ctx)
	if err != nil || len(orgs) != 0 {
		t.Errorf("the target holds %v (%v) after the refusal", orgs, err)
	}
}
