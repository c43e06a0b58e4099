package sqlstore

import (
	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Place is where an access point stands, as recorded with each event (an
// audit record does not change when a door is renamed).
type Place struct {
	LocationID                    uuid.UUID
	LocationName, AccessPointName string
}

// References are the ids a batch of events refers to, for a store to look
// up in the organization.
func References(events []gatehouse.NewEvent) (accessPoints, users []uuid.UUID) {
	seenAP, seenUser := make(map[uuid.UUID]bool), make(map[uuid.UUID]bool)
	for _, ev := range events {
		if !seenAP[ev.AccessPointID] {
			seenAP[ev.AccessPointID] = true
			accessPoints = append(accessPoints, ev.AccessPointID)
		}
		if u := ev.RequestedBy; u != nil && !seenUser[*u] {
			seenUser[*u] = true
			users = append(users, *u)
		}
	}
	return accessPoints, users
}

// HasCommands reports whether an event of the batch reports a remote
// unlock, which the store then creates or moves on beside the events.
func HasCommands(events []gatehouse.NewEvent) bool {
	for _, ev := range events {
		if ev.Command != nil {
			return true
		}
	}
	return false
}

// CheckReferences reports every event of the batch whose access point is
// not among places or whose requester is not among users: the ones the
// store found in the organization.
//
// Errors: a *gatehouse.IngestError (ErrInvalid) with every problem of the
// batch by event index; errors.As finds in it the *ValidationError keyed
// such as events[3].accessPointId.
func CheckReferences(events []gatehouse.NewEvent, places map[uuid.UUID]Place, users map[uuid.UUID]bool) error {
	var errs gatehouse.IngestError
	for i, ev := range events {
		if _, ok := places[ev.AccessPointID]; !ok {
			errs.Add(i, "accessPointId", "is not an access point of this organization")
		}
		if ev.RequestedBy != nil && !users[*ev.RequestedBy] {
			errs.Add(i, "requestedBy", "is not a dashboard user of this organization")
		}
	}
	return errs.Err()
}
