package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// StartLockdown starts a lockdown for the organization (docs/api.md,
// "Lockdowns"): the acting user ([gatehouse.PermIssueCommands]) or API
// key is its requester (the operator's CLI, acting as the system, leaves
// both null). In one transaction it is stored, the unlocks in
// force on the access points it covers end, and a LOCKDOWN command is
// issued to the servers live now of each universe it covers; the
// universes' waiting syncs are woken, on every instance.
//
// Errors:
//   - a [*gatehouse.ValidationError] naming every bad field, a location
//     that is not the organization's and a universe none of its
//     locations names included;
//   - a *[gatehouse.StateError] for a lockdown of an archived location;
//   - [gatehouse.ErrForbidden] for a viewer, and for an actor limited
//     to locations unless it locks down one of them.
func (s *Service) StartLockdown(ctx context.Context, orgID uuid.UUID, r gatehouse.LockdownRequest) (gatehouse.Lockdown, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermIssueCommands)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	a := gatehouse.ActorFrom(ctx)
	now := s.Now()
	if r, err = r.Check(now); err != nil {
		return gatehouse.Lockdown{}, err
	}
	if err := lockdownInReach(r.Scope, r.LocationID, reach); err != nil {
		return gatehouse.Lockdown{}, err
	}
	l := gatehouse.Lockdown{ID: gatehouse.NewID(), OrgID: orgID, Scope: r.Scope, UniverseID: r.UniverseID,
		LocationID: r.LocationID, Reason: r.Reason, StartedAt: gatehouse.Time(gatehouse.Truncate(now)), Until: r.Until, Active: true}
	if l.Until != nil {
		u := gatehouse.Time(gatehouse.Truncate(time.Time(*l.Until)))
		l.Until = &u
	}
	nl := gatehouse.NewLockdown{Lockdown: l}
	// The operator's CLI acts as the system: neither is set then.
	id := a.ID
	switch {
	case a.ID == uuid.Nil:
	case a.Type == gatehouse.ActorUser:
		nl.RequestedByUser = &id
	case a.Type == gatehouse.ActorKey:
		nl.IssuedByKeyID = &id
	}
	// An archived location takes no new lockdown, as it takes no new
	// unlock; its running ones are still released.
	if r.LocationID != nil {
		if err := s.writableLocation(ctx, orgID, *r.LocationID); err != nil && !errors.Is(err, gatehouse.ErrNotFound) {
			return gatehouse.Lockdown{}, err
		}
	}
	universes, err := s.lockdownUniverses(ctx, orgID, &nl.Lockdown)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	if nl.Commands, err = s.lockdownCommands(ctx, nl.Lockdown, universes, nl.RequestedByUser, nl.IssuedByKeyID, now); err != nil {
		return gatehouse.Lockdown{}, err
	}
	e := s.entry(ctx, orgID, gatehouse.AuditLockdownStarted, gatehouse.TargetLockdown).
		Change("scope", "", string(r.Scope)).Change("reason", "", r.Reason)
	if r.Until != nil {
		e = e.Change("until", "", time.Time(*l.Until).Format(time.RFC3339))
	}
	stored, err := s.store.CreateLockdown(ctx, e, nl)
	if errors.Is(err, gatehouse.ErrNotFound) && r.LocationID != nil {
		return gatehouse.Lockdown{}, gatehouse.Invalid("locationId", "is not a location of your organization")
	}
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	s.lockdownChanged(ctx, orgID, nl.Commands)
	return stored, nil
}

// lockdownUniverses returns the universes whose servers hear of l, and
// completes l's location: for ORGANIZATION every universe the
// organization's locations name, for UNIVERSE that one (which a location
// must name), for LOCATION the location's, if it names one.
func (s *Service) lockdownUniverses(ctx context.Context, orgID uuid.UUID, l *gatehouse.Lockdown) ([]string, error) {
	switch l.Scope {
	case gatehouse.LockdownUniverse:
		named, err := s.store.NamesUniverse(ctx, orgID, *l.UniverseID)
		if err != nil {
			return nil, err
		}
		if !named {
			return nil, gatehouse.Invalid("universeId", "no location of your organization names this universe")
		}
		return []string{*l.UniverseID}, nil
	case gatehouse.LockdownLocation:
		loc, err := s.store.FindLocation(ctx, orgID, *l.LocationID)
		if errors.Is(err, gatehouse.ErrNotFound) {
			return nil, gatehouse.Invalid("locationId", "is not a location of your organization")
		}
		if err != nil {
			return nil, err
		}
		l.Location = &gatehouse.NamedRef{ID: loc.ID, Name: loc.Name}
		if loc.UniverseID == nil {
			return nil, nil
		}
		return []string{*loc.UniverseID}, nil
	}
	return s.store.OrgUniverses(ctx, orgID)
}

// lockdownCommands are the LOCKDOWN commands that tell the servers live
// now of each universe of l as it is.
func (s *Service) lockdownCommands(ctx context.Context, l gatehouse.Lockdown, universes []string, user, key *uuid.UUID, now time.Time) ([]gatehouse.IssuedCommand, error) {
	cmds := make([]gatehouse.IssuedCommand, 0, len(universes))
	for _, u := range universes {
		snapshot := l
		c := gatehouse.IssuedCommand{Command: gatehouse.Command{
			ID: gatehouse.NewID(), OrgID: l.OrgID, Type: gatehouse.CommandLockdown, Status: gatehouse.CommandPending,
			Scope: gatehouse.ScopeUniverse, UniverseID: u, IssuedAt: gatehouse.Time(now),
			ExpiresAt: gatehouse.Time(now.Add(gatehouse.LockdownCommandTTL)), StatusAt: gatehouse.Time(now), Lockdown: &snapshot,
		}, RequestedByUser: user, IssuedByKeyID: key}
		if l.Location != nil {
			c.Location = *l.Location
		}
		live, err := s.store.LiveServers(ctx, l.OrgID, u, now.Add(-gatehouse.LiveWindow), nil)
		if err != nil {
			return nil, err
		}
		for _, srv := range live {
			c.TargetJobIDs = append(c.TargetJobIDs, srv.JobID)
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// lockdownChanged tells this instance's syncs, decisions and policy sets
// that the organization's lockdowns changed; the commands' wakes reach
// the other instances through the database. The new version of each
// universe's set is read once, before the syncs wake: a thousand syncs
// answering at once then find it kept, rather than each reading it.
func (s *Service) lockdownChanged(ctx context.Context, orgID uuid.UUID, cmds []gatehouse.IssuedCommand) {
	s.policySets.forget(orgID)
	s.decisionContexts.forget(orgID)
	for _, c := range cmds {
		// A failure leaves the version to be read by the syncs.
		s.policySetVersion(context.WithoutCancel(ctx), orgID, c.UniverseID)
	}
	for _, c := range cmds {
		for _, w := range c.Wakes() {
			s.wake(w)
		}
	}
}

// FindLockdown returns one of the organization's lockdowns, or
// [gatehouse.ErrNotFound].
func (s *Service) FindLockdown(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Lockdown, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	return s.lockdownIn(ctx, orgID, id, reach, s.Now())
}

// lockdownIn is the organization's lockdown id, or
// [gatehouse.ErrNotFound] unless it covers a location of reach, as
// [gatehouse.LockdownFilter.Within] keeps it: the whole organization's,
// a universe's that one of them names, or one of theirs.
func (s *Service) lockdownIn(ctx context.Context, orgID, id uuid.UUID, reach gatehouse.Reach, now time.Time) (gatehouse.Lockdown, error) {
	l, err := s.store.FindLockdown(ctx, orgID, id, now)
	if err != nil || reach.Whole() {
		return l, err
	}
	switch l.Scope {
	case gatehouse.LockdownLocation:
		return l, gatehouse.InReach(reach, *l.LocationID)
	case gatehouse.LockdownUniverse:
		locs, err := s.allLocations(ctx, orgID, true, reach)
		if err != nil {
			return gatehouse.Lockdown{}, err
		}
		if !slices.ContainsFunc(locs, func(loc gatehouse.Location) bool { return loc.UniverseID != nil && *loc.UniverseID == *l.UniverseID }) {
			return gatehouse.Lockdown{}, gatehouse.ErrNotFound
		}
	}
	return l, nil
}

// lockdownInReach refuses an actor limited to locations a lockdown of
// more than one of them: they see the whole organization's and their
// universes' lockdowns, which hold their doors too, but start and
// release only their locations' own.
func lockdownInReach(scope gatehouse.LockdownScope, locationID *uuid.UUID, reach gatehouse.Reach) error {
	switch {
	case reach.Whole():
		return nil
	case scope != gatehouse.LockdownLocation:
		return fmt.Errorf("lock down your locations one by one (scope LOCATION): %w", gatehouse.ErrOutsideReach)
	case !reach.Has(*locationID):
		return gatehouse.Invalid("locationId", "is not a location of your organization")
	}
	return nil
}

// ListLockdowns returns a page of the organization's lockdowns matching
// f, newest first (f.Active: only those running at f.Now). f.Limit must be
// 1 to [gatehouse.MaxLimit].
func (s *Service) ListLockdowns(ctx context.Context, orgID uuid.UUID, f gatehouse.LockdownFilter) (gatehouse.LockdownPage, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.LockdownPage{}, err
	}
	if f.Limit < 1 || f.Limit > gatehouse.MaxLimit {
		return gatehouse.LockdownPage{}, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	f.Within = reach
	if f.Now.IsZero() {
		f.Now = s.Now()
	}
	return s.store.ListLockdowns(ctx, orgID, f)
}

// ReadLockdownQuery parses the query of a lockdown list and opens its
// cursor for orgID ([gatehouse.ReadLockdownQuery]), "active" meaning now.
func (s *Service) ReadLockdownQuery(orgID uuid.UUID, v url.Values) (gatehouse.LockdownFilter, error) {
	return gatehouse.ReadLockdownQuery(v, s.cursors, orgID, s.Now())
}

// LockdownCursor signs the position next of the list of orgID's
// lockdowns matching f: the nextCursor of a page.
func (s *Service) LockdownCursor(orgID uuid.UUID, f gatehouse.LockdownFilter, next gatehouse.LockdownKey) string {
	return s.cursors.Sign(gatehouse.CursorLockdowns, f.Digest(orgID), gatehouse.EncodeLockdownKey(next))
}

// ReleaseLockdown ends one of the organization's lockdowns now, and tells
// the live servers of its universes. A lockdown that ended already
// (released, or past its until) is answered as it is: releasing is
// idempotent. [gatehouse.ErrNotFound]; [gatehouse.ErrForbidden] for a
// viewer, and for an actor limited to locations unless it is one of
// theirs.
func (s *Service) ReleaseLockdown(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Lockdown, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermIssueCommands)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	now := s.Now()
	l, err := s.lockdownIn(ctx, orgID, id, reach, now)
	if err != nil {
		return l, err
	}
	if err := lockdownInReach(l.Scope, l.LocationID, reach); err != nil {
		return gatehouse.Lockdown{}, err
	}
	if !l.Active {
		return l, nil
	}
	a := gatehouse.ActorFrom(ctx)
	by := gatehouse.LockdownActor{Type: a.Type}
	if a.Type == gatehouse.ActorCLI { // the audit entry names the operator; the lockdown keeps its three kinds
		by.Type = gatehouse.ActorSystem
	}
	var user, key *uuid.UUID
	if a.ID != uuid.Nil {
		aid := a.ID
		by.ID = &aid
		if a.Type == gatehouse.ActorUser {
			user = &aid
		} else {
			key = &aid
		}
	}
	released := l
	at := gatehouse.Time(gatehouse.Truncate(now))
	released.ReleasedAt, released.ReleasedBy, released.Active = &at, &by, false
	universes, err := s.lockdownUniverses(ctx, orgID, &released)
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) {
		// The universe or location went away since the start: no server
		// to tell.
		universes, err = nil, nil
	}
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	cmds, err := s.lockdownCommands(ctx, released, universes, user, key, now)
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	e := s.entry(ctx, orgID, gatehouse.AuditLockdownReleased, gatehouse.TargetLockdown).Change("releasedAt", "", time.Time(at).Format(time.RFC3339))
	out, changed, err := s.store.ReleaseLockdown(ctx, e, orgID, id, gatehouse.LockdownRelease{At: time.Time(at), By: by, Commands: cmds})
	if err != nil {
		return gatehouse.Lockdown{}, err
	}
	if changed {
		s.lockdownChanged(ctx, orgID, cmds)
	}
	return out, nil
}

// ExpireLockdowns releases, as the system, every lockdown whose until
// came. Every instance runs it (RunCommands): the store's conditional
// update releases each once.
func (s *Service) ExpireLockdowns(ctx context.Context) error {
	e := gatehouse.SystemEntry(gatehouse.AuditLockdownReleased)
	ended, err := s.store.ExpireLockdowns(ctx, e, s.Now())
	for _, l := range ended {
		s.policySets.forget(l.OrgID)
		s.decisionContexts.forget(l.OrgID)
	}
	return err
}

// lockdownSpans are the lockdowns covering an access point of the
// location of universeID that run at at, as the evaluator takes them.
func (s *Service) lockdownSpans(ctx context.Context, orgID, locationID uuid.UUID, universeID string, at time.Time) ([]gatehouse.ActiveSpan, error) {
	ls, err := s.store.LockdownsOf(ctx, orgID, locationID, universeID, at)
	if err != nil || len(ls) == 0 {
		return nil, err
	}
	spans := make([]gatehouse.ActiveSpan, len(ls))
	for i, l := range ls {
		spans[i] = l.Span()
	}
	return spans, nil
}

// refuseLockedDown is [gatehouse.ErrLockdownActive] when a lockdown
// covering the location runs now.
func (s *Service) refuseLockedDown(ctx context.Context, orgID, locationID uuid.UUID, universeID string, now time.Time) error {
	ls, err := s.store.LockdownsOf(ctx, orgID, locationID, universeID, now)
	if err != nil {
		return err
	}
	if len(ls) > 0 {
		return gatehouse.ErrLockdownActive
	}
	return nil
}
