package service

import (
	"context"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// importCommitEvents is how many events an Import stores in one
// transaction, in batches of the caller's size: the caller holds one batch
// at a time while the store's transaction grows.
const importCommitEvents = 50_000

// Import is a bulk load of one organization's events, such as event
// import. It stores batches with [Import.IngestEvents], as
// [Service.IngestEvents] would, but commits them together,
// importCommitEvents at a time, where the store is faster that way
// ([gatehouse.BulkIngester]).
//   - Events are durable once [Import.Commit] returns, or the next commit
//     after them does.
//   - An Import ended without Commit stores nothing since the last.
//   - One Import is used by one goroutine at a time; a bulk loader that
//     writes in parallel ([Service.IngestWriters]) takes one each.
type Import struct {
	s           *Service
	orgID       uuid.UUID
	commitEvery int                  // importCommitEvents
	bulk        gatehouse.BulkIngest // the open transaction, nil between them
	pending     int                  // events stored in it
}

// BeginImport starts a bulk load of the organization's events.
func (s *Service) BeginImport(orgID uuid.UUID) *Import {
	return &Import{s: s, orgID: orgID, commitEvery: importCommitEvents}
}

// IngestEvents stores a batch, all or nothing, as [Service.IngestEvents]
// does, in the Import's transaction. Once that holds importCommitEvents
// events, it commits it and starts the next.
func (im *Import) IngestEvents(ctx context.Context, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	b, ok := storeAs[gatehouse.BulkIngester](im.s.store)
	if !ok {
		return im.s.IngestEvents(ctx, im.orgID, events)
	}
	if err := im.s.refuseExpired(ctx, im.orgID, events); err != nil {
		return gatehouse.IngestResult{}, err
	}
	if im.bulk == nil {
		bulk, err := b.BeginBulkIngest(ctx, im.orgID)
		if err != nil {
			return gatehouse.IngestResult{}, err
		}
		im.bulk = bulk
	}
	res, err := im.bulk.IngestEvents(ctx, events)
	if err != nil {
		return gatehouse.IngestResult{}, err
	}
	if im.pending += len(events); im.pending >= im.commitEvery {
		return res, im.Commit()
	}
	return res, nil
}

// Commit makes every event stored so far durable.
func (im *Import) Commit() error {
	if im.bulk == nil {
		return nil
	}
	err := im.bulk.Commit()
	im.bulk, im.pending = nil, 0
	return err
}

// Rollback ends the Import, dropping what was stored since the last
// commit.
func (im *Import) Rollback() {
	if im.bulk != nil {
		im.bulk.Rollback()
		im.bulk, im.pending = nil, 0
	}
}
