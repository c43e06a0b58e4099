package move

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// compaction makes the rows of a table PostgreSQL keeps in a shape of its
// own from SQLite's: each batch is copied, converted as any table's, into
// a stage that holds SQLite's columns (staged), and a query over the
// stage inserts the table's rows from it, in key order, once the values
// they refer to are stored. A batch is inserted by one statement, so the
// table's triggers see it whole, as they see a COPY.
type compaction struct {
	// wide are the stage's columns the table does not hold as they are:
	// SQLite's, each with the PostgreSQL type it is staged in.
	wide []pgColumn
	// made are the table's columns the query makes, each by an
	// expression over the staged row s and joins.
	made  map[string]string
	joins string
	// where, when set, holds for every row whose values were all stored
	// (an outer join's): a row it drops fails the batch's count.
	where string
	// refuse finds a staged row the table cannot keep as SQLite has it,
	// and describes it; unsafe says what the table would lose.
	refuse, unsafe string
	// store are the statements run on each staged batch before it is
	// inserted: they store what its rows refer to. They and refuse name
	// the stage %[1]s.
	store []string
}

// eventRows makes PostgreSQL's compact events (migrations 0033 and 0034)
// from SQLite's wide row: the access point, the location, the pair of
// names an event was recorded with and its server job become keys of
// event_values, the type and the scope their one-byte codes; the outcome is not kept, following
// from the type, so a row whose outcome does not is refused rather than
// read otherwise after the move.
var eventRows = &compaction{
	wide: []pgColumn{
		{Name: "type", Type: "text"}, {Name: "scope", Type: "text"}, {Name: "allowed", Type: "text"},
		{Name: "access_point_id", Type: "uuid"}, {Name: "location_id", Type: "uuid"},
		{Name: "access_point_name", Type: "text"}, {Name: "location_name", Type: "text"},
		{Name: "server_job_id", Type: "text"},
	},
	made: map[string]string{
		"access_point": "a.key", "location": "l.key", "names": "n.key", "server_job_id": "j.key",
		"type": "event_type_code(s.type)", "scope": "event_scope_code(s.scope)",
	},
	joins: `JOIN event_values a ON a.org = s.org AND a.kind = 'a' AND a.value = s.access_point_id::text AND a.value2 = ''
		JOIN event_values l ON l.org = s.org AND l.kind = 'l' AND l.value = s.location_id::text AND l.value2 = ''
		JOIN event_values n ON n.org = s.org AND n.kind = 'n' AND n.value = s.access_point_name AND n.value2 = s.location_name
		LEFT JOIN event_values j ON j.org = s.org AND j.kind = 'j' AND j.value = s.server_job_id AND j.value2 = ''`,
	where: "(j.key IS NULL) = (s.server_job_id IS NULL)",
	refuse: `SELECT format('event %%s: type %%s, scope %%s, outcome %%s', s.id, s.type, coalesce(s.scope, 'none'), coalesce(s.allowed, 'none'))
		FROM %[1]s s
		WHERE event_type_code(s.type) IS NULL OR s.scope IS NOT NULL AND event_scope_code(s.scope) IS NULL
			OR s.allowed IS DISTINCT FROM event_allowed(event_type_code(s.type))
		LIMIT 1`,
	unsafe: "PostgreSQL keeps the types and scopes ingest takes, and no outcome but the one that follows from the type",
	// The values no event of the organization named yet take its next
	// keys, max + 1 on, as ingest takes them (postgres/values.go); a value
	// the target holds for it already keeps its key, which never changes
	// meaning.
	// No other transaction takes keys of a moved organization, which is
	// not in the target until the move commits: the organization's
	// advisory lock, which ingest takes, is not needed.
	store: []string{`INSERT INTO event_values (org, key, kind, value, value2)
		SELECT v.org, (SELECT coalesce(max(e.key), 0) FROM event_values e WHERE e.org = v.org)
				+ row_number() OVER (PARTITION BY v.org ORDER BY v.kind, v.value, v.value2),
			v.kind, v.value, v.value2
		FROM (` + eventPlaces + `) v
		WHERE NOT EXISTS (SELECT 1 FROM event_values e
			WHERE e.org = v.org AND e.kind = v.kind AND e.value = v.value AND e.value2 = v.value2)`},
}

// eventPlaces are the values of event_values the staged events (%[1]s)
// name: each access point's id (kind 'a'), location's id ('l'), pair of
// names ('n') and server job's id ('j'), as ingest stores them
// (postgres/values.go, placeValues and jobValue).
const eventPlaces = `SELECT org, 'a'::"char" AS kind, access_point_id::text AS value, ''::text AS value2 FROM %[1]s
	UNION SELECT org, 'l'::"char", location_id::text, '' FROM %[1]s
	UNION SELECT org, 'n'::"char", access_point_name, location_name FROM %[1]s
	UNION SELECT org, 'j'::"char", server_job_id, '' FROM %[1]s WHERE server_job_id IS NOT NULL`

// staged is the table a copy writes with COPY: the table itself, or, for
// a compacted one, its stage: the table's columns but those the
// compaction makes, and SQLite's that it stages. The plan checks and the
// values converts its columns as any table's.
func staged(t *pgTable, r rule) *pgTable {
	if r.compact == nil {
		return t
	}
	s := *t
	s.Columns = nil
	for _, c := range t.Columns {
		if _, made := r.compact.made[c.Name]; !made {
			s.Columns = append(s.Columns, c)
		}
	}
	s.Columns = append(s.Columns, r.compact.wide...)
	return &s
}

// identity is the quoted identity column of a table: its key, in which
// it is copied (the feed's order, for events); "" for a table without.
func identity(t *pgTable) string {
	for _, c := range t.Columns {
		if c.Identity {
			return pgx.Identifier{c.Name}.Sanitize()
		}
	}
	return ""
}

// createStage makes the temporary table the rows of a compacted table
// are staged in, with the staged columns' types.
func (m *mover) createStage(ctx context.Context, name string, st *pgTable) error {
	defs := make([]string, len(st.Columns))
	for i, c := range st.Columns {
		defs[i] = pgx.Identifier{c.Name}.Sanitize() + " " + pgx.Identifier{c.Type}.Sanitize()
	}
	_, err := m.tx.Exec(ctx, "CREATE TEMPORARY TABLE "+pgx.Identifier{name}.Sanitize()+" ("+strings.Join(defs, ", ")+") ON COMMIT DROP")
	return err
}

// query is the SELECT that makes the rows of a compacted table t from
// those staged in stage, each column under its name.
func (c *compaction) query(t *pgTable, stage string) string {
	exprs := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		id := pgx.Identifier{col.Name}.Sanitize()
		if e, ok := c.made[col.Name]; ok {
			exprs[i] = e + " AS " + id
		} else {
			exprs[i] = "s." + id
		}
	}
	q := "SELECT " + strings.Join(exprs, ", ") + " FROM " + pgx.Identifier{stage}.Sanitize() + " s " + c.joins
	if c.where != "" {
		q += " WHERE " + c.where
	}
	return q
}

// compact inserts the n rows of a compacted table staged in stage, in
// key order, after refusing a row it cannot keep and storing what the
// rows refer to, then empties the stage.
func (m *mover) compact(ctx context.Context, t *pgTable, c *compaction, stage string, n int64) error {
	if n == 0 {
		return nil
	}
	st := pgx.Identifier{stage}.Sanitize()
	var bad string
	switch err := m.tx.QueryRow(ctx, fmt.Sprintf(c.refuse, st)).Scan(&bad); {
	case err == nil:
		return fmt.Errorf("%s: %s", bad, c.unsafe)
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	}
	for _, s := range c.store {
		if _, err := m.tx.Exec(ctx, fmt.Sprintf(s, st)); err != nil {
			return err
		}
	}
	cols := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = pgx.Identifier{col.Name}.Sanitize()
	}
	q := "INSERT INTO " + pgx.Identifier{t.Name}.Sanitize() + " (" + strings.Join(cols, ", ") + ") OVERRIDING SYSTEM VALUE " + c.query(t, stage)
	if key := identity(t); key != "" {
		q += " ORDER BY s." + key
	}
	tag, err := m.tx.Exec(ctx, q)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != n {
		return fmt.Errorf("%d of the %d rows staged were inserted: the others name values that were not stored", tag.RowsAffected(), n)
	}
	_, err = m.tx.Exec(ctx, "TRUNCATE "+st)
	return err
}

// eventValues counts the moved organizations' event_values, which the
// events' copy stored batch by batch (eventRows), before the events that
// name them: its step follows the events'. SQLite has no such table.
func (m *mover) eventValues(ctx context.Context, t *pgTable, r rule) (TableCount, error) {
	count := TableCount{Table: t.Name, Treatment: Derived, Why: r.why}
	n, err := m.countTarget(ctx, t)
	count.Target = rows(n)
	return count, err
}
