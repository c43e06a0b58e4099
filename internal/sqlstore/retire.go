package sqlstore

import (
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ArchiveEntry is e recording that the organization's access point or
// location (kind, a gatehouse.Target) id, named name, went from archived
// at old to archived at now (nil: in use).
func ArchiveEntry(e gatehouse.AuditEntry, orgID uuid.UUID, kind string, id uuid.UUID, name string, old, now *gatehouse.Time) gatehouse.AuditEntry {
	return e.Of(orgID, gatehouse.AuditTarget{Type: kind, ID: id, Name: name}).
		Change("archivedAt", optTime(old), optTime(now))
}

func optTime(t *gatehouse.Time) string {
	if t == nil {
		return ""
	}
	return gatehouse.FormatTime(time.Time(*t))
}

// LocationDeletedEntry is e recording that the organization's location l
// was deleted with grants grants of it.
func LocationDeletedEntry(e gatehouse.AuditEntry, l gatehouse.Location, grants int) gatehouse.AuditEntry {
	universe := ""
	if l.UniverseID != nil {
		universe = *l.UniverseID
	}
	return e.Of(l.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetLocation, ID: l.ID, Name: l.Name}).
		Change("name", l.Name, "").Change("universeId", universe, "").Change("grants", count(grants), "")
}

// AccessPointDeletedEntry is e recording that the organization's access
// point ap was deleted with versions versions of its policy, and taken
// off grants grants.
func AccessPointDeletedEntry(e gatehouse.AuditEntry, orgID uuid.UUID, ap gatehouse.AccessPoint, versions, grants int) gatehouse.AuditEntry {
	return e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: ap.ID, Name: ap.Name}).
		Change("name", ap.Name, "").Change("locationId", ap.LocationID.String(), "").
		Change("policyVersions", count(versions), "").Change("grants", count(grants), "")
}

// count is n as a change's from, or "" (no change recorded) for none.
func count(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
