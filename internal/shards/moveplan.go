package shards

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A move's plan is read from the target's catalog, so that a table or
// column a migration adds moves without a change here; a table the plan
// cannot place makes the move refuse before it copies anything.

// moveTable is one table of a move.
type moveTable struct {
	name string
	cols []string // every stored column, in the catalog's order
	// orgType is the type of its org column (bigint, or integer in the
	// compact row of events), "" for none.
	orgType string
	// renumber is the identity column the target numbers anew ("" for
	// none): one that alone is a key, which another organization's rows
	// there may already hold. Its values are shifted by one offset, so
	// they keep their order.
	renumber string
	// refs are the columns holding another table's renumbered key, and
	// that table.
	refs map[string]string
	// identity: the table has an identity column (inserted OVERRIDING
	// SYSTEM VALUE).
	identity bool
}

// movePlan is every table a move copies, in the order the freeze deletes
// them from the source: the organization's row first, and the places an
// ingest holds, so that a write that slipped past the routers fails there
// rather than land on rows already copied.
type movePlan struct {
	tables []moveTable
	byName map[string]*moveTable
}

// The tables a move treats by name. Every other table must hold an
// organization's rows by an org column (organizations.seq), or the move
// refuses.
var (
	// movedFirst are deleted (and copied) first, in this order: the
	// organization and its places, then the tables found through another
	// (before it is deleted).
	movedFirst = []string{"organizations", "access_points", "locations", "sessions", "webhook_deliveries", "alert_attempts"}
	// through are the tables whose rows are an organization's through a
	// key of another table's: its column, the table and that table's key.
	through = map[string][3]string{
		"sessions":           {"user_id", "users", "id"},
		"webhook_deliveries": {"webhook", "webhooks", "seq"},
		"alert_attempts":     {"alert", "alerts", "seq"},
	}
	// movedInBulk are copied before the freeze, while the organization
	// writes on: events (by feed position) and the ids of recent events
	// (by age); the freeze copies what came since.
	movedInBulk = []string{"events", "recent_event_ids"}
	// notMoved are no organization's rows.
	notMoved = map[string]string{
		"settings":            "the database's own (its secret, its shard id)",
		"leases":              "the instances' claims on background work",
		"schema_migrations":   "the database's own",
		"feed_cursor_ceiling": "the database's own; the organization carries its source's (organizations.cursor_ceiling)",
		"organization_shards": "the directory, on --db only",
	}
)

// readMovePlan reads the plan from the catalog of the database on conn.
func readMovePlan(ctx context.Context, conn *pgx.Conn) (*movePlan, error) {
	rows, err := conn.Query(ctx, `SELECT c.relname,
			array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attgenerated = ''),
			bool_or(a.attidentity <> ''),
			coalesce(max(a.attname::text) FILTER (WHERE a.attidentity <> '' AND EXISTS (
				SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND i.indnatts = 1 AND i.indkey[0] = a.attnum)), ''),
			coalesce(max(format_type(a.atttypid, NULL)) FILTER (WHERE a.attname = 'org' AND a.atttypid IN ('bigint'::regtype, 'integer'::regtype)), '')
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
			AND c.relname !~ '^events_' -- a month's table retention detached: its rows are the events'
		GROUP BY c.oid, c.relname ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	p := &movePlan{byName: map[string]*moveTable{}}
	var unknown []string
	var (
		name, renumber, org string
		cols                []string
		identity            bool
	)
	_, err = pgx.ForEachRow(rows, []any{&name, &cols, &identity, &renumber, &org}, func() error {
		_, skipped := notMoved[name]
		switch {
		case skipped:
		case org != "" || slices.Contains(movedFirst, name):
			p.tables = append(p.tables, moveTable{name: name, cols: cols, orgType: org, renumber: renumber, identity: identity, refs: map[string]string{}})
		default:
			unknown = append(unknown, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("shard move: the tables %s hold no org column and the move does not know them: "+
			"say in internal/shards/moveplan.go how a move treats them", strings.Join(unknown, ", "))
	}
	rank := func(t moveTable) int {
		if i := slices.Index(movedFirst, t.name); i >= 0 {
			return i
		}
		return len(movedFirst)
	}
	slices.SortStableFunc(p.tables, func(a, b moveTable) int { return rank(a) - rank(b) })
	for i := range p.tables {
		p.byName[p.tables[i].name] = &p.tables[i]
	}
	return p, p.readRefs(ctx, conn)
}

// readRefs records the foreign keys that hold a renumbered key.
func (p *movePlan) readRefs(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT c.conrelid::regclass::text, a.attname::text, c.confrelid::regclass::text, fa.attname::text
		FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
		WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace AND cardinality(c.conkey) = 1`)
	if err != nil {
		return err
	}
	var table, col, refTable, refCol string
	_, err = pgx.ForEachRow(rows, []any{&table, &col, &refTable, &refCol}, func() error {
		t, ref := p.byName[table], p.byName[refTable]
		if t != nil && ref != nil && ref.renumber == refCol && refTable != "organizations" {
			t.refs[col] = refTable
		}
		return nil
	})
	return err
}

// columns is t's column list, quoted.
func (t *moveTable) columns() string {
	quoted := make([]string, len(t.cols))
	for i, c := range t.cols {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	return strings.Join(quoted, ", ")
}

// values is t's column list as the target stores a staged row s: the
// organization's key on the target, and renumbered keys shifted by their
// table's offset.
func (t *moveTable) values(org int64, offsets map[string]int64) string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		col := "s." + pgx.Identifier{c}.Sanitize()
		switch {
		case c == "org":
			out[i] = fmt.Sprint(org)
		case c == t.renumber && t.name != "organizations":
			out[i] = fmt.Sprintf("%s + %d", col, offsets[t.name])
		case t.refs[c] != "":
			out[i] = fmt.Sprintf("%s + %d", col, offsets[t.refs[c]])
		default:
			out[i] = col
		}
	}
	return strings.Join(out, ", ")
}

// of is the condition that selects the organization's rows of t on the
// source, whose key is org there.
func (t *moveTable) of(org int64) string {
	switch t.name {
	case "organizations":
		return fmt.Sprintf("seq = %d", org)
	}
	if via, ok := through[t.name]; ok {
		return fmt.Sprintf("%s IN (SELECT %s FROM %s WHERE org = %d)", via[0], via[2], via[1], org)
	}
	return fmt.Sprintf("org = %d", org)
}
