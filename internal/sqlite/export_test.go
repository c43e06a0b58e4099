package sqlite

import (
	"context"
	"database/sql"
	"path"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// MigrationFiles lists the embedded migrations by file name, in order.
func MigrationFiles() []string {
	ms, _ := sqlstore.Migrations(migrations, "migrations/*.sql")
	files := make([]string, len(ms))
	for i, m := range ms {
		files[i] = path.Base(m.Name)
	}
	return files
}

// MigrateThroughForTest applies the migrations up to version last, and
// the one that adds the last column every insert of events names
// (0027_player_names.sql), which a test storing events at an older schema
// needs: it adds a column only, and every later schema has it too.
func (db *DB) MigrateThroughForTest(ctx context.Context, last int) error {
	return db.migrateWhere(ctx, func(version int) bool { return version <= last || version == 27 })
}

// ExecForTest runs a statement on the write connection.
func (db *DB) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := db.write.ExecContext(ctx, query, args...)
	return err
}

// The queries whose plans TestCommandPlans checks, by name, with
// arguments of the right types.
var CommandQueriesForTest = map[string]struct {
	Query string
	Args  []any
}{
	"take own":    {dueOwn, []any{int64(0), int64(0), int64(1), "job", 50}},
	"take relock": {dueRelock, []any{int64(0), int64(0), int64(1), "job", 50}},
	"take joined": {dueJoined, []any{int64(1), "42", int64(0), int64(0), int64(0), "job", 50}},
	"sweep":       {dueExpiry, []any{int64(0)}},
}

// PlanForTest returns the lines of EXPLAIN QUERY PLAN of a query.
func (db *DB) PlanForTest(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.read.DB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}

// CountForTest counts the rows of a table.
func (db *DB) CountForTest(ctx context.Context, table string) (int, error) {
	var n int
	err := db.read.DB.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// IntForTest runs a query of one integer on the write connection.
func (db *DB) IntForTest(ctx context.Context, query string, args ...any) (n int, err error) {
	err = db.write.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// EventQueryForTest is the page query of a filter, with its arguments.
func EventQueryForTest(f gatehouse.EventFilter) (string, []any) {
	q := eventQuery(1, f, queryPlan{})
	return q.sql, q.args
}

// WriterCheckpointPagesForTest reads the write connection's
// wal_autocheckpoint, and the reading connections'.
func (db *DB) WriterCheckpointPagesForTest(ctx context.Context) (writer, reader int, err error) {
	if err = db.write.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&writer); err != nil {
		return 0, 0, err
	}
	err = db.read.DB.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&reader)
	return writer, reader, err
}

const WriterCheckpointPages = writerCheckpointPages

// HoldIngestCommitsForTest makes every ingest transaction run hold just
// before it commits.
func (db *DB) HoldIngestCommitsForTest(hold func()) { db.beforeIngestCommit = hold }

// SetFeedRareForTest sets the count below which a filtered feed reads the
// filter's index, and returns the function that puts it back.
func SetFeedRareForTest(n int) (restore func()) {
	before := feedRare
	feedRare = n
	return func() { feedRare = before }
}

// PlayerLevelsForTest lists an organization's rows of
// insight_player_levels as "player type reason scope level", in order.
func (db *DB) PlayerLevelsForTest(ctx context.Context, orgID uuid.UUID) ([]string, error) {
	org, err := db.orgSeq(ctx, db.read, orgID)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, db.read, func(r *sql.Rows, s *string) error { return r.Scan(s) },
		`SELECT platform_user_id || ' ' || type || ' ' || reason || ' ' || scope || ' ' || level
		FROM insight_player_levels WHERE org = ? ORDER BY platform_user_id, type, month, reason, scope, level`, org)
}
