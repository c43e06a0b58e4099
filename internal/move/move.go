// Package move copies a Gatehouse installation, or one organization of
// it, from a SQLite file into a PostgreSQL database whose schema is at the
// same version: every table is copied, derived, rebuilt by PostgreSQL or
// skipped for a stated reason (tables), in one transaction, so that a
// move that fails leaves the target as it was.
//
// It reads and writes both databases directly, beside the stores: the
// caller (internal/app's Move) checks the source's schema and migrates the
// target through the stores first, and folds the player rollup after.
package move

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // the driver of the source
)

// Options are what to move, from where to where.
type Options struct {
	From string    // the SQLite file
	To   string    // the PostgreSQL database: a postgres:// URL
	Org  uuid.UUID // one organization; uuid.Nil: the whole installation
	// Progress hears of each batch copied; nil: nothing.
	Progress func(Progress)
	// Now is the clock the source's leases are read against; nil: time.Now.
	Now func() time.Time
}

// Progress is how far the copy of a table is.
type Progress struct {
	Table       string
	Done, Total int64
	Elapsed     time.Duration
}

// Report says what a move did.
type Report struct {
	Organizations []Organization `json:"organizations"`
	Tables        []TableCount   `json:"tables"`
	// Secret is what became of the service secret: SecretTaken,
	// SecretSame or SecretResealed; Resealed counts the secrets sealed
	// again under the target's.
	Secret   string `json:"secret"`
	Resealed int    `json:"resealed"`
	// Invitations are the moved users who arrive as invitations, their
	// email being held by a user of another organization of the target.
	Invitations []string `json:"invitations"`
	// Renumbered lists the keys the moved rows could not keep, the target
	// holding rows with some of them, and what they were shifted by.
	Renumbered []string      `json:"renumbered"`
	Elapsed    time.Duration `json:"-"`

	org    uuid.UUID        // Options.Org
	moved  []movedOrg       // for Finish
	shifts map[string]int64 // the move's renumbering, for its tests
}

// Organization is a moved organization.
type Organization struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

// TableCount is a table's rows in the source and in the target: those of
// the moved organizations (every row of a whole installation). Source is
// nil for a table SQLite does not have, Target for one the move leaves.
type TableCount struct {
	Table     string    `json:"table"`
	Treatment Treatment `json:"treatment"`
	Source    *int64    `json:"source"`
	Target    *int64    `json:"target"`
	Why       string    `json:"why,omitempty"`
}

func rows(n int64) *int64 { return &n }

// mover is one move in progress.
type mover struct {
	o          Options
	src        *sql.Tx
	tx         pgx.Tx
	plan       *plan
	orgs       []movedOrg
	targetOrgs int64
	shifts     map[string]int64 // "table.column" of a key → what the moved keys are shifted by
	reseal     *resealer        // nil: sealed values are copied as they are
	rep        *Report
}

func (m *mover) whole() bool { return m.o.Org == uuid.Nil }

func (m *mover) progress(p Progress) {
	if m.o.Progress != nil {
		m.o.Progress(p)
	}
}

// Copy moves the rows in one transaction of the target, reading the
// source in one transaction that holds its write lock throughout, so
// that nothing can be written to it that the move would miss. The
// target's schema must already be the source's (Move migrates it).
func Copy(ctx context.Context, o Options) (*Report, error) {
	started := time.Now()
	if o.Now == nil {
		o.Now = time.Now
	}
	m := &mover{o: o, shifts: map[string]int64{}, rep: &Report{Invitations: []string{}, Renumbered: []string{}}}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("_txlock", "immediate")
	q.Set("mode", "rw") // never created: a missing file is an error
	// Escaped: a "?mode=rwc" in the path would create a missing file.
	db, err := sql.Open("sqlite", sqlite.URI(o.From, q))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if m.src, err = db.BeginTx(ctx, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", o.From, err)
	}
	defer m.src.Rollback() // nothing is written to the source
	conn, err := connect(ctx, o.To)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if m.tx, err = conn.Begin(ctx); err != nil {
		return nil, err
	}
	defer m.tx.Rollback(context.WithoutCancel(ctx))
	if err := m.run(ctx); err != nil {
		return nil, fmt.Errorf("%w (nothing was moved: the target is as it was)", err)
	}
	if err := m.tx.Commit(ctx); err != nil {
		return nil, err
	}
	m.rep.Elapsed = time.Since(started)
	m.rep.org, m.rep.moved, m.rep.shifts = o.Org, m.orgs, m.shifts
	return m.rep, nil
}

// Finish counts the rows PostgreSQL rebuilt, once the caller has folded
// the player rollup, and gathers the planner statistics of every table
// the move wrote, so that the first queries on them plan for their rows.
func Finish(ctx context.Context, to string, rep *Report) error {
	conn, err := connect(ctx, to)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	pg, err := readPG(ctx, tx)
	if err != nil {
		return err
	}
	m := &mover{o: Options{To: to, Org: rep.org}, tx: tx, plan: &plan{pg: pg}, orgs: rep.moved}
	var written []string
	for i, c := range rep.Tables {
		t := pg.Tables[c.Table]
		if t == nil || c.Treatment == Skipped {
			continue
		}
		written = append(written, pgx.Identifier{c.Table}.Sanitize())
		if c.Treatment == Rebuilt {
			n, err := m.countTarget(ctx, t)
			if err != nil {
				return err
			}
			rep.Tables[i].Target = rows(n)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "ANALYZE "+strings.Join(written, ", "))
	return err
}

// connect opens one connection to the target, for as long as the move
// takes: the URL's pool settings (pool_max_conns…, which the instances
// read) are left out, and so is any statement timeout.
func connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["statement_timeout"] = "0"
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	return pgx.ConnectConfig(ctx, cfg.ConnConfig)
}

func (m *mover) run(ctx context.Context) error {
	// Indexes built again take memory to be quick; organizations are
	// created nowhere else meanwhile.
	for _, s := range []string{"SET LOCAL maintenance_work_mem = '256MB'", "LOCK TABLE organizations IN SHARE ROW EXCLUSIVE MODE"} {
		if _, err := m.tx.Exec(ctx, s); err != nil {
			return err
		}
	}
	pg, err := readPG(ctx, m.tx)
	if err != nil {
		return err
	}
	src, err := readSQLite(ctx, m.src)
	if err != nil {
		return err
	}
	if m.plan, err = makePlan(pg, src); err != nil {
		return err
	}
	if err := m.checkSource(ctx); err != nil {
		return err
	}
	if err := m.checkTarget(ctx); err != nil {
		return err
	}
	if err := m.scope(ctx); err != nil {
		return err
	}
	if err := m.secrets(ctx); err != nil {
		return err
	}
	if err := m.renumber(ctx); err != nil {
		return err
	}
	for _, o := range m.orgs {
		m.rep.Organizations = append(m.rep.Organizations, Organization{ID: o.id, Name: o.name})
	}
	for _, name := range m.plan.order {
		count, err := m.table(ctx, name)
		if err != nil {
			return err
		}
		m.rep.Tables = append(m.rep.Tables, count)
		if name == "users" {
			if err := m.demoteUsers(ctx); err != nil {
				return err
			}
		}
	}
	for name := range src {
		if _, ok := pg.Tables[name]; !ok {
			r, _ := ruleOf(name)
			n, err := m.countSource(ctx, `"`+name+`"`, "", nil)
			if err != nil {
				return err
			}
			m.rep.Tables = append(m.rep.Tables, TableCount{Table: name, Treatment: r.treat, Source: rows(n), Why: r.why})
		}
	}
	slices.SortFunc(m.rep.Tables, func(a, b TableCount) int {
		if d := treatOrder(a.Treatment) - treatOrder(b.Treatment); d != 0 {
			return d
		}
		return strings.Compare(a.Table, b.Table)
	})
	return m.advanceSequences(ctx)
}

func treatOrder(t Treatment) int {
	return slices.Index([]Treatment{Copied, Derived, Rebuilt, Skipped}, t)
}

// table moves one table of the target's schema as its rule says.
func (m *mover) table(ctx context.Context, name string) (TableCount, error) {
	r, _ := ruleOf(name)
	t := m.plan.pg.Tables[name]
	switch {
	case name == "settings" && m.rep.Secret != SecretTaken:
		return TableCount{Table: name, Treatment: Skipped, Why: "the target keeps its own service secret"}, nil
	case name == "settings":
		if _, err := m.tx.Exec(ctx, "DELETE FROM settings"); err != nil {
			return TableCount{}, err
		}
		return m.copyTable(ctx, t, r)
	case name == "events" && t.Partitioned:
		if err := m.addMonths(ctx); err != nil {
			return TableCount{}, err
		}
		return m.copyTable(ctx, t, r)
	case r.treat == Copied:
		return m.copyTable(ctx, t, r)
	case name == "command_delivery_counts":
		return m.deliveryCounts(ctx, t)
	case name == "recent_event_ids":
		return m.recentIDs(ctx, r)
	case name == "event_values":
		return m.eventValues(ctx, t, r)
	case name == "feed_cursor_ceiling":
		return m.ceiling(ctx, r)
	}
	count := TableCount{Table: name, Treatment: r.treat, Why: r.why}
	if _, ok := m.plan.src[name]; ok {
		where, args := m.sourceWhere(t)
		n, err := m.countSource(ctx, name, where, args)
		count.Source = rows(n)
		return count, err
	}
	return count, nil
}

// ceiling sets the feed_cursor_ceiling of a target that holds no
// organization to the feed's start: every moved event is at (0, seq),
// below any transaction's ceiling, so a cursor of the first form (anyone
// can write one) would otherwise compare moved positions, which count
// every organization's events. Cursors of that form, handed out before
// cursors were sealed, read again from the start. A database in use
// keeps its own, for its other organizations: a moved one has the same
// ceiling of its own (organizations.cursor_ceiling, tables).
func (m *mover) ceiling(ctx context.Context, r rule) (TableCount, error) {
	count := TableCount{Table: "feed_cursor_ceiling", Treatment: Derived, Why: r.why}
	if m.targetOrgs > 0 {
		count.Treatment, count.Why = Skipped, "the target's own, for its other organizations"
		return count, nil
	}
	tag, err := m.tx.Exec(ctx, "UPDATE feed_cursor_ceiling SET xid = '0'")
	count.Source, count.Target = rows(1), rows(tag.RowsAffected())
	return count, err
}

// checkTarget refuses a target that a server serves: the moved rows keep
// (or are shifted to) keys the target's sequences would hand out, and
// they are advanced past them only as the move commits, so a write of
// another organization meanwhile could take one of them and fail, or
// fail the move. The target's instances are stopped for the move.
func (m *mover) checkTarget(ctx context.Context) error {
	var until time.Time
	err := m.tx.QueryRow(ctx, "SELECT until FROM leases WHERE name = 'commands.sweep'").Scan(&until)
	if err == nil && until.After(m.o.Now()) {
		return fmt.Errorf("the target is in use: a gatehouse serve held its lease commands.sweep until %s; stop every instance on it for the move, then start them again",
			until.UTC().Format(time.RFC3339))
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return nil
}

// checkSource refuses a source at another schema version than the
// target's, or that a server still serves.
func (m *mover) checkSource(ctx context.Context) error {
	var src, dst int
	if err := m.src.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&src); err != nil {
		return err
	}
	if err := m.tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&dst); err != nil {
		return err
	}
	switch {
	case src < dst:
		return fmt.Errorf("%s is at schema %d, this Gatehouse at %d: run gatehouse migrate --db %s first", m.o.From, src, dst, m.o.From)
	case src > dst:
		return fmt.Errorf("%s is at schema %d, newer than this Gatehouse's %d: move it with the release that migrated it", m.o.From, src, dst)
	}
	// Every serving instance renews this lease every second for 5.
	var until int64
	err := m.src.QueryRowContext(ctx, "SELECT until FROM leases WHERE name = 'commands.sweep'").Scan(&until)
	if err == nil && until > m.o.Now().UnixMilli() {
		return fmt.Errorf("%s is in use: a gatehouse serve held its lease commands.sweep until %s; stop every instance on it, then move it",
			m.o.From, time.UnixMilli(until).UTC().Format(time.RFC3339))
	}
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	return nil
}
