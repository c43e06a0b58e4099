package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// IngestEvents stores a batch of events in one transaction, all or nothing.
// Terms, spans and events go in that one transaction, where PostgreSQL
// stores the new terms and spans first in short transactions of their own
// (postgres/ingest.go): SQLite's one writer runs batches one after another
// anyway, so there is no wait between batches to shorten.
func (db *DB) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (_ gatehouse.IngestResult, err error) {
	defer sqlstore.Label(&err, "Store.IngestEvents", orgID)
	var (
		res      gatehouse.IngestResult
		org      int64
		newTerms []sqlstore.Term
		newSpans []sqlstore.JobSpan
	)
	// The statements are prepared once on the write connection (hotTx):
	// parsing them again in every transaction cost the small batches of
	// recorded decisions a fifth of their write.
	err = db.withHotTx(ctx, func(tx querier) (err error) {
		if org, err = db.orgSeq(ctx, tx, orgID); err != nil {
			return err
		}
		places, err := resolvePlaces(ctx, tx, org, events)
		if err != nil {
			return err
		}
		if res, newTerms, newSpans, err = db.storeEvents(ctx, tx, org, events, places, instanceKnown{db}); err != nil {
			return err
		}
		if db.beforeIngestCommit != nil {
			db.beforeIngestCommit()
		}
		return nil
	})
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	db.terms.Add(org, newTerms)
	db.spans.Add(org, newSpans)
	return res, nil
}

// known says which of a batch's search terms and server job spans a
// transaction must write: those not known to be stored.
type known interface {
	missing(org int64, terms []sqlstore.Term) []sqlstore.Term
	wider(org int64, spans []sqlstore.JobSpan) []sqlstore.JobSpan
}

// instanceKnown is what the instance knows: its caches.
type instanceKnown struct{ db *DB }

func (k instanceKnown) missing(org int64, terms []sqlstore.Term) []sqlstore.Term {
	return k.db.terms.Missing(org, terms)
}

func (k instanceKnown) wider(org int64, spans []sqlstore.JobSpan) []sqlstore.JobSpan {
	return k.db.spans.Wider(org, spans)
}

// storeEvents stores events at places (resolvePlaces) in tx and returns,
// besides what it stored, the search terms and job spans it wrote: those
// that k does not know to be stored. The caller makes them known once tx
// commits.
func (db *DB) storeEvents(ctx context.Context, tx querier, org int64, events []gatehouse.NewEvent, places map[uuid.UUID]sqlstore.Place,
	k known) (gatehouse.IngestResult, []sqlstore.Term, []sqlstore.JobSpan, error) {
	res := gatehouse.IngestResult{IDs: make([]uuid.UUID, len(events))}
	received := millis(db.Now())
	ins := eventInserter{tx: tx, noRollups: db.noRollups.Load()}
	var terms []sqlstore.Term
	for _, ev := range events {
		terms = sqlstore.AppendTerms(terms, ev, places[ev.AccessPointID])
	}
	// A term, and a job's span, are written in the transaction of the
	// first event they hold.
	newTerms := k.missing(org, terms)
	if err := ins.insertTerms(ctx, org, newTerms); err != nil {
		return res, nil, nil, err
	}
	newSpans := k.wider(org, sqlstore.JobSpans(events))
	if err := ins.upsertSpans(ctx, org, newSpans); err != nil {
		return res, nil, nil, err
	}
	for i, ev := range events {
		res.IDs[i] = ev.ID
		inserted, err := ins.insert(ctx, org, ev, places[ev.AccessPointID], received)
		if err != nil {
			return res, nil, nil, fmt.Errorf("event %d: %w", i, err)
		}
		if inserted {
			res.Accepted++
		} else {
			res.Duplicates++
		}
	}
	if err := ins.addInsights(ctx, org); err != nil {
		return res, nil, nil, err
	}
	return res, newTerms, newSpans, nil
}

// resolvePlaces looks up the access points and requesters of a batch in
// the organization, and reports every one that is not the organization's.
func resolvePlaces(ctx context.Context, tx querier, org int64, events []gatehouse.NewEvent) (map[uuid.UUID]sqlstore.Place, error) {
	apIDs, userIDs := sqlstore.References(events)
	places := make(map[uuid.UUID]sqlstore.Place, len(apIDs))
	for _, id := range apIDs {
		var p sqlstore.Place
		err := tx.QueryRowContext(ctx, placeOf, id[:], org).Scan(&p.LocationID, &p.LocationName, &p.AccessPointName)
		if err == nil {
			places[id] = p
		} else if err != sql.ErrNoRows {
			return nil, err
		}
	}
	users := make(map[uuid.UUID]bool, len(userIDs))
	for _, id := range userIDs {
		var n int
		if err := tx.QueryRowContext(ctx, userOf, id[:], org).Scan(&n); err != nil {
			return nil, err
		}
		users[id] = n > 0
	}
	return places, sqlstore.CheckReferences(events, places, users)
}

// The statements of ingest, among hotQueries.
const (
	placeOf = `SELECT l.id, l.name, a.name FROM access_points a
		JOIN locations l ON l.id = a.location_id WHERE a.id = ? AND a.org = ?`
	userOf      = "SELECT count(*) FROM users WHERE id = ? AND org = ?"
	insertEvent = `INSERT INTO events
		(org, id, type, occurred_at, received_at, allowed, reason, platform_user_id, server_job_id, scope,
		 location_id, location_name, access_point_id, access_point_name, requested_by, command_id, platform_user_name)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org, id) DO NOTHING`
	insertTerm = `INSERT INTO search_terms (org, field, ref, value, folded)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	// A job's span only widens: other instances and transactions widen
	// it too.
	upsertSpan = `INSERT INTO job_spans (org, job, from_at, to_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (org, job) DO UPDATE SET from_at = min(from_at, excluded.from_at), to_at = max(to_at, excluded.to_at)`
	// A command's status follows the event with the latest occurredAt, so a
	// replayed old event never moves it backwards. A command Gatehouse
	// issued (issued = 1) moves only by its own rules (acks, the sweep, a
	// cancel): what an event reports of it never changes it.
	upsertCommand = `INSERT INTO commands
		(org, id, access_point_id, scope, status, server_job_id, platform_user_id, issued_at, status_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org, id) DO UPDATE SET status = excluded.status, status_at = excluded.status_at
		WHERE excluded.status_at >= commands.status_at AND commands.issued = 0`
)

// eventInserter writes events in one transaction, and counts those it
// stored for the rollups: addInsights writes the counts, once the
// inserts are done.
type eventInserter struct {
	tx        querier
	counts    sqlstore.InsightDeltas
	noRollups bool // DB.noRollups
}

// insert stores one event unless its id is already stored, and reports
// whether it did.
func (ins *eventInserter) insert(ctx context.Context, org int64, ev gatehouse.NewEvent, p sqlstore.Place, received int64) (bool, error) {
	var commandID any
	if ev.Command != nil {
		commandID = ev.Command.ID[:]
	}
	r, err := ins.tx.ExecContext(ctx, insertEvent, org, ev.ID[:], string(ev.Type), millis(ev.OccurredAt), received,
		optString((*string)(ev.Allowed)), optString(ev.Reason), optString(ev.PlatformUserID), optString(ev.ServerJobID),
		optString((*string)(ev.Scope)), p.LocationID[:], p.LocationName, ev.AccessPointID[:], p.AccessPointName,
		optUUID(ev.RequestedBy), commandID, optString(ev.PlatformUserName))
	if err != nil {
		return false, err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return false, nil
	}
	ins.counts.Add(ev, p)
	if c := ev.Command; c != nil {
		if _, err := ins.tx.ExecContext(ctx, upsertCommand, org, c.ID[:], ev.AccessPointID[:], string(c.Scope), string(c.Status),
			optString(c.ServerJobID), optString(c.PlatformUserID), millis(c.IssuedAt), millis(ev.OccurredAt)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// insertTerms stores search terms unless stored already.
func (ins *eventInserter) insertTerms(ctx context.Context, org int64, terms []sqlstore.Term) error {
	for _, t := range terms {
		if _, err := ins.tx.ExecContext(ctx, insertTerm, org, int(t.Field), t.Ref[:], t.Value, t.Folded()); err != nil {
			return err
		}
	}
	return nil
}

// upsertSpans widens the stored spans of server jobs to hold spans.
func (ins *eventInserter) upsertSpans(ctx context.Context, org int64, spans []sqlstore.JobSpan) error {
	for _, s := range spans {
		if _, err := ins.tx.ExecContext(ctx, upsertSpan, org, s.Job, millis(s.From), millis(s.To)); err != nil {
			return err
		}
	}
	return nil
}
