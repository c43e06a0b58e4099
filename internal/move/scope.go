package move

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// movedOrg is an organization the move copies: its key in the source and
// in the target (the same unless the target's keys took it), its id and
// its name.
type movedOrg struct {
	seq, newSeq int64
	id          uuid.UUID
	name        string
}

// scope reads the organizations to move and checks the target can take
// them: a whole installation only into a database without any
// organization, an organization only into one without it.
func (m *mover) scope(ctx context.Context) error {
	where, args := "seq <> 0", []any{} // 0: SQLite's internal organization of deleted rows' positions
	if m.o.Org != uuid.Nil {
		where, args = "id = ?", []any{m.o.Org[:]}
	}
	rows, err := m.src.QueryContext(ctx, "SELECT seq, id, name FROM organizations WHERE "+where+" ORDER BY seq", args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var o movedOrg
		var id []byte
		if err := rows.Scan(&o.seq, &id, &o.name); err != nil {
			return err
		}
		if o.id, err = uuid.FromBytes(id); err != nil {
			return err
		}
		o.newSeq = o.seq
		m.orgs = append(m.orgs, o)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if m.o.Org != uuid.Nil && len(m.orgs) == 0 {
		return fmt.Errorf("organization %s is not in %s: list the organizations with gatehouse org list --db %s", m.o.Org, m.o.From, m.o.From)
	}
	if err := m.tx.QueryRow(ctx, "SELECT count(*) FROM organizations").Scan(&m.targetOrgs); err != nil {
		return err
	}
	if m.o.Org == uuid.Nil {
		if m.targetOrgs > 0 {
			return fmt.Errorf("the target holds %d organizations: a whole installation moves only into a database without any; "+
				"move organizations one at a time with --org, or give an empty database", m.targetOrgs)
		}
		return nil
	}
	var name string
	err = m.tx.QueryRow(ctx, "SELECT name FROM organizations WHERE id = $1", m.o.Org).Scan(&name)
	if err == nil {
		return fmt.Errorf("organization %s is in the target already (as %q)", m.o.Org, name)
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return m.checkScoped()
}

// checkScoped refuses, for one organization's move, a copied table whose
// rows cannot be told by organization (no org column, no reference to a
// table with one): copied whole, it would carry every organization's
// rows. Only settings, the installation's, is copied whole; a table a
// later migration adds is caught here, not moved by mistake.
func (m *mover) checkScoped() error {
	for _, name := range m.plan.order {
		r, _ := ruleOf(name)
		if r.treat != Copied || name == "settings" {
			continue
		}
		if where, _ := m.sourceWhere(m.plan.pg.Tables[name]); where == "" {
			return fmt.Errorf("table %s has no organization to move one by: this release cannot move one organization of it", name)
		}
	}
	return nil
}

// sourceSeqs are the source keys of the moved organizations.
func (m *mover) sourceSeqs() []any {
	out := make([]any, len(m.orgs))
	for i, o := range m.orgs {
		out[i] = o.seq
	}
	return out
}

// targetSeqs are their keys in the target.
func (m *mover) targetSeqs() []int64 {
	out := make([]int64, len(m.orgs))
	for i, o := range m.orgs {
		out[i] = o.newSeq
	}
	return out
}

// orgParent is the table whose rows own a table's rows when it has no
// organization column itself (a webhook's deliveries), and the key it
// references.
func (m *mover) orgParent(t *pgTable) (col string, ref pgRef, ok bool) {
	for col, ref := range t.Refs {
		if p := m.plan.pg.Tables[ref.Table]; p != nil && p.column("org") != nil {
			return col, ref, true
		}
	}
	return "", pgRef{}, false
}

// sourceWhere is the condition that keeps the moved organizations' rows
// of a table in SQLite, and its arguments; "" for a table of the whole
// installation (settings). Rows of SQLite's internal organization 0
// are never moved: they keep the positions of deleted rows, which
// PostgreSQL never reuses.
func (m *mover) sourceWhere(t *pgTable) (string, []any) {
	if m.whole() {
		switch {
		case t.Name == "organizations":
			return "seq <> 0", nil
		case t.column("org") != nil:
			return "(org IS NULL OR org <> 0)", nil // the audit log's entries of no organization too
		}
		return "", nil
	}
	seqs := m.sourceSeqs()
	in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(seqs)), ", ") + ")"
	switch {
	case t.Name == "organizations":
		return "seq IN " + in, seqs
	case t.column("org") != nil:
		return "org IN " + in, seqs
	}
	if col, ref, ok := m.orgParent(t); ok {
		return fmt.Sprintf("%s IN (SELECT %s FROM %s WHERE org IN %s)", col, ref.Column, ref.Table, in), seqs
	}
	return "", nil
}

// targetWhere is the same condition in the target, with the keys the
// organizations have there ($1); "" in a whole installation's move, whose
// target held no organization's rows.
func (m *mover) targetWhere(t *pgTable) (string, []any) {
	if m.whole() {
		return "", nil
	}
	seqs := []any{m.targetSeqs()}
	switch {
	case t.Name == "organizations":
		return "seq = ANY($1)", seqs
	case t.column("org") != nil:
		return "org = ANY($1)", seqs
	}
	if col, ref, ok := m.orgParent(t); ok {
		return fmt.Sprintf("%s IN (SELECT %s FROM %s WHERE org = ANY($1))", col, ref.Column, ref.Table), seqs
	}
	return "", nil
}

// countSource counts the rows of a SQLite table the move reads.
func (m *mover) countSource(ctx context.Context, table, where string, args []any) (int64, error) {
	q := "SELECT count(*) FROM " + table
	if where != "" {
		q += " WHERE " + where
	}
	var n int64
	err := m.src.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// countTarget counts the moved organizations' rows of a target table.
func (m *mover) countTarget(ctx context.Context, t *pgTable) (int64, error) {
	where, args := m.targetWhere(t)
	q := "SELECT count(*) FROM " + pgx.Identifier{t.Name}.Sanitize()
	if where != "" {
		q += " WHERE " + where
	}
	var n int64
	err := m.tx.QueryRow(ctx, q, args...).Scan(&n)
	return n, err
}

// querySource reads the moved rows of a SQLite table, every column, in
// the order of ordered (the feed's, for events) when given.
func (m *mover) querySource(ctx context.Context, t *pgTable, ordered string) (*sql.Rows, row, error) {
	cols := m.plan.src[t.Name]
	r := row{cols: map[string]int{}}
	for i, c := range cols {
		r.cols[c] = i
	}
	q := "SELECT " + strings.Join(quoteAll(cols), ", ") + " FROM " + t.Name
	where, args := m.sourceWhere(t)
	if where != "" {
		q += " WHERE " + where
	}
	if ordered != "" {
		q += " ORDER BY " + ordered
	}
	rows, err := m.src.QueryContext(ctx, q, args...)
	r.vals = make([]any, len(cols))
	return rows, r, err
}

// quoteAll quotes SQLite column names (a column may be called "key").
func quoteAll(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = `"` + c + `"`
	}
	return out
}
