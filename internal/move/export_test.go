package move

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Compare checks, table by table, that the target holds exactly the rows
// the move meant to write: each copied table's rows of the moved
// organizations are converted again by the move's own conversion into a
// scratch table of the target, and compared both ways (EXCEPT ALL) with
// the rows the target holds, so that a trigger, a default or an identity
// that changed a row on the way is found. Sealed columns are left out
// when the move sealed them again (the nonces differ), and users' proven
// when some arrived as invitations.
func Compare(ctx context.Context, from, to string, rep *Report) error {
	db, err := sql.Open("sqlite", "file:"+from+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	src, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer src.Rollback()
	conn, err := pgx.Connect(ctx, to)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	pg, err := readPG(ctx, tx)
	if err != nil {
		return err
	}
	schema, err := readSQLite(ctx, src)
	if err != nil {
		return err
	}
	p, err := makePlan(pg, schema)
	if err != nil {
		return err
	}
	m := &mover{o: Options{From: from, To: to, Org: rep.org}, src: src, tx: tx, plan: p, orgs: rep.moved, shifts: rep.shifts, rep: &Report{}}
	var problems []string
	for _, name := range p.order {
		r, _ := ruleOf(name)
		if r.treat != Copied || name == "settings" && rep.Secret != SecretTaken {
			continue
		}
		t := pg.Tables[name]
		values, err := m.values(t, r)
		if err != nil {
			return err
		}
		scratch := "compare_" + name
		if _, err := tx.Exec(ctx, "CREATE TEMPORARY TABLE "+scratch+" (LIKE "+pgx.Identifier{name}.Sanitize()+")"); err != nil {
			return err
		}
		read, row, err := m.querySource(ctx, t, "")
		if err != nil {
			return err
		}
		b := &batch{rows: read, r: row, values: values, out: make([]any, len(values)), scan: make([]any, len(row.vals))}
		for i := range b.scan {
			b.scan[i] = &row.vals[i]
		}
		var names, cols []string
		for _, c := range t.Columns {
			names = append(names, c.Name)
			_, sealed := r.sealed[c.Name]
			if sealed && rep.Secret == SecretResealed || name == "users" && c.Name == "proven" && len(rep.Invitations) > 0 {
				continue
			}
			cols = append(cols, pgx.Identifier{c.Name}.Sanitize())
		}
		for !b.done {
			b.n = 0
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{scratch}, names, b); err != nil {
				read.Close()
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		read.Close()
		where, args := m.targetWhere(t)
		if where == "" {
			where = "true"
		}
		list := strings.Join(cols, ", ")
		held := "SELECT " + list + " FROM " + pgx.Identifier{name}.Sanitize() + " WHERE " + where
		meant := "SELECT " + list + " FROM " + scratch
		for _, q := range []struct{ what, sql string }{{"missing from the target", meant + " EXCEPT ALL " + held},
			{"in the target but not meant", held + " EXCEPT ALL " + meant}} {
			var n int64
			var sample *string
			err := tx.QueryRow(ctx, "SELECT count(*), min(d::text) FROM ("+q.sql+") d", args...).Scan(&n, &sample)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if n > 0 {
				problems = append(problems, fmt.Sprintf("%s: %d rows %s, such as %s", name, n, q.what, *sample))
			}
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
