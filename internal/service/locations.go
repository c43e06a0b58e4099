package service

import (
	"context"
	"crypto/sha256"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateLocation creates a location of the organization.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name" for a bad name;
//   - [gatehouse.ErrNotFound] for an unknown organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) CreateLocation(ctx context.Context, orgID uuid.UUID, name string) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.Location{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	return s.store.CreateLocation(ctx, s.entry(ctx, orgID, gatehouse.AuditLocationCreated, gatehouse.TargetLocation).Change("name", "", name), orgID, name)
}

// RenameLocation renames one of the organization's locations; events keep
// the names they were recorded with.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name";
//   - [gatehouse.ErrNotFound] for an unknown location or one of another
//     organization;
//   - a *[gatehouse.StateError] ([gatehouse.ErrConflict]) for an
//     archived one;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) RenameLocation(ctx context.Context, orgID, id uuid.UUID, name string) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.Location{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	if err := s.writableLocation(ctx, orgID, id); err != nil {
		return gatehouse.Location{}, err
	}
	return s.store.RenameLocation(ctx, s.entry(ctx, orgID, gatehouse.AuditLocationRenamed, gatehouse.TargetLocation), orgID, id, name)
}

// FindLocation returns one of the organization's locations with its
// access points, or [gatehouse.ErrNotFound] (one outside the actor's
// reach included).
func (s *Service) FindLocation(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Location, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.Location{}, err
	}
	if err := gatehouse.InReach(reach, id); err != nil {
		return gatehouse.Location{}, err
	}
	return s.store.FindLocation(ctx, orgID, id)
}

// ListLocations returns a page of the organization's locations ordered by
// name then id, each with its access points; next is set when more follow.
// Archived locations and access points are left out unless withArchived.
// limit must be between 1 and [gatehouse.MaxLimit].
func (s *Service) ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *gatehouse.LocationKey, withArchived bool) (page []gatehouse.Location, next *gatehouse.LocationKey, err error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return nil, nil, err
	}
	if limit < 1 || limit > gatehouse.MaxLimit {
		return nil, nil, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	return s.store.ListLocations(ctx, orgID, limit, after, withArchived, reach)
}

// AllLocations returns every location of the organization, page by page:
// the dashboard's forms and the CLI's lists. Archived locations and
// access points are left out unless withArchived: what names the
// organization's records (the names of insights, an import's places)
// asks for them too, a menu to choose from does not.
func (s *Service) AllLocations(ctx context.Context, orgID uuid.UUID, withArchived bool) ([]gatehouse.Location, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return nil, err
	}
	return s.allLocations(ctx, orgID, withArchived, reach)
}

// allLocations is [Service.AllLocations] of the locations within reach,
// for a caller that authorized.
func (s *Service) allLocations(ctx context.Context, orgID uuid.UUID, withArchived bool, within gatehouse.Reach) ([]gatehouse.Location, error) {
	all := []gatehouse.Location{}
	var after *gatehouse.LocationKey
	for {
		locs, next, err := s.store.ListLocations(ctx, orgID, gatehouse.MaxLimit, after, withArchived, within)
		if err != nil {
			return nil, err
		}
		all = append(all, locs...)
		if next == nil {
			return all, nil
		}
		after = next
	}
}

// LocationCursor signs the position next of orgID's location list, with
// archived locations or without.
func (s *Service) LocationCursor(orgID uuid.UUID, next gatehouse.LocationKey, withArchived bool) string {
	return s.cursors.Sign(gatehouse.CursorLocations, locationsDigest(orgID, withArchived), gatehouse.EncodeLocationKey(next))
}

// OpenLocationCursor reads a cursor [Service.LocationCursor] signed for
// orgID and the same withArchived: [gatehouse.ErrCursorInvalid] (or
// another cursor error) for any other string.
func (s *Service) OpenLocationCursor(orgID uuid.UUID, cursor string, withArchived bool) (gatehouse.LocationKey, error) {
	b, err := s.cursors.Open(cursor, gatehouse.CursorLocations, locationsDigest(orgID, withArchived))
	if err != nil {
		return gatehouse.LocationKey{}, err
	}
	return gatehouse.DecodeLocationKey(b)
}

// locationsDigest binds a locations cursor to its organization and to
// whether the list holds archived locations (a cursor of the list
// without them reads as before archiving existed).
func locationsDigest(orgID uuid.UUID, withArchived bool) [8]byte {
	b := append([]byte("locations\x00"), orgID[:]...)
	if withArchived {
		b = append(b, "\x00archived"...)
	}
	sum := sha256.Sum256(b)
	return [8]byte(sum[:8])
}

// CreateAccessPoint creates an access point under one of the
// organization's locations.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name";
//   - [gatehouse.ErrNotFound] for an unknown location or one of another
//     organization;
//   - a *[gatehouse.StateError] for an archived location;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) CreateAccessPoint(ctx context.Context, orgID, locationID uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	if err := s.writableLocation(ctx, orgID, locationID); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	e := s.entry(ctx, orgID, gatehouse.AuditAccessPointCreated, gatehouse.TargetAccessPoint).Change("name", "", name).
		Change("locationId", "", locationID.String())
	return s.store.CreateAccessPoint(ctx, e, orgID, locationID, name)
}

// RenameAccessPoint renames one of the organization's access points;
// events keep the names they were recorded with, and an unchanged name
// records nothing.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name";
//   - [gatehouse.ErrNotFound] for an unknown access point or one of
//     another organization;
//   - a *[gatehouse.StateError] for an archived one, or one of an
//     archived location;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) RenameAccessPoint(ctx context.Context, orgID, id uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	if _, err := s.writableAccessPoint(ctx, orgID, id); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	return s.store.RenameAccessPoint(ctx, s.entry(ctx, orgID, gatehouse.AuditAccessPointRenamed, gatehouse.TargetAccessPoint), orgID, id, name)
}

// MoveAccessPoint re-homes one of the organization's access points under
// another of its locations; events keep the location they were recorded
// with, and moving to the location it is in records nothing.
// [gatehouse.ErrNotFound] for an unknown access point or location, or one
// of another organization; a *[gatehouse.StateError] when either is
// archived (the access point's location included); [gatehouse.ErrForbidden]
// unless the acting user is an admin.
func (s *Service) MoveAccessPoint(ctx context.Context, orgID, id, locationID uuid.UUID) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	if _, err := s.writableAccessPoint(ctx, orgID, id); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	if err := s.writableLocation(ctx, orgID, locationID); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	return s.store.MoveAccessPoint(ctx, s.entry(ctx, orgID, gatehouse.AuditAccessPointMoved, gatehouse.TargetAccessPoint), orgID, id, locationID)
}

// ListAccessPoints returns the access points of one of the organization's
// locations, ordered by name then id, the archived ones only when
// withArchived; [gatehouse.ErrNotFound] for an unknown location.
func (s *Service) ListAccessPoints(ctx context.Context, orgID, locationID uuid.UUID, withArchived bool) ([]gatehouse.AccessPoint, error) {
	l, err := s.FindLocation(ctx, orgID, locationID)
	if err != nil {
		return nil, err
	}
	if withArchived {
		return l.AccessPoints, nil
	}
	return slices.DeleteFunc(l.AccessPoints, func(ap gatehouse.AccessPoint) bool { return ap.ArchivedAt != nil }), nil
}

// OrgOfLocation and [Service.OrgOfAccessPoint] return the organization
// that owns a record, or [gatehouse.ErrNotFound]. Only the operator's CLI,
// given a bare id, asks.
func (s *Service) OrgOfLocation(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return s.store.OrgOfLocation(ctx, id)
}

// OrgOfAccessPoint: see [Service.OrgOfLocation].
func (s *Service) OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return s.store.OrgOfAccessPoint(ctx, id)
}
