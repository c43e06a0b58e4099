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

func (r *Router) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	return routedTo(r, ctx, method("Store.IngestEvents", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.IngestResult, error) {
		return db.IngestEvents(ctx, orgID, events)
	})
}

func (r *Router) ReadFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (gatehouse.FeedPage, error) {
	return routedTo(r, ctx, method("Store.ReadFeed", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.FeedPage, error) {
		return db.ReadFeed(ctx, orgID, f, after)
	})
}

func (r *Router) CountFeed(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, after gatehouse.FeedPosition) (int64, error) {
	return routedTo(r, ctx, method("Store.CountFeed", orgID), func(ctx context.Context, db *postgres.DB) (int64, error) { return db.CountFeed(ctx, orgID, f, after) })
}

func (r *Router) FeedCursorCeiling(ctx context.Context, orgID uuid.UUID) (gatehouse.FeedPosition, error) {
	return routedTo(r, ctx, method("Store.FeedCursorCeiling", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.FeedPosition, error) {
		return db.FeedCursorCeiling(ctx, orgID)
	})
}

func (r *Router) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	return routedTo(r, ctx, method("Store.ListEvents", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.EventPage, error) {
		return db.ListEvents(ctx, orgID, f)
	})
}

func (r *Router) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) ([]gatehouse.EventCount, error) {
	return routedTo(r, ctx, method("Store.CountEvents", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.EventCount, error) {
		return db.CountEvents(ctx, orgID, f, step)
	})
}

func (r *Router) CountInsights(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, by gatehouse.InsightGroup, limit int) ([]gatehouse.InsightCount, error) {
	return routedTo(r, ctx, method("Store.CountInsights", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.InsightCount, error) {
		return db.CountInsights(ctx, orgID, f, by, limit)
	})
}

func (r *Router) MeasureStorage(ctx context.Context, orgID uuid.UUID, sample int) (gatehouse.StorageReport, error) {
	return routedTo(r, ctx, method("Store.MeasureStorage", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.StorageReport, error) {
		return db.MeasureStorage(ctx, orgID, sample)
	})
}

func (r *Router) SetRetention(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, days int) (gatehouse.Organization, error) {
	return routedTo(r, ctx, method("Store.SetRetention", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Organization, error) {
		return db.SetRetention(ctx, e, orgID, days)
	})
}

func (r *Router) DeleteEventsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return routedTo(r, ctx, method("Store.DeleteEventsBefore", orgID), func(ctx context.Context, db *postgres.DB) (int, error) {
		return db.DeleteEventsBefore(ctx, orgID, before, limit)
	})
}

func (r *Router) DeletePlayerEvents(ctx context.Context, orgID uuid.UUID, platformUserID string, limit int) (int, error) {
	return routedTo(r, ctx, method("Store.DeletePlayerEvents", orgID), func(ctx context.Context, db *postgres.DB) (int, error) {
		return db.DeletePlayerEvents(ctx, orgID, platformUserID, limit)
	})
}

func (r *Router) DeleteCommandsBefore(ctx context.Context, orgID uuid.UUID, before time.Time, limit int) (int, error) {
	return routedTo(r, ctx, method("Store.DeleteCommandsBefore", orgID), func(ctx context.Context, db *postgres.DB) (int, error) {
		return db.DeleteCommandsBefore(ctx, orgID, before, limit)
	})
}

func (r *Router) PruneTerms(ctx context.Context, orgID uuid.UUID) (int, error) {
	return routedTo(r, ctx, method("Store.PruneTerms", orgID), func(ctx context.Context, db *postgres.DB) (int, error) { return db.PruneTerms(ctx, orgID) })
}

func (r *Router) OldestEvent(ctx context.Context, orgID uuid.UUID) (oldest time.Time, found bool, err error) {
	db, err := r.of(ctx, method("Store.OldestEvent", orgID))
	if err != nil {
		return oldest, found, err
	}
	return db.OldestEvent(ctx, orgID)
}

func (r *Router) FinishErasure(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, platformUserID string) (int, error) {
	return routedTo(r, ctx, method("Store.FinishErasure", orgID), func(ctx context.Context, db *postgres.DB) (int, error) {
		return db.FinishErasure(ctx, e, orgID, platformUserID)
	})
}

func (r *Router) SetErasureIntegration(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, tokenHash [32]byte, sealedToken []byte, sealedSecret []byte, at time.Time) error {
	return routed(r, ctx, method("Store.SetErasureIntegration", orgID), func(ctx context.Context, db *postgres.DB) error {
		return db.SetErasureIntegration(ctx, e, orgID, tokenHash, sealedToken, sealedSecret, at)
	})
}

func (r *Router) FindErasureIntegration(ctx context.Context, orgID uuid.UUID) (sealedToken []byte, sealedSecret []byte, createdAt time.Time, err error) {
	db, err := r.of(ctx, method("Store.FindErasureIntegration", orgID))
	if err != nil {
		return sealedToken, sealedSecret, createdAt, err
	}
	return db.FindErasureIntegration(ctx, orgID)
}

func (r *Router) ClaimErasure(ctx context.Context, orgID uuid.UUID, notificationID string, now time.Time, lease time.Duration) (claimed bool, done bool, err error) {
	db, err := r.of(ctx, method("Store.ClaimErasure", orgID))
	if err != nil {
		return claimed, done, err
	}
	return db.ClaimErasure(ctx, orgID, notificationID, now, lease)
}

func (r *Router) ReleaseErasure(ctx context.Context, orgID uuid.UUID, notificationID string) error {
	return routed(r, ctx, method("Store.ReleaseErasure", orgID), func(ctx context.Context, db *postgres.DB) error { return db.ReleaseErasure(ctx, orgID, notificationID) })
}

func (r *Router) RecordErasureRequest(ctx context.Context, orgID uuid.UUID, request gatehouse.ErasureRequest) error {
	return routed(r, ctx, method("Store.RecordErasureRequest", orgID), func(ctx context.Context, db *postgres.DB) error { return db.RecordErasureRequest(ctx, orgID, request) })
}

func (r *Router) ListErasureRequests(ctx context.Context, orgID uuid.UUID, limit int) ([]gatehouse.ErasureRequest, error) {
	return routedTo(r, ctx, method("Store.ListErasureRequests", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.ErasureRequest, error) {
		return db.ListErasureRequests(ctx, orgID, limit)
	})
}
