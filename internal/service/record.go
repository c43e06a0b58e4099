package service

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// recorder stores the events of recorded decisions with group commit, and
// each caller returns once its own event is durable. The decisions of one
// organization that arrive while its transactions are being written wait
// for the next one and share it:
//   - concurrent decisions cost one transaction per round, not one each;
//   - none serializes behind another's commit alone.
type recorder struct {
	store gatehouse.Store
	// writers bounds the transactions one organization's decisions
	// keep in flight (StoreWriters).
	writers int
	mu      sync.Mutex
	orgs    map[uuid.UUID]*recordQueue
}

// recordQueue is one organization's: the batches waiting, and how many
// goroutines (drains) are writing them.
type recordQueue struct {
	waiting []*recordBatch
	drains  int
}

// storeWriters is how many transactions of recorded decisions store
// takes at once.
func storeWriters(store gatehouse.Store) int {
	if p, ok := storeAs[gatehouse.ParallelWriter](store); ok && p.Writers() > 1 {
		return p.Writers()
	}
	return 1
}

type recordBatch struct {
	events []gatehouse.NewEvent
	done   chan struct{}
	// errs holds, once done is closed, each event's outcome, by index.
	errs []error
}

// maxRecordBatch bounds the events of one transaction.
const maxRecordBatch = 1000

// record stores e and returns once it is stored (or failed). It waits for
// the write even when ctx ends: an event accepted is never half-taken.
func (r *recorder) record(ctx context.Context, orgID uuid.UUID, e gatehouse.NewEvent) error {
	r.mu.Lock()
	if r.orgs == nil {
		r.orgs = map[uuid.UUID]*recordQueue{}
	}
	q := r.orgs[orgID]
	if q == nil {
		q = &recordQueue{}
		r.orgs[orgID] = q
	}
	var b *recordBatch
	if n := len(q.waiting); n > 0 && len(q.waiting[n-1].events) < maxRecordBatch {
		b = q.waiting[n-1]
	} else {
		b = &recordBatch{done: make(chan struct{})}
		q.waiting = append(q.waiting, b)
	}
	i := len(b.events)
	b.events = append(b.events, e)
	start := q.drains < r.writers
	if start {
		q.drains++
	}
	r.mu.Unlock()
	if start {
		go r.drain(context.WithoutCancel(ctx), orgID, q)
	}
	<-b.done
	return b.errs[i]
}

// drain writes the organization's batches, oldest first, until none
// waits, then leaves.
func (r *recorder) drain(ctx context.Context, orgID uuid.UUID, q *recordQueue) {
	for {
		// Let the decisions already running reach the queue before a
		// batch is taken: on a busy instance the batch grows, and a
		// transaction's cost is shared by more events.
		runtime.Gosched()
		r.mu.Lock()
		if len(q.waiting) == 0 {
			if q.drains--; q.drains == 0 {
				delete(r.orgs, orgID)
			}
			r.mu.Unlock()
			return
		}
		b := q.waiting[0]
		q.waiting = q.waiting[1:]
		r.mu.Unlock()
		b.errs = r.write(ctx, orgID, b.events)
		close(b.done)
	}
}

// write stores one batch in one transaction and returns each event's
// outcome. A batch refused for what one of its events says is written
// again event by event, so that a bad event fails its own decision and no
// other.
func (r *recorder) write(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) []error {
	errs := make([]error, len(events))
	_, err := r.store.IngestEvents(ctx, orgID, events)
	if err != nil && len(events) > 1 && errors.Is(err, gatehouse.ErrInvalid) {
		for i := range events {
			_, errs[i] = r.store.IngestEvents(ctx, orgID, events[i:i+1])
		}
		return errs
	}
	for i := range errs {
		errs[i] = err
	}
	return errs
}
