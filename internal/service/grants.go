package service

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateGrant makes a timed grant for the organization (docs/api.md,
// "POST /grants"), attributed to the acting user or key, and wakes the
// waiting syncs of the servers hosting its player. created is false when
// the organization holds a grant of the same source.receiptId already:
// that grant is returned, whatever r says, and nothing is recorded, so a
// purchase handler may retry safely.
//
// Who may:
//   - a dashboard user with [gatehouse.PermManageGrants] (admins);
//   - an API key with policies:write, any grant; a key without it (a
//     game server's, scope server) only a purchase
//     ([gatehouse.GrantSourceType.Purchase]): a *[gatehouse.ScopeError];
//   - the operator's CLI.
//
// Errors: a [*gatehouse.ValidationError] naming every bad field, an
// access point or location of another organization included; then a
// *[gatehouse.StateError] for an archived access point or location.
func (s *Service) CreateGrant(ctx context.Context, orgID uuid.UUID, r gatehouse.GrantRequest) (_ gatehouse.Grant, created bool, err error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageGrants)
	if err != nil {
		return gatehouse.Grant{}, false, err
	}
	now := s.Now()
	if r, err = r.Check(now); err != nil {
		return gatehouse.Grant{}, false, err
	}
	a := gatehouse.ActorFrom(ctx)
	if !r.Source.Type.Purchase() {
		if err := gatehouse.RequireKeyScope(a, gatehouse.ScopePoliciesWrite,
			"to grant other than a purchase (source.type DEVELOPER_PRODUCT or GAME_PASS)"); err != nil {
			return gatehouse.Grant{}, false, err
		}
	}
	if r.Source.ReceiptID != nil && !reach.Whole() {
		// A receipt is the organization's, as its purchases are: looked
		// up across locations, it would tell a limited actor of another
		// location's grant, or let it take the id before the purchase.
		return gatehouse.Grant{}, false, gatehouse.Invalid("source.receiptId", "is for purchases, which keys of the whole organization record")
	}
	if r.Source.ReceiptID != nil {
		// A retry finds its grant without checking what the grant names
		// again (an access point removed since would refuse it).
		if g, err := s.grantOfReceipt(ctx, orgID, *r.Source.ReceiptID); err == nil || !errors.Is(err, gatehouse.ErrNotFound) {
			return g.At(now), false, err
		}
	}
	if err := s.checkGrantTargets(ctx, orgID, r, reach); err != nil {
		return gatehouse.Grant{}, false, err
	}
	aps := r.AccessPointIDs
	if aps == nil {
		aps = []uuid.UUID{}
	}
	ng := gatehouse.NewGrant{Grant: gatehouse.Grant{ID: gatehouse.NewID(), OrgID: orgID, PlatformUserID: r.PlatformUserID,
		AccessPointIDs: aps, LocationID: r.LocationID, From: *r.From, Until: *r.Until, Note: r.Note, Source: *r.Source,
		CreatedAt: gatehouse.Time(now)}}
	if a.ID != uuid.Nil {
		id := a.ID
		switch a.Type {
		case gatehouse.ActorUser:
			ng.CreatedByUser = &id
		case gatehouse.ActorKey:
			ng.CreatedByKeyID = &id
		}
	}
	if ng.Wakes, err = s.grantWakes(ctx, orgID, r.PlatformUserID, now); err != nil {
		return gatehouse.Grant{}, false, err
	}
	e := s.entry(ctx, orgID, gatehouse.AuditGrantCreated, gatehouse.TargetGrant).
		Change("platformUserId", "", r.PlatformUserID).
		Change("from", "", gatehouse.FormatTime(time.Time(*r.From))).Change("until", "", gatehouse.FormatTime(time.Time(*r.Until))).
		Change("source", "", string(r.Source.Type))
	if r.LocationID != nil {
		e = e.Change("locationId", "", r.LocationID.String())
	} else {
		e = e.Change("accessPoints", "", joinIDs(aps))
	}
	g, created, err := s.store.CreateGrant(ctx, e, ng)
	if errors.Is(err, gatehouse.ErrNotFound) {
		// A target deleted since the check: refused as the check refuses it.
		if cerr := s.checkGrantTargets(ctx, orgID, r, reach); cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		return gatehouse.Grant{}, false, err
	}
	if created {
		for _, w := range ng.Wakes {
			s.wake(w)
		}
	}
	return g.At(now), created, nil
}

// grantOfReceipt returns the organization's grant of a receipt id, or
// [gatehouse.ErrNotFound].
func (s *Service) grantOfReceipt(ctx context.Context, orgID uuid.UUID, receipt string) (gatehouse.Grant, error) {
	page, err := s.store.ListGrants(ctx, orgID, gatehouse.GrantFilter{ReceiptID: &receipt, Limit: 1})
	if err != nil {
		return gatehouse.Grant{}, err
	}
	if len(page.Grants) == 0 {
		return gatehouse.Grant{}, gatehouse.ErrNotFound
	}
	return page.Grants[0], nil
}

// checkGrantTargets refuses, keyed by the field, an access point or a
// location the organization does not hold, or reach does not, and then,
// with a *[gatehouse.StateError], one that is archived (an access point
// of an archived location included): a grant is a new write that names
// it.
func (s *Service) checkGrantTargets(ctx context.Context, orgID uuid.UUID, r gatehouse.GrantRequest, reach gatehouse.Reach) error {
	var (
		errs     gatehouse.ValidationError
		archived error
	)
	for i, id := range r.AccessPointIDs {
		ap, err := s.store.FindAccessPoint(ctx, orgID, id)
		switch {
		case errors.Is(err, gatehouse.ErrNotFound) || err == nil && !reach.Has(ap.LocationID):
			errs.Add("accessPointIds["+strconv.Itoa(i)+"]", "is not an access point of your organization")
		case err != nil:
			return err
		case archived == nil:
			archived = ap.Writable()
		}
	}
	if r.LocationID != nil {
		l, err := s.store.FindLocation(ctx, orgID, *r.LocationID)
		switch {
		case errors.Is(err, gatehouse.ErrNotFound) || !reach.Has(*r.LocationID):
			errs.Add("locationId", "is not a location of your organization")
		case err != nil:
			return err
		case archived == nil:
			archived = l.Writable()
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	return archived
}

// grantWakes are the wakes of a change of player's grants: every live
// server hosting the player, whose waiting sync answers with the new
// list, and the organization's own, which tells every instance that its
// decisions may see a grant (see grantFlags).
func (s *Service) grantWakes(ctx context.Context, orgID uuid.UUID, player string, now time.Time) ([]gatehouse.Wake, error) {
	servers, err := s.store.PlayerServers(ctx, orgID, player, now.Add(-gatehouse.LiveWindow))
	if err != nil {
		return nil, err
	}
	wakes := []gatehouse.Wake{{OrgID: orgID}}
	for _, sv := range servers {
		wakes = append(wakes, gatehouse.Wake{OrgID: orgID, UniverseID: sv.UniverseID, JobID: sv.JobID})
	}
	return wakes, nil
}

// ReadGrantQuery parses the query of a grant list and opens its cursor
// for orgID (see [gatehouse.ReadGrantQuery]).
func (s *Service) ReadGrantQuery(orgID uuid.UUID, v url.Values) (gatehouse.GrantFilter, error) {
	return gatehouse.ReadGrantQuery(v, s.cursors, orgID)
}

// GrantCursor signs the position next of the list of orgID's grants
// matching f: the nextCursor of a page.
func (s *Service) GrantCursor(orgID uuid.UUID, f gatehouse.GrantFilter, next gatehouse.GrantKey) string {
	return s.cursors.Sign(gatehouse.CursorGrants, f.Digest(orgID), gatehouse.EncodeGrantKey(next))
}

// ListGrants returns a page of the organization's grants matching f,
// newest first, each with Active set for now. f.AccessPointID matches the
// grants that list it and those of its location; an access point the
// organization does not hold matches none. f must pass
// [gatehouse.GrantFilter.Check].
func (s *Service) ListGrants(ctx context.Context, orgID uuid.UUID, f gatehouse.GrantFilter) (gatehouse.GrantPage, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.GrantPage{}, err
	}
	if err := f.Check(); err != nil {
		return gatehouse.GrantPage{}, err
	}
	now := s.Now()
	f.Now, f.LocationOf, f.Within = now, nil, reach
	if f.AccessPointID != nil {
		ap, err := s.store.FindAccessPoint(ctx, orgID, *f.AccessPointID)
		switch {
		case errors.Is(err, gatehouse.ErrNotFound):
		case err != nil:
			return gatehouse.GrantPage{}, err
		default:
			f.LocationOf = &ap.LocationID
		}
	}
	page, err := s.store.ListGrants(ctx, orgID, f)
	for i := range page.Grants {
		page.Grants[i] = page.Grants[i].At(now)
	}
	return page, err
}

// FindGrant returns one of the organization's grants, or
// [gatehouse.ErrNotFound].
func (s *Service) FindGrant(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Grant, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.Grant{}, err
	}
	g, err := s.grantIn(ctx, orgID, id, reach)
	return g.At(s.Now()), err
}

// grantIn is the organization's grant id, or [gatehouse.ErrNotFound]
// unless reach holds all it covers, as [gatehouse.GrantFilter.Within]
// keeps it.
func (s *Service) grantIn(ctx context.Context, orgID, id uuid.UUID, reach gatehouse.Reach) (gatehouse.Grant, error) {
	g, err := s.store.FindGrant(ctx, orgID, id)
	if err != nil || reach.Whole() {
		return g, err
	}
	if g.LocationID != nil {
		return g, gatehouse.InReach(reach, *g.LocationID)
	}
	for _, ap := range g.AccessPointIDs {
		if err := s.accessPointIn(ctx, orgID, ap, reach); err != nil {
			return gatehouse.Grant{}, err
		}
	}
	return g, nil
}

// RevokeGrant ends one of the organization's grants now and wakes the
// syncs of the servers hosting its player. A grant revoked already is
// returned as it is and nothing is recorded. [gatehouse.ErrNotFound];
// [gatehouse.ErrForbidden] for a user without
// [gatehouse.PermManageGrants].
func (s *Service) RevokeGrant(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Grant, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageGrants)
	if err != nil {
		return gatehouse.Grant{}, err
	}
	now := s.Now()
	old, err := s.grantIn(ctx, orgID, id, reach)
	if err != nil {
		return gatehouse.Grant{}, err
	}
	if old.RevokedAt != nil {
		return old.At(now), nil
	}
	wakes, err := s.grantWakes(ctx, orgID, old.PlatformUserID, now)
	if err != nil {
		return gatehouse.Grant{}, err
	}
	e := s.entry(ctx, orgID, gatehouse.AuditGrantRevoked, gatehouse.TargetGrant).
		Change("revokedAt", "", gatehouse.FormatTime(now))
	g, revoked, err := s.store.RevokeGrant(ctx, e, orgID, id, now, wakes)
	if err != nil {
		return gatehouse.Grant{}, err
	}
	if revoked {
		for _, w := range wakes {
			s.wake(w)
		}
	}
	return g.At(now), nil
}
