package move

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/jackc/pgx/v5"
)

// batchRows is how many rows one COPY writes: the unit of progress, and
// of the work the events' triggers do at once.
const batchRows = 50_000

// columnValue is how one PostgreSQL column's value is made from a
// source row.
type columnValue func(row) (any, error)

// values builds the value of each column of a copied table (of its
// stage, for a compacted one: staged) from a row of its SQLite table (see
// rule.cols, converter, renumber, sealed).
func (m *mover) values(t *pgTable, r rule) ([]columnValue, error) {
	out := make([]columnValue, 0, len(t.Columns))
	for _, c := range t.Columns {
		conv, err := converter(c)
		if err != nil {
			return nil, err
		}
		from, position := c.Name, false
		if s, ok := r.cols[c.Name]; ok {
			from, position = s.from, s.positionOf != ""
		} else if !m.plan.src.has(t.Name, c.Name) {
			from = "" // xid8: the zero transaction of SQLite's positions
		}
		shift := m.shift(t, c.Name)
		if position {
			shift = m.shifts[r.cols[c.Name].positionOf+".seq"]
		}
		var v columnValue
		switch {
		case from == "":
			v = func(row) (any, error) { return conv(int64(0)) }
		case shift != 0:
			v = func(row row) (any, error) {
				n, err := row.int(from)
				switch {
				case err != nil || row.get(from) == nil:
					return nil, err
				case position && n == 0: // the start of the feed stays its start
					return conv(n)
				}
				return conv(n + shift)
			}
		default:
			v = func(row row) (any, error) { return conv(row.get(from)) }
		}
		if label, ok := r.sealed[c.Name]; ok {
			v = m.sealedColumn(t.Name, c.Name, label, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// copyTable copies the moved rows of a table in batches of COPY, and
// checks that the target holds as many more rows as it read.
func (m *mover) copyTable(ctx context.Context, t *pgTable, r rule) (TableCount, error) {
	count := TableCount{Table: t.Name, Treatment: Copied}
	st := staged(t, r)
	values, err := m.values(st, r)
	if err != nil {
		return count, err
	}
	where, args := m.sourceWhere(t)
	total, err := m.countSource(ctx, t.Name, where, args)
	if err != nil {
		return count, err
	}
	count.Source = rows(total)
	before, err := m.countTarget(ctx, t)
	if err != nil {
		return count, err
	}
	read, src, err := m.querySource(ctx, t, identity(t)) // in key order: the feed's, for events
	if err != nil {
		return count, err
	}
	defer read.Close()
	names := make([]string, len(st.Columns))
	for i, c := range st.Columns {
		names[i] = c.Name
	}
	rebuild, err := m.deferIndexes(ctx, t, before)
	if err != nil {
		return count, err
	}
	into := t.Name
	if t.Before || r.compact != nil {
		if into, err = m.stage(ctx, t, r); err != nil {
			return count, err
		}
	}
	b := &batch{rows: read, r: src, values: values, out: make([]any, len(values))}
	b.scan = make([]any, len(src.vals))
	for i := range b.scan {
		b.scan[i] = &src.vals[i]
	}
	started := time.Now()
	var done int64
	for !b.done {
		b.n = 0
		n, err := m.tx.CopyFrom(ctx, pgx.Identifier{into}, names, b)
		if err == nil {
			err = b.err
		}
		switch {
		case err == nil && r.compact != nil:
			err = m.compact(ctx, t, r.compact, into, n)
		case err == nil && t.Before:
			err = m.unstage(ctx, t, into)
		}
		if err != nil {
			return count, fmt.Errorf("%s, after %d of %d rows: %w", t.Name, done, total, err)
		}
		done += n
		if n > 0 {
			m.progress(Progress{Table: t.Name, Done: done, Total: total, Elapsed: time.Since(started)})
		}
	}
	for _, def := range rebuild {
		if _, err := m.tx.Exec(ctx, def); err != nil {
			return count, fmt.Errorf("%s: building an index again: %w", t.Name, err)
		}
	}
	after, err := m.countTarget(ctx, t)
	if err != nil {
		return count, err
	}
	count.Target = rows(after - before)
	if after-before != done || done != total {
		return count, fmt.Errorf("%s: read %d rows of %d, and the target holds %d more", t.Name, done, total, after-before)
	}
	return count, nil
}

// deferIndexes drops the indexes of a table that a constraint does not
// need, when the target holds no organization and the table no row, and
// returns the statements that build them again once it is copied: an
// index built once over a million rows takes a fraction of the time of
// a million inserts into it (the search terms' trigram index most). In
// a database in use the indexes stay: dropping one locks its table
// against every instance until the move commits.
func (m *mover) deferIndexes(ctx context.Context, t *pgTable, rows int64) ([]string, error) {
	if m.targetOrgs > 0 || rows > 0 {
		return nil, nil
	}
	var some bool
	if err := m.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+pgx.Identifier{t.Name}.Sanitize()+")").Scan(&some); err != nil || some {
		return nil, err
	}
	q, _ := m.tx.Query(ctx, `SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename = $1
		AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
		ORDER BY 1`, t.Name)
	var name, def string
	var drop, defs []string
	if _, err := pgx.ForEachRow(q, []any{&name, &def}, func() error {
		// A partitioned table's index reads "ON ONLY events", which
		// would make it again without its partitions' indexes.
		def = strings.Replace(def, " ON ONLY ", " ON ", 1)
		drop, defs = append(drop, pgx.Identifier{name}.Sanitize()), append(defs, def)
		return nil
	}); err != nil || len(drop) == 0 {
		return nil, err
	}
	_, err := m.tx.Exec(ctx, "DROP INDEX "+strings.Join(drop, ", "))
	return defs, err
}

// batch feeds one COPY with at most batchRows rows of the source, and
// says when the source has none left.
type batch struct {
	rows   *sql.Rows
	r      row
	scan   []any
	values []columnValue
	out    []any
	n      int
	done   bool
	err    error
}

func (b *batch) Next() bool {
	if b.n == batchRows || b.done {
		return false
	}
	if !b.rows.Next() {
		b.done, b.err = true, b.rows.Err()
		return false
	}
	if b.err = b.rows.Scan(b.scan...); b.err != nil {
		b.done = true
		return false
	}
	b.n++
	return true
}

func (b *batch) Values() ([]any, error) {
	for i, v := range b.values {
		var err error
		if b.out[i], err = v(b.r); err != nil {
			return nil, err
		}
	}
	return b.out, nil
}

func (b *batch) Err() error { return b.err }

// stage makes the temporary table a table is copied through when a COPY
// cannot write its rows as they are. A compacted table's rows are made
// from the stage's by a query (compaction). A table with a BEFORE INSERT
// trigger has a stage of its own columns: the trigger may change what a
// row inserts (the commands' change positions, which it numbers), so the
// rows are copied into the stage, inserted from it, and their columns
// then set again to what the stage holds.
func (m *mover) stage(ctx context.Context, t *pgTable, r rule) (string, error) {
	name := "move_stage_" + t.Name
	if r.compact != nil {
		return name, m.createStage(ctx, name, staged(t, r))
	}
	if len(t.Key) == 0 {
		return "", fmt.Errorf("%s has a trigger that changes inserted rows and no primary key to set them again by", t.Name)
	}
	_, err := m.tx.Exec(ctx, "CREATE TEMPORARY TABLE "+pgx.Identifier{name}.Sanitize()+" (LIKE "+pgx.Identifier{t.Name}.Sanitize()+") ON COMMIT DROP")
	return name, err
}

// unstage inserts the staged rows into their table and sets their
// columns again to the staged values, then empties the stage.
func (m *mover) unstage(ctx context.Context, t *pgTable, stage string) error {
	var cols, set, from, on []string
	for _, c := range t.Columns {
		id := pgx.Identifier{c.Name}.Sanitize()
		cols = append(cols, id)
		if slices.Contains(t.Key, c.Name) {
			on = append(on, "t."+id+" = s."+id)
		} else {
			set = append(set, id)
			from = append(from, "s."+id)
		}
	}
	table, st := pgx.Identifier{t.Name}.Sanitize(), pgx.Identifier{stage}.Sanitize()
	list := strings.Join(cols, ", ")
	if _, err := m.tx.Exec(ctx, "INSERT INTO "+table+" ("+list+") OVERRIDING SYSTEM VALUE SELECT "+list+" FROM "+st); err != nil {
		return err
	}
	if len(set) > 0 {
		if _, err := m.tx.Exec(ctx, "UPDATE "+table+" t SET ("+strings.Join(set, ", ")+") = ROW("+strings.Join(from, ", ")+
			") FROM "+st+" s WHERE "+strings.Join(on, " AND ")); err != nil {
			return err
		}
	}
	_, err := m.tx.Exec(ctx, "TRUNCATE "+st)
	return err
}

// deliveryCounts writes command_delivery_counts from the counts SQLite
// keeps on each command: one row (shard 0) for each command any server
// took or answered. PostgreSQL adds the counts of a command's shards.
func (m *mover) deliveryCounts(ctx context.Context, t *pgTable) (TableCount, error) {
	count := TableCount{Table: t.Name, Treatment: Derived, Why: tables[t.Name].why}
	commands := m.plan.pg.Tables["commands"]
	where, args := m.sourceWhere(commands)
	if where != "" {
		where += " AND "
	}
	where += "targets_delivered + targets_joined + targets_executed + targets_failed > 0"
	src, err := m.src.QueryContext(ctx, "SELECT org, id, targets_delivered, targets_joined, targets_executed, targets_failed FROM commands WHERE "+where, args...)
	if err != nil {
		return count, err
	}
	defer src.Close()
	var out [][]any
	shift := m.shifts["organizations.seq"]
	for src.Next() {
		var org, delivered, joined, executed, failed int64
		var id []byte
		if err := src.Scan(&org, &id, &delivered, &joined, &executed, &failed); err != nil {
			return count, err
		}
		cid, err := toUUID(id)
		if err != nil {
			return count, err
		}
		out = append(out, []any{org + shift, cid, int16(0), delivered, joined, executed, failed})
	}
	if err := src.Err(); err != nil {
		return count, err
	}
	count.Source = rows(int64(len(out)))
	n, err := m.tx.CopyFrom(ctx, pgx.Identifier{t.Name}, []string{"org", "command_id", "shard", "delivered", "joined", "executed", "failed"}, pgx.CopyFromRows(out))
	count.Target = rows(n)
	return count, err
}

// recentIDs writes recent_event_ids from the moved events received in the
// last gatehouse.RecentIDsKept: what ingest there would have written.
// Its table comes after events (follows).
func (m *mover) recentIDs(ctx context.Context, r rule) (TableCount, error) {
	count := TableCount{Table: "recent_event_ids", Treatment: Derived, Why: r.why}
	where, args := m.targetWhere(m.plan.pg.Tables["events"])
	if where != "" {
		where += " AND "
	}
	args = append(args, time.Now().Add(-gatehouse.RecentIDsKept))
	tag, err := m.tx.Exec(ctx, `INSERT INTO recent_event_ids (org, id, received_at)
		SELECT org, id, received_at FROM events WHERE `+where+`received_at >= $`+strconv.Itoa(len(args))+`
		ON CONFLICT DO NOTHING`, args...)
	count.Target = rows(tag.RowsAffected())
	return count, err
}

// addMonths makes the partitions of the months the moved events occurred
// in (events_add_months): a target migrated before them holds none of the
// months before its migration but the legacy one's.
func (m *mover) addMonths(ctx context.Context) error {
	where, args := m.sourceWhere(m.plan.pg.Tables["events"])
	if where != "" {
		where = " WHERE " + where
	}
	// occurred_at: Unix milliseconds on SQLite.
	src, err := m.src.QueryContext(ctx, "SELECT DISTINCT occurred_at / 86400000 FROM events"+where, args...)
	if err != nil {
		return err
	}
	defer src.Close()
	var days []time.Time
	for src.Next() {
		var day int64
		if err := src.Scan(&day); err != nil {
			return err
		}
		days = append(days, time.UnixMilli(day*86400000).UTC())
	}
	if err := src.Err(); err != nil || len(days) == 0 {
		return err
	}
	_, err = m.tx.Exec(ctx, "SELECT events_add_months($1)", days)
	return err
}
