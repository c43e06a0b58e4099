package service

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/google/uuid"
)

// IssueCommand issues a remote command for the organization: the acting
// user ([gatehouse.PermIssueCommands]) or API key is its requester. The
// command's REMOTE_UNLOCK event is recorded with it, and the universe's
// waiting syncs are woken.
//
// The access point's location must name its universe. Targets are the
// universe's servers live now:
//   - for UNIVERSE, every one;
//   - for SERVER, the one with the job id;
//   - for PLAYER, the one hosting the player.
//
// A SERVER or PLAYER command whose target is not live is stored FAILED at
// once, with SERVER_NOT_LIVE or PLAYER_NOT_ONLINE. An archived access
// point, or one of an archived location, is refused with a
// *[gatehouse.StateError].
//
// With idem set (an Idempotency-Key), a retry with the same request within
// [gatehouse.IdempotencyWindow] answers the command first issued, replayed
// true; the same key with another request is [gatehouse.ErrConflict].
func (s *Service) IssueCommand(ctx context.Context, orgID uuid.UUID, r gatehouse.CommandRequest, idem string) (c gatehouse.Command, replayed bool, err error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermIssueCommands)
	if err != nil {
		return gatehouse.Command{}, false, err
	}
	a := gatehouse.ActorFrom(ctx)
	if (a.Type != gatehouse.ActorUser && a.Type != gatehouse.ActorKey) || a.ID == uuid.Nil {
		return gatehouse.Command{}, false, gatehouse.Invalid("requestedBy", "a command is issued by a dashboard user or an API key")
	}
	if len(idem) > gatehouse.MaxIdempotencyKey || gatehouse.HasUnsafeRune(idem) {
		return gatehouse.Command{}, false, gatehouse.Invalid("Idempotency-Key", "must be at most %d printable characters", gatehouse.MaxIdempotencyKey)
	}
	if r, err = r.Check(); err != nil {
		return gatehouse.Command{}, false, err
	}
	now := s.Now()
	var key *gatehouse.IdempotencyKey
	if idem != "" {
		key = &gatehouse.IdempotencyKey{Key: idempotencyKeyOf(a, reach, idem), Digest: r.Digest(), At: now}
		if c, err := s.replay(ctx, orgID, *key); !errors.Is(err, gatehouse.ErrNotFound) {
			if err == nil && !reach.Has(c.Location.ID) {
				return gatehouse.Command{}, false, errNotYourAccessPoint
			}
			return c, err == nil, err
		}
	}
	nc, err := s.newCommand(ctx, orgID, r, a, reach, now)
	if err != nil {
		return gatehouse.Command{}, false, err
	}
	// A lockdown outranks every unlock: none is issued under it.
	if err := s.refuseLockedDown(ctx, orgID, nc.Location.ID, nc.UniverseID, now); err != nil {
		return gatehouse.Command{}, false, err
	}
	nc.Idempotency = key
	e := s.entry(ctx, orgID, gatehouse.AuditCommandIssued, gatehouse.TargetCommand).
		Change("scope", "", string(r.Scope)).Change("accessPointId", "", r.AccessPointID.String()).
		Change("status", "", string(nc.Status))
	c, err = s.store.CreateCommand(ctx, e, nc)
	if errors.Is(err, gatehouse.ErrConflict) && key != nil {
		// Another request with the key won the race: answer as it did.
		c, err = s.replay(ctx, orgID, *key)
		return c, err == nil, err
	}
	if err != nil {
		return gatehouse.Command{}, false, err
	}
	for _, w := range nc.Wakes() {
		s.wake(w)
	}
	s.published(ctx, orgID, c)
	return c, false, nil
}

// replay answers a request that repeats an Idempotency-Key with the
// command it issued; [gatehouse.ErrConflict] when the request differs,
// [gatehouse.ErrNotFound] when the key is new.
func (s *Service) replay(ctx context.Context, orgID uuid.UUID, key gatehouse.IdempotencyKey) (gatehouse.Command, error) {
	id, digest, err := s.store.FindIdempotencyKey(ctx, orgID, key.Key, key.At.Add(-gatehouse.IdempotencyWindow))
	if err != nil {
		return gatehouse.Command{}, err
	}
	if digest != key.Digest {
		return gatehouse.Command{}, &gatehouse.ConflictError{Field: "Idempotency-Key", Message: "was already used with another request"}
	}
	return s.store.FindCommand(ctx, orgID, id)
}

// idempotencyKeyOf is the key an Idempotency-Key is stored under: the
// organization's (a Stripe account's, as it were) for an actor of the
// whole organization; for one limited to locations, its own, so that
// whether another actor used a key (a 409, or its command replayed)
// tells it nothing about another location, and nobody else's key blocks
// its commands.
func idempotencyKeyOf(a gatehouse.Actor, reach gatehouse.Reach, idem string) string {
	if reach.Whole() {
		return idem
	}
	return a.ID.String() + "/" + idem
}

// errNotYourAccessPoint refuses a command for an access point of another
// organization, or outside the actor's reach: the same answer for both.
var errNotYourAccessPoint = gatehouse.Invalid("accessPointId", "is not an access point of your organization")

// newCommand resolves r's access point (which reach must hold), location,
// universe and targets.
func (s *Service) newCommand(ctx context.Context, orgID uuid.UUID, r gatehouse.CommandRequest, a gatehouse.Actor, reach gatehouse.Reach, now time.Time) (gatehouse.IssuedCommand, error) {
	ap, err := s.store.FindAccessPoint(ctx, orgID, r.AccessPointID)
	if errors.Is(err, gatehouse.ErrNotFound) || err == nil && !reach.Has(ap.LocationID) {
		return gatehouse.IssuedCommand{}, errNotYourAccessPoint
	}
	if err != nil {
		return gatehouse.IssuedCommand{}, err
	}
	if err := ap.Writable(); err != nil {
		return gatehouse.IssuedCommand{}, err
	}
	loc, err := s.store.FindLocation(ctx, orgID, ap.LocationID)
	if err != nil {
		return gatehouse.IssuedCommand{}, err
	}
	if loc.UniverseID == nil {
		return gatehouse.IssuedCommand{}, gatehouse.Invalid("accessPointId", "its location %q names no universe: set the location's universeId first", loc.Name)
	}
	c := gatehouse.IssuedCommand{Command: gatehouse.Command{
		ID: gatehouse.NewID(), OrgID: orgID, Type: r.Type, Status: gatehouse.CommandPending, Scope: r.Scope,
		ServerJobID: r.ServerJobID, PlatformUserID: r.PlatformUserID, UniverseID: *loc.UniverseID,
		AccessPoint: gatehouse.NamedRef{ID: ap.ID, Name: ap.Name}, Location: gatehouse.NamedRef{ID: loc.ID, Name: loc.Name},
		DurationSeconds: r.DurationSeconds, Note: r.Note,
		IssuedAt: gatehouse.Time(now), ExpiresAt: gatehouse.Time(now.Add(time.Duration(r.TTLSeconds) * time.Second)), StatusAt: gatehouse.Time(now),
	}}
	id := a.ID
	if a.Type == gatehouse.ActorUser {
		c.RequestedByUser = &id
	} else {
		c.IssuedByKeyID = &id
	}
	live, err := s.store.LiveServers(ctx, orgID, c.UniverseID, now.Add(-gatehouse.LiveWindow), r.PlatformUserID)
	if err != nil {
		return gatehouse.IssuedCommand{}, err
	}
	switch r.Scope {
	case gatehouse.ScopeUniverse:
		for _, srv := range live {
			c.TargetJobIDs = append(c.TargetJobIDs, srv.JobID)
		}
	case gatehouse.ScopeServer:
		if slices.ContainsFunc(live, func(g gatehouse.GameServer) bool { return g.JobID == *r.ServerJobID }) {
			c.TargetJobIDs = []string{*r.ServerJobID}
		} else {
			c.Status, c.FailureReason = gatehouse.CommandFailed, new(gatehouse.FailServerNotLive)
		}
	case gatehouse.ScopePlayer:
		if len(live) > 0 {
			c.TargetJobIDs = []string{live[0].JobID}
		} else {
			c.Status, c.FailureReason = gatehouse.CommandFailed, new(gatehouse.FailPlayerNotOnline)
		}
	}
	return c, nil
}

// FindCommand returns one of the organization's commands with its
// deliveries, or [gatehouse.ErrNotFound].
func (s *Service) FindCommand(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Command, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.Command{}, err
	}
	return s.commandIn(ctx, orgID, id, reach)
}

// commandIn is the organization's command id, or [gatehouse.ErrNotFound]
// when reach does not hold its location.
func (s *Service) commandIn(ctx context.Context, orgID, id uuid.UUID, reach gatehouse.Reach) (gatehouse.Command, error) {
	c, err := s.store.FindCommand(ctx, orgID, id)
	if err != nil {
		return gatehouse.Command{}, err
	}
	return c, gatehouse.InReach(reach, c.Location.ID)
}

// ListCommands returns a page of the organization's commands matching f,
// newest first. f must pass [gatehouse.CommandFilter.Check].
func (s *Service) ListCommands(ctx context.Context, orgID uuid.UUID, f gatehouse.CommandFilter) (gatehouse.CommandPage, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.CommandPage{}, err
	}
	if err := f.Check(); err != nil {
		return gatehouse.CommandPage{}, err
	}
	f.Within = reach
	return s.store.ListCommands(ctx, orgID, f)
}

// CancelCommand cancels one of the organization's commands that is not
// settled yet; the servers that received it are told at their next sync.
// [gatehouse.ErrNotFound]; a [*gatehouse.ConflictError] when it is settled
// already, or a LOCKDOWN command (its lockdown's release ends it).
func (s *Service) CancelCommand(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Command, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermIssueCommands)
	if err != nil {
		return gatehouse.Command{}, err
	}
	if c, err := s.commandIn(ctx, orgID, id, reach); err != nil {
		return gatehouse.Command{}, err
	} else if c.Type == gatehouse.CommandLockdown {
		// A LOCKDOWN command ends with its lockdown's release, not alone.
		return c, &gatehouse.ConflictError{Field: "type", Message: "is LOCKDOWN: release its lockdown (POST /lockdowns/{id}/release) instead"}
	}
	e := s.entry(ctx, orgID, gatehouse.AuditCommandCancelled, gatehouse.TargetCommand)
	c, err := s.store.CancelCommand(ctx, e, orgID, id, s.Now())
	if errors.Is(err, gatehouse.ErrConflict) {
		return c, &gatehouse.ConflictError{Field: "status", Message: "is " + string(c.Status) + ": a settled command cannot be cancelled"}
	}
	if err != nil {
		return gatehouse.Command{}, err
	}
	// A cancel wakes the universe: any of its servers may have received
	// the command, and cancels are rare.
	s.wake(gatehouse.Wake{OrgID: orgID, UniverseID: c.UniverseID})
	return c, nil
}

// RunCommands does the background work of commands until ctx ends:
//   - it relays the wakes of other instances
//     ([gatehouse.CommandStore.WatchCommands]) to this one's waiting syncs;
//   - every second, holding the lease "commands.sweep" so that one
//     instance at a time does it, it expires the commands past their
//     deadline ([gatehouse.CommandStore.SweepCommands]);
//   - every second, it releases the lockdowns whose until came
//     ([Service.ExpireLockdowns]; each once, whichever instance).
//
// Every instance runs it; holder names this one. Errors are reported to
// report and retried.
func (s *Service) RunCommands(ctx context.Context, holder string, report func(error)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := s.store.WatchCommands(ctx, s.wake); err != nil && ctx.Err() == nil {
				report(err)
				clock.Sleep(ctx, time.Second)
			}
		}
	}()
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			<-done
			return
		case <-tick.C:
		}
		if err := s.SweepCommands(ctx, holder); err != nil && ctx.Err() == nil {
			report(err)
		}
		if err := s.ExpireLockdowns(ctx); err != nil && ctx.Err() == nil {
			report(err)
		}
	}
}

// SweepCommands expires the commands past their deadline when holder
// has (or takes) the sweep's lease; it does nothing otherwise.
func (s *Service) SweepCommands(ctx context.Context, holder string) error {
	now := s.Now()
	ok, err := s.store.TryLease(ctx, "commands.sweep", holder, now, sweepLease)
	if err != nil || !ok {
		return err
	}
	_, err = s.store.SweepCommands(ctx, now)
	return err
}

// SetLocationUniverse sets the platform universe of one of the
// organization's locations ("" clears it): its access points' commands go
// to that universe's servers.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "universeId";
//   - [gatehouse.ErrNotFound];
//   - a *[gatehouse.StateError] for an archived location;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) SetLocationUniverse(ctx context.Context, orgID, id uuid.UUID, universeID string) (gatehouse.Location, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageLocations); err != nil {
		return gatehouse.Location{}, err
	}
	if universeID != "" && !gatehouse.IsUniverseID(universeID) {
		return gatehouse.Location{}, gatehouse.Invalid("universeId", "must be a positive integer, as a string")
	}
	if err := s.writableLocation(ctx, orgID, id); err != nil {
		return gatehouse.Location{}, err
	}
	loc, err := s.store.SetLocationUniverse(ctx, s.entry(ctx, orgID, gatehouse.AuditLocationUniverseSet, gatehouse.TargetLocation), orgID, id, universeID)
	if err == nil {
		// A universe the location left is refused to syncs at once.
		s.policySets.forget(orgID)
	}
	return loc, err
}

// published hands an issued command to the publisher, if any.
func (s *Service) published(ctx context.Context, orgID uuid.UUID, c gatehouse.Command) {
	if s.publish != nil && c.Status == gatehouse.CommandPending {
		s.publish.Publish(context.WithoutCancel(ctx), orgID, c)
	}
}

// OrgOfCommand returns the organization of an issued command, or
// [gatehouse.ErrNotFound]: only the operator's CLI, given a bare id, asks.
func (s *Service) OrgOfCommand(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return s.store.OrgOfCommand(ctx, id)
}
