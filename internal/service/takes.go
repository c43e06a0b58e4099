package service

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// How the takes of syncs woken together are gathered into one
// [gatehouse.CommandStore.TakeCommandsBatch]. The first sync of a universe
// to ask opens a batch, and the batch closes at the first of:
//   - no other sync has joined it for takeQuiet;
//   - takeGather after it opened;
//   - maxTakeBatch requests.
//
// A UNIVERSE unlock wakes every waiting sync of its universe at once: they
// take in a few batches instead of a transaction each, and the size
// follows how many woke. A lone sync waits takeQuiet more.
const (
	takeQuiet    = time.Millisecond
	takeGather   = 5 * time.Millisecond
	maxTakeBatch = 200
)

// takes are the open batches of this instance, one per organization and
// universe.
type takes struct {
	mu   sync.Mutex
	open map[takeKey]*takeBatch
}

type takeKey struct {
	org      uuid.UUID
	universe string
}

// takeBatch is one [gatehouse.CommandStore.TakeCommandsBatch]: its
// requests, and once done closes, its answers.
type takeBatch struct {
	reqs  []gatehouse.TakeRequest
	full  chan struct{}
	done  chan struct{}
	taken []gatehouse.Taken
	err   error
}

// take is [gatehouse.CommandStore.TakeCommands] through a batch of the
// syncs of the universe asking at the same time: the sync that opens a
// batch gathers it, runs it and hands every other its answer.
func (s *Service) take(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64) ([]gatehouse.Command, int64, error) {
	t, k := &s.takes, takeKey{orgID, universeID}
	t.mu.Lock()
	if t.open == nil {
		t.open = map[takeKey]*takeBatch{}
	}
	b := t.open[k]
	leader := b == nil
	if leader {
		b = &takeBatch{full: make(chan struct{}), done: make(chan struct{})}
		t.open[k] = b
	}
	i := len(b.reqs)
	b.reqs = append(b.reqs, gatehouse.TakeRequest{JobID: jobID, Cursor: cursor})
	if len(b.reqs) == maxTakeBatch {
		delete(t.open, k)
		close(b.full)
	}
	t.mu.Unlock()
	if leader {
		t.gather(k, b)
		// The batch answers every sync in it: it must not end when the
		// client of the one that runs it leaves, but keeps its deadline
		// (its wait is over: the query timeout is left).
		bctx := context.WithoutCancel(ctx)
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			bctx, cancel = context.WithDeadline(bctx, d)
			defer cancel()
		}
		b.taken, b.err = s.store.TakeCommandsBatch(bctx, orgID, universeID, b.reqs, s.Now())
		close(b.done)
	} else {
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
	if b.err != nil {
		return nil, 0, b.err
	}
	return b.taken[i].Commands, b.taken[i].Cursor, nil
}

// gather waits until b closes (see takeQuiet) and closes it to newcomers.
func (t *takes) gather(k takeKey, b *takeBatch) {
	deadline := time.NewTimer(takeGather)
	defer deadline.Stop()
	quiet := time.NewTicker(takeQuiet)
	defer quiet.Stop()
	n := 1
wait:
	for {
		select {
		case <-b.full:
			return
		case <-deadline.C:
			break wait
		case <-quiet.C:
			t.mu.Lock()
			m := len(b.reqs)
			t.mu.Unlock()
			if m == n {
				break wait
			}
			n = m
		}
	}
	t.mu.Lock()
	if t.open[k] == b {
		delete(t.open, k)
	}
	t.mu.Unlock()
}
