package shards

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// Each method here runs on the shard of its organization (Router.of), in
// one statement of the same form: a Store method added later is routed by
// writing its own.

func (r *Router) CreateCommand(ctx context.Context, e gatehouse.AuditEntry, c gatehouse.IssuedCommand) (gatehouse.Command, error) {
	return routedTo(r, ctx, method("Store.CreateCommand", c.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Command, error) {
		return db.CreateCommand(ctx, e, c)
	})
}

func (r *Router) FindIdempotencyKey(ctx context.Context, orgID uuid.UUID, key string, since time.Time) (commandID uuid.UUID, hash [32]byte, err error) {
	db, err := r.of(ctx, method("Store.FindIdempotencyKey", orgID))
	if err != nil {
		return commandID, hash, err
	}
	return db.FindIdempotencyKey(ctx, orgID, key, since)
}

func (r *Router) FindCommand(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.Command, error) {
	return routedTo(r, ctx, method("Store.FindCommand", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Command, error) {
		return db.FindCommand(ctx, orgID, id)
	})
}

func (r *Router) ListCommands(ctx context.Context, orgID uuid.UUID, f gatehouse.CommandFilter) (gatehouse.CommandPage, error) {
	return routedTo(r, ctx, method("Store.ListCommands", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.CommandPage, error) {
		return db.ListCommands(ctx, orgID, f)
	})
}

func (r *Router) CancelCommand(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, at time.Time) (gatehouse.Command, error) {
	return routedTo(r, ctx, method("Store.CancelCommand", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Command, error) {
		return db.CancelCommand(ctx, e, orgID, id, at)
	})
}

func (r *Router) Heartbeat(ctx context.Context, orgID uuid.UUID, s gatehouse.GameServer, caps gatehouse.ServerCaps) error {
	return routed(r, ctx, method("Store.Heartbeat", orgID), func(ctx context.Context, db *postgres.DB) error { return db.Heartbeat(ctx, orgID, s, caps) })
}

func (r *Router) LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) ([]gatehouse.GameServer, error) {
	return routedTo(r, ctx, method("Store.LiveServers", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.GameServer, error) {
		return db.LiveServers(ctx, orgID, universeID, since, player)
	})
}

func (r *Router) AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []gatehouse.Ack, at time.Time) ([]uuid.UUID, error) {
	return routedTo(r, ctx, method("Store.AckCommands", orgID), func(ctx context.Context, db *postgres.DB) ([]uuid.UUID, error) {
		return db.AckCommands(ctx, orgID, jobID, acks, at)
	})
}

func (r *Router) TakeCommands(ctx context.Context, orgID uuid.UUID, jobID string, universeID string, cursor int64, now time.Time) (commands []gatehouse.Command, next int64, err error) {
	db, err := r.of(ctx, method("Store.TakeCommands", orgID))
	if err != nil {
		return commands, next, err
	}
	return db.TakeCommands(ctx, orgID, jobID, universeID, cursor, now)
}

func (r *Router) TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []gatehouse.TakeRequest, now time.Time) ([]gatehouse.Taken, error) {
	return routedTo(r, ctx, method("Store.TakeCommandsBatch", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Taken, error) {
		return db.TakeCommandsBatch(ctx, orgID, universeID, reqs, now)
	})
}

func (r *Router) CreateGrant(ctx context.Context, e gatehouse.AuditEntry, g gatehouse.NewGrant) (grant gatehouse.Grant, created bool, err error) {
	db, err := r.of(ctx, method("Store.CreateGrant", g.OrgID))
	if err != nil {
		return grant, created, err
	}
	return db.CreateGrant(ctx, e, g)
}

func (r *Router) FindGrant(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.Grant, error) {
	return routedTo(r, ctx, method("Store.FindGrant", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Grant, error) {
		return db.FindGrant(ctx, orgID, id)
	})
}

func (r *Router) ListGrants(ctx context.Context, orgID uuid.UUID, f gatehouse.GrantFilter) (gatehouse.GrantPage, error) {
	return routedTo(r, ctx, method("Store.ListGrants", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.GrantPage, error) {
		return db.ListGrants(ctx, orgID, f)
	})
}

func (r *Router) RevokeGrant(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, at time.Time, wakes []gatehouse.Wake) (grant gatehouse.Grant, revoked bool, err error) {
	db, err := r.of(ctx, method("Store.RevokeGrant", orgID, id))
	if err != nil {
		return grant, revoked, err
	}
	return db.RevokeGrant(ctx, e, orgID, id, at, wakes)
}

func (r *Router) RunningGrants(ctx context.Context, orgID uuid.UUID, accessPointID uuid.UUID, locationID uuid.UUID, player string, at time.Time) ([]gatehouse.ActiveGrant, error) {
	return routedTo(r, ctx, method("Store.RunningGrants", orgID, accessPointID, locationID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.ActiveGrant, error) {
		return db.RunningGrants(ctx, orgID, accessPointID, locationID, player, at)
	})
}

func (r *Router) LiveGrants(ctx context.Context, orgID uuid.UUID, players []string, now time.Time, limit int) ([]gatehouse.Grant, error) {
	return routedTo(r, ctx, method("Store.LiveGrants", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Grant, error) {
		return db.LiveGrants(ctx, orgID, players, now, limit)
	})
}

func (r *Router) PlayerServers(ctx context.Context, orgID uuid.UUID, player string, since time.Time) ([]gatehouse.GameServer, error) {
	return routedTo(r, ctx, method("Store.PlayerServers", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.GameServer, error) {
		return db.PlayerServers(ctx, orgID, player, since)
	})
}

func (r *Router) CreateLockdown(ctx context.Context, e gatehouse.AuditEntry, l gatehouse.NewLockdown) (gatehouse.Lockdown, error) {
	return routedTo(r, ctx, method("Store.CreateLockdown", l.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Lockdown, error) {
		return db.CreateLockdown(ctx, e, l)
	})
}

func (r *Router) FindLockdown(ctx context.Context, orgID uuid.UUID, id uuid.UUID, now time.Time) (gatehouse.Lockdown, error) {
	return routedTo(r, ctx, method("Store.FindLockdown", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Lockdown, error) {
		return db.FindLockdown(ctx, orgID, id, now)
	})
}

func (r *Router) ListLockdowns(ctx context.Context, orgID uuid.UUID, f gatehouse.LockdownFilter) (gatehouse.LockdownPage, error) {
	return routedTo(r, ctx, method("Store.ListLockdowns", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.LockdownPage, error) {
		return db.ListLockdowns(ctx, orgID, f)
	})
}

func (r *Router) ReleaseLockdown(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, release gatehouse.LockdownRelease) (lockdown gatehouse.Lockdown, released bool, err error) {
	db, err := r.of(ctx, method("Store.ReleaseLockdown", orgID, id))
	if err != nil {
		return lockdown, released, err
	}
	return db.ReleaseLockdown(ctx, e, orgID, id, release)
}

func (r *Router) LockdownsOf(ctx context.Context, orgID uuid.UUID, locationID uuid.UUID, universeID string, at time.Time) ([]gatehouse.Lockdown, error) {
	return routedTo(r, ctx, method("Store.LockdownsOf", orgID, locationID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Lockdown, error) {
		return db.LockdownsOf(ctx, orgID, locationID, universeID, at)
	})
}

func (r *Router) UniverseLockdowns(ctx context.Context, orgID uuid.UUID, universeID string, now time.Time) ([]gatehouse.Lockdown, error) {
	return routedTo(r, ctx, method("Store.UniverseLockdowns", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Lockdown, error) {
		return db.UniverseLockdowns(ctx, orgID, universeID, now)
	})
}

func (r *Router) OrgUniverses(ctx context.Context, orgID uuid.UUID) ([]string, error) {
	return routedTo(r, ctx, method("Store.OrgUniverses", orgID), func(ctx context.Context, db *postgres.DB) ([]string, error) { return db.OrgUniverses(ctx, orgID) })
}

func (r *Router) ReadLockdownChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) ([]gatehouse.LockdownChange, error) {
	return routedTo(r, ctx, method("Store.ReadLockdownChanges", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.LockdownChange, error) {
		return db.ReadLockdownChanges(ctx, orgID, after, limit)
	})
}
