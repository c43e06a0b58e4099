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
// that changed a row on the way is found. A compacted table's rows are
// made from SQLite's converted ones by the move's query (compaction);
// events are read back through event_values too, and event_values is
// compared with the values the moved events name. Sealed columns are
// left out when the move sealed them again (the nonces differ), and
// users' proven, and the invitations the move made, when some arrived as
// invitations.
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
		st := staged(t, r)
		values, err := m.values(st, r)
		if err != nil {
			return err
		}
		scratch := "compare_" + name
		if r.compact != nil {
			err = m.createStage(ctx, scratch, st)
		} else {
			_, err = tx.Exec(ctx, "CREATE TEMPORARY TABLE "+scratch+" (LIKE "+pgx.Identifier{name}.Sanitize()+")")
		}
		if err != nil {
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
		for _, c := range st.Columns {
			names = append(names, c.Name)
		}
		for _, c := range t.Columns {
			_, sealed := r.sealed[c.Name]
			if sealed && rep.Secret == SecretResealed || name == "users" && (c.Name == "proven" || c.Name == "proven_at" || c.Name == "proven_by") && len(rep.Invitations) > 0 {
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
		if name == "invitations" && len(rep.Invitations) > 0 { // the move made theirs
			where += fmt.Sprintf(" AND user_id NOT IN (SELECT id FROM users WHERE email = ANY($%d))", len(args)+1)
			args = append(args, rep.Invitations)
		}
		list := strings.Join(cols, ", ")
		held := "SELECT " + list + " FROM " + pgx.Identifier{name}.Sanitize() + " WHERE " + where
		meant := "SELECT " + list + " FROM " + scratch
		if r.compact != nil {
			// The compacted rows as the move's query makes them from the
			// staged ones: an event's keys that name other values than
			// its own are missing, and in the target but not meant.
			meant = "SELECT " + list + " FROM (" + r.compact.query(t, scratch) + ") m"
		}
		type check struct{ table, what, sql string }
		checks := []check{{name, "missing from the target", meant + " EXCEPT ALL " + held},
			{name, "in the target but not meant", held + " EXCEPT ALL " + meant}}
		if r.compact == eventRows {
			// Read back through event_values and the codes' names, as
			// the store reads them, each event is SQLite's: what the
			// move's own query makes is not taken on trust.
			read := `SELECT e.seq, a.kind, a.value, l.kind, l.value, n.kind, n.value, n.value2,
					event_type_name(e.type), event_scope_name(e.scope), event_allowed(e.type)
				FROM (SELECT * FROM events WHERE ` + where + `) e
				JOIN event_values a ON a.org = e.org AND a.key = e.access_point
				JOIN event_values l ON l.org = e.org AND l.key = e.location
				JOIN event_values n ON n.org = e.org AND n.key = e.names`
			wide := `SELECT seq, 'a'::"char", access_point_id::text, 'l'::"char", location_id::text, 'n'::"char", access_point_name, location_name,
				type, scope, allowed FROM ` + scratch
			// event_values holds each value the moved events name, once,
			// and no other.
			values := "SELECT org, kind, value, value2 FROM event_values WHERE " + where
			places := fmt.Sprintf(eventPlaces, scratch)
			checks = append(checks, check{"events", "read otherwise through event_values", wide + " EXCEPT ALL " + read},
				check{"events", "read through event_values but not meant", read + " EXCEPT ALL " + wide},
				check{"event_values", "missing from the target", places + " EXCEPT ALL " + values},
				check{"event_values", "in the target but not meant", values + " EXCEPT ALL (" + places + ")"})
		}
		for _, q := range checks {
			var n int64
			var sample *string
			err := tx.QueryRow(ctx, "SELECT count(*), min(d::text) FROM ("+q.sql+") d", args...).Scan(&n, &sample)
			if err != nil {
				return fmt.Errorf("%s: %w", q.table, err)
			}
			if n > 0 {
				problems = append(problems, fmt.Sprintf("%s: %d rows %s, such as %s", q.table, n, q.what, *sample))
			}
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
