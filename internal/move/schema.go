package move

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pgColumn is a column of a PostgreSQL table, as its catalog describes it.
type pgColumn struct {
	Name     string
	Type     string // udt_name: uuid, timestamptz, bool, int8, _uuid…
	Default  string // the default's expression, "" for none
	Identity bool   // GENERATED … AS IDENTITY
}

// pgTable is a table of the target's schema.
type pgTable struct {
	Name    string
	Columns []pgColumn
	Key     []string          // the primary key's columns, in order
	Refs    map[string]pgRef  // column → the column its foreign key references
	Before  bool              // a BEFORE INSERT trigger may change what a row inserts
	Seqs    map[string]string // column → the sequence that numbers it
	// Partitioned: its rows are kept in partitions (events, by month),
	// which must exist for the rows copied.
	Partitioned bool
}

// pgRef is the column a foreign key references.
type pgRef struct{ Table, Column string }

func (t *pgTable) column(name string) *pgColumn {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// pgSchema is the target's schema: its tables by name, and every
// sequence in it.
type pgSchema struct {
	Tables    map[string]*pgTable
	Sequences []string
}

// nextval finds the sequence a column's default draws from.
var nextval = regexp.MustCompile(`^nextval\('(?:[^'.]+\.)?([^'.]+)'::regclass\)$`)

// readPG reads the schema of the target's current schema (the first of
// its search_path), where Gatehouse's tables are.
func readPG(ctx context.Context, q pgx.Tx) (*pgSchema, error) {
	s := &pgSchema{Tables: map[string]*pgTable{}}
	rows, _ := q.Query(ctx, `SELECT c.table_name, c.column_name, c.udt_name, coalesce(c.column_default, ''), c.is_identity = 'YES'
		FROM information_schema.columns c JOIN information_schema.tables t
			ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
		WHERE c.table_schema = current_schema()
			-- the months of events: rows of the partitioned table, written through it
			AND NOT (SELECT relispartition FROM pg_class WHERE oid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass)
		ORDER BY c.table_name, c.ordinal_position`)
	var table string
	var c pgColumn
	if _, err := pgx.ForEachRow(rows, []any{&table, &c.Name, &c.Type, &c.Default, &c.Identity}, func() error {
		t := s.Tables[table]
		if t == nil {
			t = &pgTable{Name: table, Refs: map[string]pgRef{}, Seqs: map[string]string{}}
			s.Tables[table] = t
		}
		t.Columns = append(t.Columns, c)
		if m := nextval.FindStringSubmatch(c.Default); m != nil {
			t.Seqs[c.Name] = m[1]
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, _ = q.Query(ctx, `SELECT cl.relname, a.attname, rc.relname, ra.attname
		FROM pg_constraint k JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class rc ON rc.oid = k.confrelid
		CROSS JOIN LATERAL unnest(k.conkey, k.confkey) AS u(col, rcol)
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.col
		JOIN pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = u.rcol
		WHERE k.contype = 'f' AND cl.relnamespace = current_schema()::regnamespace`)
	var col string
	var ref pgRef
	if _, err := pgx.ForEachRow(rows, []any{&table, &col, &ref.Table, &ref.Column}, func() error {
		if t := s.Tables[table]; t != nil {
			t.Refs[col] = ref
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, _ = q.Query(ctx, `SELECT cl.relname, a.attname FROM pg_constraint k JOIN pg_class cl ON cl.oid = k.conrelid
		CROSS JOIN LATERAL unnest(k.conkey) WITH ORDINALITY AS u(col, n)
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.col
		WHERE k.contype = 'p' AND cl.relnamespace = current_schema()::regnamespace ORDER BY cl.relname, u.n`)
	if _, err := pgx.ForEachRow(rows, []any{&table, &col}, func() error {
		if t := s.Tables[table]; t != nil {
			t.Key = append(t.Key, col)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, _ = q.Query(ctx, `SELECT DISTINCT event_object_table FROM information_schema.triggers
		WHERE trigger_schema = current_schema() AND action_timing = 'BEFORE' AND event_manipulation = 'INSERT'`)
	if _, err := pgx.ForEachRow(rows, []any{&table}, func() error {
		if t := s.Tables[table]; t != nil {
			t.Before = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, _ = q.Query(ctx, "SELECT relname FROM pg_class WHERE relkind = 'p' AND relnamespace = current_schema()::regnamespace")
	if _, err := pgx.ForEachRow(rows, []any{&table}, func() error {
		if t := s.Tables[table]; t != nil {
			t.Partitioned = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// The sequence of each identity column.
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if !c.Identity {
				continue
			}
			var name string
			if err := q.QueryRow(ctx, "SELECT pg_get_serial_sequence(quote_ident($1), $2)", t.Name, c.Name).Scan(&name); err != nil {
				return nil, err
			}
			t.Seqs[c.Name] = name[strings.LastIndexByte(name, '.')+1:]
		}
	}
	rows, _ = q.Query(ctx, "SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1")
	var err error
	s.Sequences, err = pgx.CollectRows(rows, pgx.RowTo[string])
	return s, err
}

// sqliteSchema is the source's schema: each table's columns, in order.
type sqliteSchema map[string][]string

// readSQLite reads the tables of the SQLite file, its own and the
// full-text index's shadow tables included.
func readSQLite(ctx context.Context, q *sql.Tx) (sqliteSchema, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s := sqliteSchema{}
	for _, n := range names {
		rows, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", n)
		if err != nil {
			return nil, err
		}
		cols := []string{}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return nil, err
			}
			cols = append(cols, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		s[n] = cols
	}
	return s, nil
}

func (s sqliteSchema) has(table, column string) bool {
	return slices.Contains(s[table], column)
}
