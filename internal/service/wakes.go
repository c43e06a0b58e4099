package service

import (
	"sync"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Wakes tells the long polls waiting in this process that they may have a
// command.
//   - A waiter takes its channels ([Wakes.Wait]) before it reads the store,
//     and waits for one to close: a wake between the read and the wait is
//     not lost.
//   - Waking closes a channel, so a wake costs the same for one waiter or
//     two thousand.
//   - A channel is counted by its waiters, and goes with the last of them
//     (or its wake): what Wakes holds follows the syncs waiting now, not
//     every job id and universe that ever synced.
type Wakes struct {
	mu sync.Mutex
	ch map[gatehouse.Wake]*waiters
}

// waiters is a channel and how many waiters hold it.
type waiters struct {
	c chan struct{}
	n int
}

// NewWakes returns an empty set of wakes.
func NewWakes() *Wakes { return &Wakes{ch: map[gatehouse.Wake]*waiters{}} }

// Wait returns the channels that close at the next wake of the
// organization's universe and at the next wake of the server jobID, and
// leave, which the waiter calls once when it stops waiting on them.
func (w *Wakes) Wait(orgID uuid.UUID, universeID, jobID string) (universe, server <-chan struct{}, leave func()) {
	ku, ks := gatehouse.Wake{OrgID: orgID, UniverseID: universeID}, gatehouse.Wake{OrgID: orgID, UniverseID: universeID, JobID: jobID}
	w.mu.Lock()
	defer w.mu.Unlock()
	u, s := w.join(ku), w.join(ks)
	return u.c, s.c, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.leave(ku, u)
		w.leave(ks, s)
	}
}

func (w *Wakes) join(k gatehouse.Wake) *waiters {
	e, ok := w.ch[k]
	if !ok {
		e = &waiters{c: make(chan struct{})}
		w.ch[k] = e
	}
	e.n++
	return e
}

// leave drops e with its last waiter, unless a wake already did (a
// newer channel may stand under k).
func (w *Wakes) leave(k gatehouse.Wake, e *waiters) {
	e.n--
	if e.n == 0 && w.ch[k] == e {
		delete(w.ch, k)
	}
}

// Waiting returns how many channels have waiters: the distinct
// universes and servers waiting in this process.
func (w *Wakes) Waiting() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ch)
}

// Wake wakes the waiters k names (see [gatehouse.Wake]).
func (w *Wakes) Wake(k gatehouse.Wake) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k.OrgID == uuid.Nil {
		for k, e := range w.ch {
			close(e.c)
			delete(w.ch, k)
		}
		return
	}
	if e, ok := w.ch[k]; ok {
		close(e.c)
		delete(w.ch, k)
	}
}
