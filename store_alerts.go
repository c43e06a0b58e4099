package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// AlertStore is the part of Store that keeps alert rules, the alerts they
// fired and the attempts at delivering them. Threshold rules are
// evaluated, and alerts delivered, under leases in the database, so that
// every instance may do either and no alert is made or sent twice.
//
// Audit rules need no evaluation: every store appends an audit entry of
// an action an audit rule names together with its alert, in the
// transaction of the change (unless one of the same rule, action and
// target fired within the rule's cooldown).
type AlertStore interface {
	// CreateAlertRule stores an organization's rule r (ID, Name,
	// Condition, Destination, CooldownSeconds, CreatedAt set) with its
	// sealed secret (nil but for standard-webhooks), its feed position at
	// the head of the organization's feed, due at once, and records it.
	// [ErrNotFound] for an unknown organization; [ErrConflict] when it has
	// [MaxAlertRules] already.
	CreateAlertRule(ctx context.Context, e AuditEntry, r AlertRule, sealed []byte) (AlertRule, error)
	// ListAlertRules returns an organization's rules, oldest first.
	ListAlertRules(ctx context.Context, orgID uuid.UUID) ([]AlertRule, error)
	// FindAlertRule returns an organization's rule, or [ErrNotFound].
	FindAlertRule(ctx context.Context, orgID, id uuid.UUID) (AlertRule, error)
	// UpdateAlertRule applies c to an organization's rule at now and
	// records what changed (nothing changed: nothing recorded). A new
	// condition moves its feed position to the head of the feed and its
	// generation, so an evaluation under way saves nothing; sealed, when
	// not nil, replaces the secret. [ErrNotFound].
	UpdateAlertRule(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, c AlertRuleChange, sealed []byte, now time.Time) (AlertRule, error)
	// AlertRuleSecret returns the sealed secret of an organization's
	// rule (nil when it has none). [ErrNotFound].
	AlertRuleSecret(ctx context.Context, orgID, id uuid.UUID) ([]byte, error)
	// DeleteAlertRule deletes an organization's rule, its alerts and
	// their delivery log, and records it. [ErrNotFound].
	DeleteAlertRule(ctx context.Context, e AuditEntry, orgID, id uuid.UUID) error
	// AddAlert stores a, an alert of an organization's rule a.RuleID
	// (a test), its delivery due at once. [ErrNotFound].
	AddAlert(ctx context.Context, a Alert) (Alert, error)
	// ListAlerts returns a page of an organization's alerts matching f,
	// newest first, without their attempts.
	ListAlerts(ctx context.Context, orgID uuid.UUID, f AlertFilter) (AlertPage, error)
	// FindAlert returns an organization's alert with its attempts,
	// newest first. [ErrNotFound].
	FindAlert(ctx context.Context, orgID, id uuid.UUID) (Alert, error)
	// ClaimAlertRule leases to holder, until now+ttl, a threshold rule
	// that is due and not leased by another holder. [ErrNotFound] when
	// none is due. Instances that claim at once get different rules.
	ClaimAlertRule(ctx context.Context, holder string, now time.Time, ttl time.Duration) (AlertRuleClaim, error)
	// SaveAlertEvaluation stores an evaluation in one transaction, when
	// holder still holds the lease and the generation is the rule's:
	//   - each alert, unless one of the same rule and group fired within
	//     the rule's cooldown before it, its delivery due at once;
	//   - the feed position, when the rule is due next and, with Release,
	//     the lease's end.
	//
	// When the lease or the generation moved, nothing is stored and the
	// error is [ErrConflict].
	SaveAlertEvaluation(ctx context.Context, p AlertEvaluation) ([]Alert, error)
	// ClaimAlert leases to holder, until now+ttl, an alert whose delivery
	// is pending and due, and not leased by another holder, with its
	// rule's destination and sealed secret. [ErrNotFound] when none is
	// due.
	ClaimAlert(ctx context.Context, holder string, now time.Time, ttl time.Duration) (AlertClaim, error)
	// SaveAlertAttempt stores an attempt and the alert's delivery state
	// (due again at NextAt while pending) and ends the lease, when holder
	// still holds it; otherwise [ErrConflict] and nothing is stored.
	SaveAlertAttempt(ctx context.Context, r AlertAttemptResult) error
}
