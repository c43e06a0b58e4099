package sqlstore

import (
	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// EventsWithin is what f.Within (the reach of the actor reading) leaves
// a store to state about an event's location: narrow is false when the
// reach keeps every event f's other filters keep (no reach, or a location
// filter that the reach holds, so that the read stays on that location's
// index); otherwise locations are those an event must be at, none (so
// that nothing matches) when the reach is empty or misses the location
// filtered. An empty reach is an empty set, never the whole organization.
func EventsWithin(f gatehouse.EventFilter) (locations []uuid.UUID, narrow bool) {
	switch {
	case f.Within == nil:
		return nil, false
	case f.LocationID != nil && f.Within.Has(*f.LocationID):
		return nil, false
	case f.LocationID != nil:
		return []uuid.UUID{}, true
	}
	return f.Within, true
}
