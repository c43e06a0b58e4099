package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// hotStmts are the statements of hotQueries, prepared once on the write
// connection: the driver parses a query on every call otherwise, which
// costs the sync path about as much as running it. They are prepared
// outside any transaction (the one write connection is busy inside one)
// and then used read-only.
type hotStmts struct {
	mu    sync.Mutex                           // serializes prepare and close
	stmts atomic.Pointer[map[string]*sql.Stmt] // nil until prepared
}

// prepare prepares hotQueries on the write connection unless done. A
// failure (no schema yet) leaves them unprepared for the next call: the
// queries then run unprepared.
func (h *hotStmts) prepare(ctx context.Context, write *sql.DB) {
	if h.stmts.Load() != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stmts.Load() != nil {
		return
	}
	m := make(map[string]*sql.Stmt, len(hotQueries))
	for _, q := range hotQueries {
		st, err := write.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range m {
				st.Close()
			}
			return
		}
		m[q] = st
	}
	h.stmts.Store(&m)
}

func (h *hotStmts) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := h.stmts.Swap(nil); m != nil {
		for _, st := range *m {
			st.Close()
		}
	}
}

// withHotTx is withTx for the sync path: fn's queries that are among
// hotQueries run as the statements prepared on the write connection.
func (db *DB) withHotTx(ctx context.Context, fn func(querier) error) error {
	stmts := db.hotStatements(ctx)
	return db.withTx(ctx, func(tx *sql.Tx) error { return fn(newHotTx(tx, stmts)) })
}

// hotStatements returns hotQueries prepared on the write connection, or
// nil when they cannot be yet.
func (db *DB) hotStatements(ctx context.Context) map[string]*sql.Stmt {
	db.hot.prepare(ctx, db.write)
	if m := db.hot.stmts.Load(); m != nil {
		return *m
	}
	return nil
}

// hotTx is a write transaction that runs the prepared statements of its
// queries when it has them. Tx.StmtContext finds the statement already
// prepared on the transaction's connection, so nothing is parsed again;
// its result is kept for the transaction's life (bound), since every
// call makes a statement the transaction holds until it ends (an import
// runs 50,000 inserts in one).
type hotTx struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
	bound map[string]*sql.Stmt
}

func newHotTx(tx *sql.Tx, stmts map[string]*sql.Stmt) hotTx {
	return hotTx{Tx: tx, stmts: stmts, bound: make(map[string]*sql.Stmt, len(stmts))}
}

// stmt returns query's statement bound to the transaction, or nil when
// it is not among the prepared ones.
func (t hotTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := t.bound[query]; ok {
		return st
	}
	st, ok := t.stmts[query]
	if !ok {
		return nil
	}
	st = t.Tx.StmtContext(ctx, st)
	t.bound[query] = st
	return st
}

func (t hotTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t hotTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t hotTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
