package gatehouse

import (
	"sync"

	"github.com/google/uuid"
)

// Wake says that servers of an organization's universe may have a
// command: the one server JobID, or every server of the universe when
// JobID is empty. A zero OrgID means "anything may have changed" (a
// watcher that reconnected may have missed wakes) and wakes everyone.
type Wake struct {
	OrgID      uuid.UUID
	UniverseID string
	JobID      string
}

// Wakes of an issued command: its target servers for a SERVER or PLAYER
// unlock, so that one server's unlock does not send a thousand waiting
// syncs of its universe to the database; the whole universe for a
// UNIVERSE unlock, which servers that start later receive too. A command
// that failed at issue has no server to wake.
func (c IssuedCommand) Wakes() []Wake {
	if c.Scope == ScopeUniverse {
		return []Wake{{OrgID: c.OrgID, UniverseID: c.UniverseID}}
	}
	wakes := make([]Wake, 0, len(c.TargetJobIDs))
	for _, job := range c.TargetJobIDs {
		wakes = append(wakes, Wake{OrgID: c.OrgID, UniverseID: c.UniverseID, JobID: job})
	}
	return wakes
}

// Wakes tells the long polls waiting in this process that they may have a
// command. A waiter takes its channels before it reads the store and
// waits for one to close: a wake between the read and the wait is not
// lost. Waking closes a channel, so a wake costs the same for one waiter
// or two thousand, and no waiter registers or leaves.
type Wakes struct {
	mu sync.Mutex
	ch map[Wake]chan struct{}
}

// NewWakes returns an empty set of wakes.
func NewWakes() *Wakes { return &Wakes{ch: map[Wake]chan struct{}{}} }

// Wait returns the channels that close at the next wake of the
// organization's universe and at the next wake of the server jobID.
func (w *Wakes) Wait(orgID uuid.UUID, universeID, jobID string) (universe, server <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.channel(Wake{orgID, universeID, ""}), w.channel(Wake{orgID, universeID, jobID})
}

func (w *Wakes) channel(k Wake) chan struct{} {
	c, ok := w.ch[k]
	if !ok {
		c = make(chan struct{})
		w.ch[k] = c
	}
	return c
}

// Wake wakes the waiters k names (see Wake).
func (w *Wakes) Wake(k Wake) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if k.OrgID == uuid.Nil {
		for k, c := range w.ch {
			close(c)
			delete(w.ch, k)
		}
		return
	}
	if c, ok := w.ch[k]; ok {
		close(c)
		delete(w.ch, k)
	}
}
