package gatehouse

import (
	"sync"

	"github.com/google/uuid"
)

// Wakes tells the long polls waiting in this process that a universe of
// an organization may have a command for them. A waiter takes the
// universe's channel before it reads the store and waits for it to close:
// a wake between the read and the wait is not lost. Waking closes the
// channel, so a wake costs the same for one waiter or two thousand, and
// no waiter registers or leaves.
type Wakes struct {
	mu sync.Mutex
	ch map[wakeKey]chan struct{}
}

type wakeKey struct {
	org      uuid.UUID
	universe string
}

// NewWakes returns an empty set of wakes.
func NewWakes() *Wakes { return &Wakes{ch: map[wakeKey]chan struct{}{}} }

// Wait returns the channel that closes at the next wake of the
// organization's universe.
func (w *Wakes) Wait(orgID uuid.UUID, universeID string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := wakeKey{orgID, universeID}
	c, ok := w.ch[k]
	if !ok {
		c = make(chan struct{})
		w.ch[k] = c
	}
	return c
}

// Wake wakes every waiter of the organization's universe; orgID uuid.Nil
// wakes every waiter of every universe.
func (w *Wakes) Wake(orgID uuid.UUID, universeID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if orgID == uuid.Nil {
		for k, c := range w.ch {
			close(c)
			delete(w.ch, k)
		}
		return
	}
	k := wakeKey{orgID, universeID}
	if c, ok := w.ch[k]; ok {
		close(c)
		delete(w.ch, k)
	}
}
