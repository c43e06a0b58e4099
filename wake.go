package gatehouse

import (
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
