package service

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Sync is one call of a game server's loop (docs/api.md,
// "POST /servers/{serverJobId}/sync"). For a universe one of the
// organization's locations names, it:
//   - records the server as live in its universe with its players;
//   - applies its acknowledgements;
//   - answers the commands due to it, waiting up to r.WaitSeconds for one
//     to be issued on any instance, or for a grant of one of its players
//     to be made or revoked;
//   - answers, every time, the grants of its players in force or to
//     come ([gatehouse.MaxSyncGrants] at most, those that end soonest
//     first): the complete list, which the server keeps instead of its
//     own.
//
// Any other universe is [gatehouse.ErrUnknownUniverse]. Only an API key
// (scope server, checked by the API) syncs.
func (s *Service) Sync(ctx context.Context, orgID uuid.UUID, r gatehouse.SyncRequest) (gatehouse.SyncResult, error) {
	if a := gatehouse.ActorFrom(ctx); a.Type == gatehouse.ActorUser {
		return gatehouse.SyncResult{}, gatehouse.ErrForbidden
	}
	if err := gatehouse.RefuseReach(ctx); err != nil {
		return gatehouse.SyncResult{}, err
	}
	r, cursor, wait, err := r.Check()
	if err != nil {
		return gatehouse.SyncResult{}, err
	}
	// A universe none of the organization's locations names is refused
	// before anything is recorded or kept for it: job ids and universe
	// ids are the caller's to invent.
	if _, err := s.policySetVersion(ctx, orgID, r.UniverseID); err != nil {
		return gatehouse.SyncResult{}, err
	}
	now := s.Now()
	deadline := time.Now().Add(wait)
	players := r.Players
	if players == nil {
		players = []string{}
	}
	if err := s.store.Heartbeat(ctx, orgID, gatehouse.GameServer{JobID: r.ServerJobID, UniverseID: r.UniverseID,
		PlaceID: r.PlaceID, Players: players, SeenAt: now, StartedAt: now}, gatehouse.OrgServerCaps); err != nil {
		return gatehouse.SyncResult{}, err
	}
	res := gatehouse.SyncResult{Commands: []gatehouse.Command{}, RejectedAcks: []uuid.UUID{}}
	if len(r.Acks) > 0 {
		rejected, err := s.store.AckCommands(ctx, orgID, r.ServerJobID, r.Acks, now)
		if err != nil {
			return gatehouse.SyncResult{}, err
		}
		res.RejectedAcks = append(res.RejectedAcks, rejected...)
	}
	w := syncWait{orgID: orgID, jobID: r.ServerJobID, universeID: r.UniverseID, players: players, cursor: cursor, deadline: deadline}
	for {
		cmds, done, err := s.waitForCommands(ctx, &w, &res)
		if err != nil {
			return gatehouse.SyncResult{}, err
		}
		if done {
			res.Commands = append(res.Commands, cmds...)
			res.Grants = w.grants
			s.answered.answer(orgID, r.ServerJobID, w.grants)
			return s.withPolicyVersion(ctx, orgID, r.UniverseID, res)
		}
	}
}

// syncWait is what a sync's long poll waits with: the server, the
// players it hosts, the cursor it sent, and the grants of its players
// as last read (read false before the first read).
type syncWait struct {
	orgID             uuid.UUID
	jobID, universeID string
	players           []string
	cursor            int64
	deadline          time.Time
	grants            []gatehouse.Grant
	digest            uint64
	read              bool
}

// waitForCommands is one round of a sync's long poll: it takes the
// commands due to the server and reads its players' grants and, when
// there are no commands, the grants did not change since the last round
// and the deadline is not past, waits for a wake, the deadline or the
// instance's stop. done says the sync answers now with cmds; res.Cursor
// and w.grants are set. The channels it waits on are left before it
// returns.
func (s *Service) waitForCommands(ctx context.Context, w *syncWait, res *gatehouse.SyncResult) (cmds []gatehouse.Command, done bool, err error) {
	universe, server, leave := s.wakes.Wait(w.orgID, w.universeID, w.jobID)
	defer leave()
	cmds, gen, err := s.take(ctx, w.orgID, w.jobID, w.universeID, w.cursor)
	if err != nil {
		return nil, false, err
	}
	res.Cursor = gatehouse.FormatCursor(gen)
	grants, err := s.syncGrants(ctx, w.orgID, w.players, s.Now())
	if err != nil {
		return nil, false, err
	}
	// A grant made or revoked for one of its players wakes the server:
	// it answers with the new list. The first read compares with what
	// this instance answered the server last (see answeredGrants).
	digest := grantsDigest(grants)
	changed := digest != w.digest
	if !w.read {
		changed = s.answered.changed(w.orgID, w.jobID, grants)
	}
	w.grants, w.digest, w.read = grants, digest, true
	left := time.Until(w.deadline)
	if len(cmds) > 0 || changed || left <= 0 {
		return cmds, true, nil
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case <-universe:
	case <-server:
	case <-timer.C:
	case <-s.ending:
		// The instance is stopping: answer now, with nothing new.
		return nil, true, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	return nil, false, nil
}

// withPolicyVersion completes a sync answer with the version of the
// universe's policy set, so that a server refetches the set (GET
// /policies) when it changed.
func (s *Service) withPolicyVersion(ctx context.Context, orgID uuid.UUID, universeID string, res gatehouse.SyncResult) (gatehouse.SyncResult, error) {
	v, err := s.policySetVersion(ctx, orgID, universeID)
	if err != nil {
		return gatehouse.SyncResult{}, err
	}
	res.PolicyVersion = v
	return res, nil
}

// EndPolls answers every waiting sync at once and every later one
// without waiting: the instance is stopping, and its long polls must not
// hold the drain.
func (s *Service) EndPolls() { s.endOnce.Do(func() { close(s.ending) }) }

// Background work of commands: how often it runs and how long an
// instance holds the sweep's lease.
const (
	sweepEvery = time.Second
	sweepLease = 5 * time.Second
)
