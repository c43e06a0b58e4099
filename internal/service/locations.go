package service

import (
	"context"
	"crypto/sha256"

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
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) RenameLocation(ctx context.Context, orgID, id uuid.UUID, name string) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.Location{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	return s.store.RenameLocation(ctx, s.entry(ctx, orgID, gatehouse.AuditLocationRenamed, gatehouse.TargetLocation), orgID, id, name)
}

// FindLocation returns one of the organization's locations with its
// access points, or [gatehouse.ErrNotFound].
func (s *Service) FindLocation(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return gatehouse.Location{}, err
	}
	return s.store.FindLocation(ctx, orgID, id)
}

// ListLocations returns a page of the organization's locations ordered by
// name then id, each with its access points; next is set when more follow.
// limit must be between 1 and [gatehouse.MaxLimit].
func (s *Service) ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *gatehouse.LocationKey) (page []gatehouse.Location, next *gatehouse.LocationKey, err error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return nil, nil, err
	}
	if limit < 1 || limit > gatehouse.MaxLimit {
		return nil, nil, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	return s.store.ListLocations(ctx, orgID, limit, after)
}

// AllLocations returns every location of the organization, page by page:
// the dashboard's forms and the CLI's lists.
func (s *Service) AllLocations(ctx context.Context, orgID uuid.UUID) ([]gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return nil, err
	}
	all := []gatehouse.Location{}
	var after *gatehouse.LocationKey
	for {
		locs, next, err := s.store.ListLocations(ctx, orgID, gatehouse.MaxLimit, after)
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

// LocationCursor signs the position next of orgID's location list.
func (s *Service) LocationCursor(orgID uuid.UUID, next gatehouse.LocationKey) string {
	return s.cursors.Sign(gatehouse.CursorLocations, locationsDigest(orgID), gatehouse.EncodeLocationKey(next))
}

// OpenLocationCursor reads a cursor [Service.LocationCursor] signed for
// orgID: [gatehouse.ErrCursorInvalid] (or another cursor error) for any
// other string.
func (s *Service) OpenLocationCursor(orgID uuid.UUID, cursor string) (gatehouse.LocationKey, error) {
	b, err := s.cursors.Open(cursor, gatehouse.CursorLocations, locationsDigest(orgID))
	if err != nil {
		return gatehouse.LocationKey{}, err
	}
	return gatehouse.DecodeLocationKey(b)
}

// locationsDigest binds a locations cursor to its organization.
func locationsDigest(orgID uuid.UUID) [8]byte {
	sum := sha256.Sum256(append([]byte("locations\x00"), orgID[:]...))
	return [8]byte(sum[:8])
}

// CreateAccessPoint creates an access point under one of the
// organization's locations.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name";
//   - [gatehouse.ErrNotFound] for an unknown location or one of another
//     organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) CreateAccessPoint(ctx context.Context, orgID, locationID uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
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
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) RenameAccessPoint(ctx context.Context, orgID, id uuid.UUID, name string) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	return s.store.RenameAccessPoint(ctx, s.entry(ctx, orgID, gatehouse.AuditAccessPointRenamed, gatehouse.TargetAccessPoint), orgID, id, name)
}

// MoveAccessPoint re-homes one of the organization's access points under
// another of its locations; events keep the location they were recorded
// with, and moving to the location it is in records nothing.
// [gatehouse.ErrNotFound] for an unknown access point or location, or one
// of another organization; [gatehouse.ErrForbidden] unless the acting user
// is an admin.
func (s *Service) MoveAccessPoint(ctx context.Context, orgID, id, locationID uuid.UUID) (gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.AccessPoint{}, err
	}
	return s.store.MoveAccessPoint(ctx, s.entry(ctx, orgID, gatehouse.AuditAccessPointMoved, gatehouse.TargetAccessPoint), orgID, id, locationID)
}

// ListAccessPoints returns the access points of one of the organization's
// locations, ordered by name then id; [gatehouse.ErrNotFound] for an
// unknown location.
func (s *Service) ListAccessPoints(ctx context.Context, orgID, locationID uuid.UUID) ([]gatehouse.AccessPoint, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return nil, err
	}
	l, err := s.store.FindLocation(ctx, orgID, locationID)
	if err != nil {
		return nil, err
	}
	return l.AccessPoints, nil
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
