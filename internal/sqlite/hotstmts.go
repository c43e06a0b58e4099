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
	return db.withTx(ctx, func(tx *sql.Tx) error { return fn(hotTx{Tx: tx, stmts: stmts}) })
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
// prepared on the transaction's connection, so nothing is parsed again.
type hotTx struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
}

func (t hotTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st, ok := t.stmts[query]; ok {
		return t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t hotTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := t.stmts[query]; ok {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t hotTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := t.stmts[query]; ok {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}
