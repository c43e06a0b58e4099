package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// readPool is the read connections, with the statements they have
// prepared. Queries come in a bounded number of shapes (one per
// combination of filters, every value a placeholder), and parsing one
// costs about a fifth of a first page, so each shape is prepared once per
// connection and kept.
type readPool struct {
	*sql.DB
	mu    sync.RWMutex
	stmts map[string]*sql.Stmt
}

// maxStmts bounds the cache; shapes beyond it are parsed on each use.
const maxStmts = 1000

func (p *readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

func (p *readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.DB.QueryRowContext(ctx, query, args...)
}

// stmt returns the prepared statement for query, or nil when it cannot be
// prepared now (the plain query then reports why) or the cache is full.
// Every query looks here, so the common case takes only a read lock.
func (p *readPool) stmt(ctx context.Context, query string) *sql.Stmt {
	p.mu.RLock()
	st, ok := p.stmts[query]
	p.mu.RUnlock()
	if ok {
		return st
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts[query]; ok {
		return st
	}
	if len(p.stmts) >= maxStmts {
		return nil
	}
	st, err := p.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if p.stmts == nil {
		p.stmts = make(map[string]*sql.Stmt)
	}
	p.stmts[query] = st
	return st
}

func (p *readPool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.stmts {
		st.Close()
	}
	p.stmts = nil
	return p.DB.Close()
}
