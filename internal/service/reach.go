package service

import (
	"context"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// accessPointIn returns [gatehouse.ErrNotFound] when reach does not hold
// the location of the organization's access point id (or there is no
// such access point). The whole organization's reach costs no read.
func (s *Service) accessPointIn(ctx context.Context, orgID, id uuid.UUID, reach gatehouse.Reach) error {
	if reach.Whole() {
		return nil
	}
	ap, err := s.store.FindAccessPoint(ctx, orgID, id)
	if err != nil {
		return err
	}
	return gatehouse.InReach(reach, ap.LocationID)
}

// checkReach is the reach ids ask for a user or a key of the
// organization: every id one of its locations (archived ones included)
// or one of held, the reach the user holds already (a location deleted
// since stays, matching nothing), else a *[gatehouse.ValidationError]
// keyed field that does not say whether the location exists elsewhere.
// within, the reach of the actor asking, must cover it; an empty list
// asks for all of within.
func (s *Service) checkReach(ctx context.Context, orgID uuid.UUID, field string, ids []uuid.UUID, within, held gatehouse.Reach) (gatehouse.Reach, error) {
	reach, err := gatehouse.CheckReach(field, ids)
	if err != nil || reach.Whole() {
		return within, err
	}
	locs, err := s.allLocations(ctx, orgID, true, within)
	if err != nil {
		return nil, err
	}
	for _, id := range reach {
		if !slices.ContainsFunc(locs, func(l gatehouse.Location) bool { return l.ID == id }) && (held.Whole() || !held.Has(id)) {
			return nil, gatehouse.Invalid(field, "%s is not a location of your organization", id)
		}
	}
	return reach, nil
}

// authorizeAccessPoint is [gatehouse.AuthorizeIn] for an operation on
// one access point, which the actor's reach must hold.
func (s *Service) authorizeAccessPoint(ctx context.Context, orgID, id uuid.UUID, p gatehouse.Permission) error {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, p)
	if err != nil {
		return err
	}
	return s.accessPointIn(ctx, orgID, id, reach)
}
