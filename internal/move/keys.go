package move

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// probeChunk is how many moved keys one COPY loads to be probed.
const probeChunk = 10_000

// renumber decides, for each key a copied table numbers its rows with
// (events.seq, webhooks.seq…), whether the moved rows keep theirs: they
// do unless the target holds a row with one of them, which only an
// organization moved into a database in use can meet. Then the moved
// keys are shifted past every key the target has, in the same order,
// and every column that references them with them (an event's position
// in a webhook's progress, a delivery's webhook). An event's key is its
// position in the feed: kept, a consumer's cursor reads on where it was.
func (m *mover) renumber(ctx context.Context) error {
	for _, name := range m.plan.order {
		r, _ := ruleOf(name)
		t := m.plan.pg.Tables[name]
		if r.treat != Copied {
			continue
		}
		for _, c := range t.Columns {
			if !c.Identity {
				continue
			}
			shift, err := m.keyShift(ctx, t, c.Name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if shift != 0 {
				m.shifts[name+"."+c.Name] = shift
				m.rep.Renumbered = append(m.rep.Renumbered, fmt.Sprintf("%s.%s +%d", name, c.Name, shift))
			}
		}
	}
	for i := range m.orgs {
		m.orgs[i].newSeq = m.orgs[i].seq + m.shifts["organizations.seq"]
	}
	return nil
}

// keyShift is what the moved rows' keys of t.col are shifted by: 0 when
// the target holds none of them.
func (m *mover) keyShift(ctx context.Context, t *pgTable, col string) (int64, error) {
	ident := pgx.Identifier{t.Name}.Sanitize()
	var some bool
	if err := m.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+ident+")").Scan(&some); err != nil || !some {
		return 0, err
	}
	q := "SELECT " + col + " FROM " + t.Name
	where, args := m.sourceWhere(t)
	if where != "" {
		q += " WHERE " + where
	}
	rows, err := m.src.QueryContext(ctx, q+" ORDER BY "+col, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	// The moved keys go into a temporary table, joined with the target's
	// once: a key without an index of its own (events.seq, since events
	// are partitioned) is then one scan, not one a chunk of keys.
	keys := "move_keys_" + t.Name + "_" + col
	if _, err := m.tx.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{keys}.Sanitize()+"; CREATE TEMPORARY TABLE "+
		pgx.Identifier{keys}.Sanitize()+" (k bigint) ON COMMIT DROP"); err != nil {
		return 0, err
	}
	chunk := make([][]any, 0, probeChunk)
	load := func() error {
		if len(chunk) == 0 {
			return nil
		}
		_, err := m.tx.CopyFrom(ctx, pgx.Identifier{keys}, []string{"k"}, pgx.CopyFromRows(chunk))
		chunk = chunk[:0]
		return err
	}
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return 0, err
		}
		if chunk = append(chunk, []any{k}); len(chunk) == probeChunk {
			if err := load(); err != nil {
				return 0, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := load(); err != nil {
		return 0, err
	}
	var taken bool
	if _, err := m.tx.Exec(ctx, "ANALYZE "+pgx.Identifier{keys}.Sanitize()); err != nil {
		return 0, err
	}
	err = m.tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+ident+" t JOIN "+pgx.Identifier{keys}.Sanitize()+" k ON t."+
		pgx.Identifier{col}.Sanitize()+" = k.k)").Scan(&taken)
	if err != nil || !taken {
		return 0, err
	}
	var top int64
	err = m.tx.QueryRow(ctx, "SELECT greatest((SELECT coalesce(max("+col+"), 0) FROM "+ident+
		"), (SELECT coalesce(last_value, 0) FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = $1))",
		t.Seqs[col]).Scan(&top)
	return top, err
}

// shift is what a column's values are shifted by: those of the key it is
// (or references, or is a position in).
func (m *mover) shift(t *pgTable, col string) int64 {
	switch ref, ok := t.Refs[col]; {
	case col == "org" && t.Name != "organizations":
		return m.shifts["organizations.seq"]
	case ok:
		return m.shifts[ref.Table+"."+ref.Column]
	}
	return m.shifts[t.Name+"."+col]
}

// advanceSequences sets every sequence that numbers a column of a moved
// table past the largest value the column holds, so that the rows
// PostgreSQL numbers after the move never take a moved row's.
func (m *mover) advanceSequences(ctx context.Context) error {
	for _, name := range m.plan.order {
		r, _ := ruleOf(name)
		if r.treat != Copied && r.treat != Derived {
			continue
		}
		t := m.plan.pg.Tables[name]
		seqs := map[string]string{}
		for col, s := range t.Seqs {
			seqs[col] = s
		}
		for s, c := range triggerSequences {
			if c.Table == name {
				seqs[c.Column] = s
			}
		}
		for col, s := range seqs {
			var top, last *int64
			err := m.tx.QueryRow(ctx, "SELECT (SELECT max("+pgx.Identifier{col}.Sanitize()+") FROM "+pgx.Identifier{name}.Sanitize()+
				"), (SELECT last_value FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = $1)", s).Scan(&top, &last)
			if err != nil {
				return fmt.Errorf("sequence %s: %w", s, err)
			}
			if top == nil || last != nil && *last >= *top {
				continue
			}
			if _, err := m.tx.Exec(ctx, "SELECT setval(quote_ident($1)::regclass, $2)", s, *top); err != nil {
				return fmt.Errorf("sequence %s: %w", s, err)
			}
		}
	}
	return nil
}
