package service_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// takeCounter is the real store, counting the takes the service asks of
// it.
type takeCounter struct {
	gatehouse.Store
	mu             sync.Mutex
	single, gather int
	requests       int
}

func (c *takeCounter) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]gatehouse.Command, int64, error) {
	c.mu.Lock()
	c.single++
	c.mu.Unlock()
	return c.Store.TakeCommands(ctx, orgID, jobID, universeID, cursor, now)
}

func (c *takeCounter) TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []gatehouse.TakeRequest, now time.Time) ([]gatehouse.Taken, error) {
	c.mu.Lock()
	c.gather++
	c.requests += len(reqs)
	c.mu.Unlock()
	return c.Store.TakeCommandsBatch(ctx, orgID, universeID, reqs, now)
}

func (c *takeCounter) reset() (single, batches, requests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	single, batches, requests = c.single, c.gather, c.requests
	c.single, c.gather, c.requests = 0, 0, 0
	return
}

// TestWokenSyncsTakeTogether: the syncs a UNIVERSE unlock wakes take it
// in a few batches, not one store call each, and each gets its own
// answer.
func TestWokenSyncsTakeTogether(t *testing.T) {
	counter := &takeCounter{}
	f := unlockOn(t, newServiceOn(t, nil, func(s gatehouse.Store) gatehouse.Store {
		counter.Store = s
		return counter
	}))
	const servers = 40
	jobs := make([]string, servers)
	for i := range jobs {
		jobs[i] = "s" + strconv.Itoa(i)
		f.sync(t, jobs[i])
	}
	wait := 20
	type answer struct {
		job string
		res gatehouse.SyncResult
		err error
	}
	answers := make(chan answer, servers)
	for _, job := range jobs {
		go func() {
			res, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: job, UniverseID: "42", WaitSeconds: &wait})
			answers <- answer{job, res, err}
		}()
	}
	// Every poll has taken once (nothing was due) and waits.
	deadline := time.Now().Add(5 * time.Second)
	for {
		counter.mu.Lock()
		n := counter.requests + counter.single
		counter.mu.Unlock()
		if n >= 2*servers || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	counter.reset()
	c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
	must(t, err)
	cursors := map[string]string{}
	for range servers {
		select {
		case a := <-answers:
			if a.err != nil || len(a.res.Commands) != 1 || a.res.Commands[0].ID != c.ID {
				t.Fatalf("%s woken with %+v %v", a.job, a.res, a.err)
			}
			cursors[a.job] = a.res.Cursor
		case <-time.After(5 * time.Second):
			t.Fatal("a waiting sync was not woken")
		}
	}
	if len(cursors) != servers {
		t.Fatalf("answers for %d servers, want %d", len(cursors), servers)
	}
	single, batches, requests := counter.reset()
	t.Logf("%d woken syncs took in %d batches", servers, batches)
	if single != 0 || requests != servers || batches > servers/4 {
		t.Errorf("%d woken syncs: %d single takes, %d batches of %d requests in all; want a few batches of one request each",
			servers, single, batches, requests)
	}
	if got, err := f.svc.FindCommand(f.key, f.org.ID, c.ID); err != nil || got.Targets.Delivered != servers {
		t.Errorf("after the batches: %+v, %v", got.Targets, err)
	}
}
