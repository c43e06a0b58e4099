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

func (r *Router) CreateAlertRule(ctx context.Context, e gatehouse.AuditEntry, rule gatehouse.AlertRule, sealed []byte) (gatehouse.AlertRule, error) {
	return routedTo(r, ctx, method("Store.CreateAlertRule", rule.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.AlertRule, error) {
		return db.CreateAlertRule(ctx, e, rule, sealed)
	})
}

func (r *Router) ListAlertRules(ctx context.Context, orgID uuid.UUID) ([]gatehouse.AlertRule, error) {
	return routedTo(r, ctx, method("Store.ListAlertRules", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.AlertRule, error) {
		return db.ListAlertRules(ctx, orgID)
	})
}

func (r *Router) FindAlertRule(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.AlertRule, error) {
	return routedTo(r, ctx, method("Store.FindAlertRule", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.AlertRule, error) {
		return db.FindAlertRule(ctx, orgID, id)
	})
}

func (r *Router) UpdateAlertRule(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, c gatehouse.AlertRuleChange, sealed []byte, now time.Time) (gatehouse.AlertRule, error) {
	return routedTo(r, ctx, method("Store.UpdateAlertRule", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.AlertRule, error) {
		return db.UpdateAlertRule(ctx, e, orgID, id, c, sealed, now)
	})
}

func (r *Router) AlertRuleSecret(ctx context.Context, orgID uuid.UUID, id uuid.UUID) ([]byte, error) {
	return routedTo(r, ctx, method("Store.AlertRuleSecret", orgID, id), func(ctx context.Context, db *postgres.DB) ([]byte, error) { return db.AlertRuleSecret(ctx, orgID, id) })
}

func (r *Router) DeleteAlertRule(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID) error {
	return routed(r, ctx, method("Store.DeleteAlertRule", orgID, id), func(ctx context.Context, db *postgres.DB) error { return db.DeleteAlertRule(ctx, e, orgID, id) })
}

func (r *Router) AddAlert(ctx context.Context, a gatehouse.Alert) (gatehouse.Alert, error) {
	return routedTo(r, ctx, method("Store.AddAlert", a.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Alert, error) { return db.AddAlert(ctx, a) })
}

func (r *Router) ListAlerts(ctx context.Context, orgID uuid.UUID, f gatehouse.AlertFilter) (gatehouse.AlertPage, error) {
	return routedTo(r, ctx, method("Store.ListAlerts", orgID), func(ctx context.Context, db *postgres.DB) (gatehouse.AlertPage, error) {
		return db.ListAlerts(ctx, orgID, f)
	})
}

func (r *Router) FindAlert(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.Alert, error) {
	return routedTo(r, ctx, method("Store.FindAlert", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Alert, error) {
		return db.FindAlert(ctx, orgID, id)
	})
}

func (r *Router) SaveAlertEvaluation(ctx context.Context, p gatehouse.AlertEvaluation) ([]gatehouse.Alert, error) {
	return routedTo(r, ctx, method("Store.SaveAlertEvaluation", p.OrgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Alert, error) {
		return db.SaveAlertEvaluation(ctx, p)
	})
}

func (r *Router) SaveAlertAttempt(ctx context.Context, result gatehouse.AlertAttemptResult) error {
	return routed(r, ctx, method("Store.SaveAlertAttempt", result.OrgID), func(ctx context.Context, db *postgres.DB) error { return db.SaveAlertAttempt(ctx, result) })
}

func (r *Router) CreateWebhook(ctx context.Context, e gatehouse.AuditEntry, w gatehouse.Webhook, filters string, sealed []byte) (gatehouse.Webhook, error) {
	return routedTo(r, ctx, method("Store.CreateWebhook", w.OrgID), func(ctx context.Context, db *postgres.DB) (gatehouse.Webhook, error) {
		return db.CreateWebhook(ctx, e, w, filters, sealed)
	})
}

func (r *Router) ListWebhooks(ctx context.Context, orgID uuid.UUID) ([]gatehouse.Webhook, error) {
	return routedTo(r, ctx, method("Store.ListWebhooks", orgID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.Webhook, error) {
		return db.ListWebhooks(ctx, orgID)
	})
}

func (r *Router) FindWebhook(ctx context.Context, orgID uuid.UUID, id uuid.UUID) (gatehouse.Webhook, error) {
	return routedTo(r, ctx, method("Store.FindWebhook", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Webhook, error) {
		return db.FindWebhook(ctx, orgID, id)
	})
}

func (r *Router) UpdateWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, c gatehouse.WebhookChange, now time.Time) (gatehouse.Webhook, error) {
	return routedTo(r, ctx, method("Store.UpdateWebhook", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Webhook, error) {
		return db.UpdateWebhook(ctx, e, orgID, id, c, now)
	})
}

func (r *Router) WebhookSecret(ctx context.Context, orgID uuid.UUID, id uuid.UUID) ([]byte, error) {
	return routedTo(r, ctx, method("Store.WebhookSecret", orgID, id), func(ctx context.Context, db *postgres.DB) ([]byte, error) { return db.WebhookSecret(ctx, orgID, id) })
}

func (r *Router) RotateWebhookSecret(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID, old []byte, sealed []byte, previousUntil *time.Time) (gatehouse.Webhook, error) {
	return routedTo(r, ctx, method("Store.RotateWebhookSecret", orgID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.Webhook, error) {
		return db.RotateWebhookSecret(ctx, e, orgID, id, old, sealed, previousUntil)
	})
}

func (r *Router) DeleteWebhook(ctx context.Context, e gatehouse.AuditEntry, orgID uuid.UUID, id uuid.UUID) error {
	return routed(r, ctx, method("Store.DeleteWebhook", orgID, id), func(ctx context.Context, db *postgres.DB) error { return db.DeleteWebhook(ctx, e, orgID, id) })
}

func (r *Router) AddWebhookDelivery(ctx context.Context, orgID uuid.UUID, webhookID uuid.UUID, d gatehouse.WebhookDelivery) (gatehouse.WebhookDelivery, error) {
	return routedTo(r, ctx, method("Store.AddWebhookDelivery", orgID, webhookID), func(ctx context.Context, db *postgres.DB) (gatehouse.WebhookDelivery, error) {
		return db.AddWebhookDelivery(ctx, orgID, webhookID, d)
	})
}

func (r *Router) FindWebhookDelivery(ctx context.Context, orgID uuid.UUID, webhookID uuid.UUID, id uuid.UUID) (gatehouse.WebhookDelivery, error) {
	return routedTo(r, ctx, method("Store.FindWebhookDelivery", orgID, webhookID, id), func(ctx context.Context, db *postgres.DB) (gatehouse.WebhookDelivery, error) {
		return db.FindWebhookDelivery(ctx, orgID, webhookID, id)
	})
}

func (r *Router) ListWebhookDeliveries(ctx context.Context, orgID uuid.UUID, webhookID uuid.UUID, limit int) ([]gatehouse.WebhookDelivery, error) {
	return routedTo(r, ctx, method("Store.ListWebhookDeliveries", orgID, webhookID), func(ctx context.Context, db *postgres.DB) ([]gatehouse.WebhookDelivery, error) {
		return db.ListWebhookDeliveries(ctx, orgID, webhookID, limit)
	})
}

func (r *Router) SaveWebhookProgress(ctx context.Context, p gatehouse.WebhookProgress) error {
	return routed(r, ctx, method("Store.SaveWebhookProgress", p.OrgID), func(ctx context.Context, db *postgres.DB) error { return db.SaveWebhookProgress(ctx, p) })
}

func (r *Router) ReadCommandChanges(ctx context.Context, orgID uuid.UUID, after gatehouse.FeedPosition, limit int) (changes []gatehouse.CommandChange, next gatehouse.FeedPosition, err error) {
	db, err := r.of(ctx, method("Store.ReadCommandChanges", orgID))
	if err != nil {
		return changes, next, err
	}
	return db.ReadCommandChanges(ctx, orgID, after, limit)
}
