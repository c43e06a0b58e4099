package service

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Archiving, restoring and deleting locations and access points
// (docs/api.md, "Archive and delete"): admins ([gatehouse.PermManageLocations]),
// API keys with locations:write, the operator's CLI. Each is audited;
// archiving an archived record or restoring one in use records nothing
// and answers it as it is.

// ArchiveLocation archives one of the organization's locations: it and
// its access points leave the lists (but those asked for archived
// records), their events stay and are still found, and what a running game
// relies on goes on (events accepted, decisions, the policy set); new
// writes that name them are refused until it is restored.
//
// Errors: [gatehouse.ErrNotFound] for an unknown location or one of
// another organization; [gatehouse.ErrForbidden] unless the acting user is
// an admin.
func (s *Service) ArchiveLocation(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Location, error) {
	return s.setLocationArchived(ctx, orgID, id, true)
}

// RestoreLocation puts an archived location back in use. Errors as
// [Service.ArchiveLocation].
func (s *Service) RestoreLocation(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Location, error) {
	return s.setLocationArchived(ctx, orgID, id, false)
}

func (s *Service) setLocationArchived(ctx context.Context, orgID, id uuid.UUID, archive bool) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.Location{}, err
	}
	action, at := s.archiveChange(archive, gatehouse.AuditLocationArchived, gatehouse.AuditLocationRestored)
	return s.store.SetLocationArchived(ctx, s.entry(ctx, orgID, action, gatehouse.TargetLocation), orgID, id, at)
}

// ArchiveAccessPoint archives one of the organization's access points,
// as [Service.ArchiveLocation] archives a location. Errors as
// [Service.ArchiveLocation].
func (s *Service) ArchiveAccessPoint(ctx context.Context, orgID, id uuid.UUID) (gatehouse.AccessPoint, error) {
	return s.setAccessPointArchived(ctx, orgID, id, true)
}

// RestoreAccessPoint puts an archived access point back in use; one of an
// archived location stays hidden with it until the location is restored
// too. Errors as [Service.ArchiveLocation].
func (s *Service) RestoreAccessPoint(ctx context.Context, orgID, id uuid.UUID) (gatehouse.AccessPoint, error) {
	return s.setAccessPointArchived(ctx, orgID, id, false)
}

func (s *Service) setAccessPointArchived(ctx context.Context, orgID, id uuid.UUID, archive bool) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	action, at := s.archiveChange(archive, gatehouse.AuditAccessPointArchived, gatehouse.AuditAccessPointRestored)
	return s.store.SetAccessPointArchived(ctx, s.entry(ctx, orgID, action, gatehouse.TargetAccessPoint), orgID, id, at)
}

// archiveChange is the action and the archivedAt of an archive (now) or a
// restore (nil).
func (s *Service) archiveChange(archive bool, archived, restored gatehouse.AuditAction) (gatehouse.AuditAction, *time.Time) {
	if !archive {
		return restored, nil
	}
	now := gatehouse.Truncate(s.Now())
	return archived, &now
}

// DeleteLocation deletes one of the organization's locations, with the
// grants of it. Only a mistake can go: a location with access points, or
// that events, remote commands or lockdowns name, is refused with a
// *[gatehouse.StateError] ([gatehouse.ErrConflict]) that says what to do
// instead (delete or move its access points; archive it).
//
// Errors besides: as [Service.ArchiveLocation].
func (s *Service) DeleteLocation(ctx context.Context, orgID, id uuid.UUID) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return err
	}
	if err := s.store.DeleteLocation(ctx, s.entry(ctx, orgID, gatehouse.AuditLocationDeleted, gatehouse.TargetLocation), orgID, id); err != nil {
		return err
	}
	s.forgetDoors(orgID)
	return nil
}

// DeleteAccessPoint deletes one of the organization's access points with
// every version of its policy, and takes it off the grants that list it (a
// grant that listed it alone goes). Only a mistake can go: one that
// events or remote commands name is refused with a
// *[gatehouse.StateError] that says to archive it instead. The store
// holds the access point against a concurrent ingest or unlock: either
// their events are counted, or they find no such access point.
//
// Errors besides: as [Service.ArchiveLocation].
func (s *Service) DeleteAccessPoint(ctx context.Context, orgID, id uuid.UUID) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return err
	}
	if err := s.store.DeleteAccessPoint(ctx, s.entry(ctx, orgID, gatehouse.AuditAccessPointDeleted, gatehouse.TargetAccessPoint), orgID, id); err != nil {
		return err
	}
	s.forgetDoors(orgID)
	return nil
}

// forgetDoors drops what this instance keeps of the organization's
// access points after a delete: its universes' policy sets, its decision
// contexts and its kept grants. Other instances read them again within a
// second, and forget their grants at the wake the store left.
func (s *Service) forgetDoors(orgID uuid.UUID) {
	s.policySets.forget(orgID)
	s.wake(gatehouse.Wake{OrgID: orgID})
}

// writableLocation refuses, with [gatehouse.Location.Writable]'s
// *[gatehouse.StateError], a write naming an archived location of the
// organization; an unknown one is [gatehouse.ErrNotFound].
func (s *Service) writableLocation(ctx context.Context, orgID, id uuid.UUID) error {
	l, err := s.store.FindLocation(ctx, orgID, id)
	if err != nil {
		return err
	}
	return l.Writable()
}

// writableAccessPoint returns the organization's access point, refusing
// it with [gatehouse.AccessPoint.Writable]'s *[gatehouse.StateError] when
// it, or its location, is archived.
func (s *Service) writableAccessPoint(ctx context.Context, orgID, id uuid.UUID) (gatehouse.AccessPoint, error) {
	ap, err := s.store.FindAccessPoint(ctx, orgID, id)
	if err != nil {
		return ap, err
	}
	return ap, ap.Writable()
}
