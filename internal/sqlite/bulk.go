package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

var _ gatehouse.BulkIngester = (*DB)(nil)

// BeginBulkIngest implements gatehouse.BulkIngester: a transaction on the
// write connection that batches share. It holds the one writer until
// Commit or Rollback: other writes of this database wait for it (and a
// write of another process for up to its busy timeout). ctx is the
// transaction's: when it ends, the transaction is rolled back.
func (db *DB) BeginBulkIngest(ctx context.Context, orgID uuid.UUID) (_ gatehouse.BulkIngest, err error) {
	defer sqlstore.Label(&err, "Store.BeginBulkIngest", orgID)
	stmts := db.hotStatements(ctx)
	tx, since, err := db.beginWrite(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	b := &bulkIngest{db: db, tx: newHotTx(tx, stmts), since: since, written: map[sqlstore.Term]bool{}, widened: map[string]sqlstore.Span{}}
	if b.org, err = db.orgSeq(ctx, b.tx, orgID); err != nil {
		db.endWrite(tx, since)
		return nil, wrap(err)
	}
	return b, nil
}

type bulkIngest struct {
	db    *DB
	tx    hotTx
	since int64 // beginWrite's
	org   int64
	// written are the search terms the transaction wrote: known to the
	// batches after the one that wrote them, and to the instance (the
	// TermCache) once it commits.
	written map[sqlstore.Term]bool
	terms   []sqlstore.Term
	// widened are the server job spans the transaction wrote, as written.
	widened map[string]sqlstore.Span
	failed  error // a batch failed after writing: only Rollback is left
	done    bool
}

func (b *bulkIngest) IngestEvents(ctx context.Context, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	if b.failed != nil {
		return gatehouse.IngestResult{}, b.failed
	}
	// A batch is refused (an access point or requester not the
	// organization's) before it writes anything: the transaction goes on
	// as it was. A batch that fails once it writes leaves part of itself
	// in the transaction, which can then only be rolled back.
	places, err := resolvePlaces(ctx, b.tx, b.org, events)
	if err != nil {
		return gatehouse.IngestResult{}, wrap(err)
	}
	res, newTerms, newSpans, err := b.db.storeEvents(ctx, b.tx, b.org, events, places, b)
	if err != nil {
		b.failed = fmt.Errorf("an earlier batch of this transaction failed: %w", wrap(err))
		return gatehouse.IngestResult{}, wrap(err)
	}
	for _, t := range newTerms {
		b.written[t] = true
	}
	b.terms = append(b.terms, newTerms...)
	for _, s := range newSpans {
		if w, ok := b.widened[s.Job]; ok {
			s.Span = s.Union(w)
		}
		b.widened[s.Job] = s.Span
	}
	return res, nil
}

// missing is TermCache.Missing less the terms this transaction wrote.
func (b *bulkIngest) missing(org int64, terms []sqlstore.Term) []sqlstore.Term {
	return slices.DeleteFunc(b.db.terms.Missing(org, terms), func(t sqlstore.Term) bool { return b.written[t] })
}

// wider is SpanCache.Wider less the spans this transaction wrote.
func (b *bulkIngest) wider(org int64, spans []sqlstore.JobSpan) []sqlstore.JobSpan {
	return slices.DeleteFunc(b.db.spans.Wider(org, spans), func(s sqlstore.JobSpan) bool {
		w, ok := b.widened[s.Job]
		return ok && w.Covers(s.Span)
	})
}

func (b *bulkIngest) Commit() error {
	if b.failed != nil {
		b.Rollback()
		return b.failed
	}
	b.done = true
	if b.db.beforeIngestCommit != nil {
		b.db.beforeIngestCommit()
	}
	err := b.tx.Commit()
	b.db.endWrite(b.tx.Tx, b.since)
	if err != nil {
		return wrap(err)
	}
	b.db.commits.Add(1)
	b.db.terms.Add(b.org, b.terms)
	spans := make([]sqlstore.JobSpan, 0, len(b.widened))
	for job, s := range b.widened {
		spans = append(spans, sqlstore.JobSpan{Job: job, Span: s})
	}
	b.db.spans.Add(b.org, spans)
	return nil
}

func (b *bulkIngest) Rollback() {
	if !b.done {
		b.done = true
		b.db.endWrite(b.tx.Tx, b.since)
	}
}
