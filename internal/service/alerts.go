package service

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// AlertSend sends one alert: a POST of body with header to url. It returns
// the response's status, headers (for Retry-After) and the start of its
// body, or the error that kept it from getting one.
type AlertSend func(ctx context.Context, url string, header http.Header, body []byte) (status int, answer http.Header, response []byte, err error)

// AlertSettings configure alert rules. Zero values are the defaults beside
// them; tests shorten the durations. Addresses follow the webhooks'
// [WebhookSettings.AllowPrivate], and retries their RetryBase, RetryMax
// and RetryFor.
type AlertSettings struct {
	// DashboardURL is where the dashboard is served to people (the
	// server's public URL, --public-url): the links of alerts start with
	// it. Empty: links are paths (/dashboard/events?...).
	DashboardURL string
	// Send sends an alert; [Service.RunAlerts] needs it.
	Send AlertSend
	// Workers is how many alerts one instance sends at once (4).
	Workers int
	// Lease is how long a claim on a rule's evaluation or an alert's
	// delivery lasts (30 s): longer than a send's 10 s.
	Lease time.Duration
	// Poll is how often an instance with nothing to do looks for a rule
	// due or an alert to send (250 ms); Idle is how soon a rule that had
	// nothing new is evaluated again (1 s). An alert fires at most about
	// Idle + Poll after the event that crosses its threshold is stored.
	Poll, Idle time.Duration
}

func (a *AlertSettings) defaults() {
	if a.Workers == 0 {
		a.Workers = 4
	}
	if a.Lease == 0 {
		a.Lease = 30 * time.Second
	}
	if a.Poll == 0 {
		a.Poll = 250 * time.Millisecond
	}
	if a.Idle == 0 {
		a.Idle = time.Second
	}
	a.DashboardURL = strings.TrimSuffix(a.DashboardURL, "/")
}

// CreateAlertRule makes a rule for the organization and returns it with
// the secret of a standard-webhooks destination (empty otherwise): the
// only time the secret is shown. A threshold rule counts the events stored
// from now on.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed by field;
//   - [gatehouse.ErrConflict] past [gatehouse.MaxAlertRules];
//   - [gatehouse.ErrForbidden] unless the acting user is an admin;
//   - a [*gatehouse.ScopeError] for a key that could not read what the
//     rule's alerts tell (events:read for threshold, audit:read for audit).
func (s *Service) CreateAlertRule(ctx context.Context, orgID uuid.UUID, in gatehouse.AlertRuleInput) (gatehouse.AlertRule, string, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	c, err := gatehouse.CheckAlertRule(in, true, s.webhooks.AllowPrivate)
	if err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	if err := mayAlert(ctx, *c.Condition); err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	now := gatehouse.Time(gatehouse.Truncate(s.Now()))
	r := gatehouse.AlertRule{ID: gatehouse.NewID(), OrgID: orgID, Name: *c.Name, Condition: *c.Condition, Destination: *c.Destination,
		CooldownSeconds: *c.CooldownSeconds, CreatedAt: now, UpdatedAt: now}
	secret, sealed, err := s.alertSecret(ctx, orgID, r.ID, r.Destination, nil)
	if err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	r, err = s.store.CreateAlertRule(ctx, s.entry(ctx, orgID, gatehouse.AuditAlertRuleCreated, gatehouse.TargetAlertRule), r, sealed)
	return r, secret, err
}

// alertSecret makes the secret of a standard-webhooks destination d of
// the rule id that has none (old, its sealed secret, is nil): the secret
// and its sealed form; empty and nil otherwise.
func (s *Service) alertSecret(ctx context.Context, orgID, id uuid.UUID, d gatehouse.AlertDestination, old []byte) (string, []byte, error) {
	if d.Format != gatehouse.AlertStandardWebhook || old != nil {
		return "", nil, nil
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return "", nil, err
	}
	secret := gatehouse.NewWebhookSecret()
	return secret, sealer.Seal(orgID, gatehouse.AlertRuleSealLabel(id), []byte(secret)), nil
}

// mayAlert refuses, with a [*gatehouse.ScopeError], a key that makes a
// rule whose alerts tell what the key could not read itself.
func mayAlert(ctx context.Context, c gatehouse.AlertCondition) error {
	a := gatehouse.ActorFrom(ctx)
	if c.Kind == gatehouse.AlertAudit {
		return gatehouse.RequireKeyScope(a, gatehouse.ScopeAuditRead, "an audit alert rule tells audit entries, which needs")
	}
	return gatehouse.RequireKeyScope(a, gatehouse.ScopeEventsRead, "a threshold alert rule tells players and doors of events, which needs")
}

// ListAlertRules returns the organization's rules, oldest first.
func (s *Service) ListAlertRules(ctx context.Context, orgID uuid.UUID) ([]gatehouse.AlertRule, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return nil, err
	}
	return s.store.ListAlertRules(ctx, orgID)
}

// FindAlertRule returns one of the organization's rules, or
// [gatehouse.ErrNotFound].
func (s *Service) FindAlertRule(ctx context.Context, orgID, id uuid.UUID) (gatehouse.AlertRule, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.AlertRule{}, err
	}
	return s.store.FindAlertRule(ctx, orgID, id)
}

// UpdateAlertRule changes the fields in gives of one of the organization's
// rules; a new condition counts from the events stored from now on. A
// destination that becomes standard-webhooks gets a secret, returned
// here only. Errors as [Service.CreateAlertRule], and
// [gatehouse.ErrNotFound].
func (s *Service) UpdateAlertRule(ctx context.Context, orgID, id uuid.UUID, in gatehouse.AlertRuleInput) (gatehouse.AlertRule, string, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	c, err := gatehouse.CheckAlertRule(in, false, s.webhooks.AllowPrivate)
	if err != nil {
		return gatehouse.AlertRule{}, "", err
	}
	if c.Condition != nil {
		if err := mayAlert(ctx, *c.Condition); err != nil {
			return gatehouse.AlertRule{}, "", err
		}
	}
	var (
		secret string
		sealed []byte
	)
	if c.Destination != nil {
		old, err := s.store.AlertRuleSecret(ctx, orgID, id)
		if err != nil {
			return gatehouse.AlertRule{}, "", err
		}
		if secret, sealed, err = s.alertSecret(ctx, orgID, id, *c.Destination, old); err != nil {
			return gatehouse.AlertRule{}, "", err
		}
	}
	r, err := s.store.UpdateAlertRule(ctx, s.entry(ctx, orgID, gatehouse.AuditAlertRuleChanged, gatehouse.TargetAlertRule), orgID, id, c, sealed, s.Now())
	return r, secret, err
}

// DeleteAlertRule deletes one of the organization's rules with the alerts
// it fired. [gatehouse.ErrNotFound].
func (s *Service) DeleteAlertRule(ctx context.Context, orgID, id uuid.UUID) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return err
	}
	return s.store.DeleteAlertRule(ctx, s.entry(ctx, orgID, gatehouse.AuditAlertRuleDeleted, gatehouse.TargetAlertRule), orgID, id)
}

// TestAlertRule queues a test alert of one of the organization's rules,
// sent to its destination like any alert (and listed with them, "test":
// true). [gatehouse.ErrNotFound].
func (s *Service) TestAlertRule(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Alert, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Alert{}, err
	}
	r, err := s.store.FindAlertRule(ctx, orgID, id)
	if err != nil {
		return gatehouse.Alert{}, err
	}
	now := gatehouse.Time(gatehouse.Truncate(s.Now()))
	a := gatehouse.Alert{ID: gatehouse.NewID(), OrgID: orgID, RuleID: id, RuleName: r.Name, Kind: r.Condition.Kind, Test: true,
		GroupBy: string(r.Condition.GroupBy), WindowSeconds: r.Condition.WindowSeconds, WindowStart: now, WindowEnd: now, FiredAt: now,
		Filters: r.Condition.Filters}
	if r.Condition.Kind == gatehouse.AlertAudit {
		a.GroupBy = "action"
	}
	a, err = s.store.AddAlert(ctx, a)
	return s.withLink(a), err
}

// ReadAlertQuery parses the query of GET /alerts and opens its cursor.
func (s *Service) ReadAlertQuery(orgID uuid.UUID, v url.Values) (gatehouse.AlertFilter, error) {
	return gatehouse.ReadAlertQuery(v, s.cursors, orgID)
}

// AlertCursor signs the position next of f's list: a page's nextCursor.
func (s *Service) AlertCursor(orgID uuid.UUID, f gatehouse.AlertFilter, next int64) string {
	return gatehouse.AlertCursor(s.cursors, orgID, f, next)
}

// ListAlerts returns a page of what the organization's rules fired,
// newest first, each with the state of its delivery. f.Limit must be
// between 1 and [gatehouse.MaxLimit].
func (s *Service) ListAlerts(ctx context.Context, orgID uuid.UUID, f gatehouse.AlertFilter) (gatehouse.AlertPage, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.AlertPage{}, err
	}
	if f.Limit < 1 || f.Limit > gatehouse.MaxLimit {
		return gatehouse.AlertPage{}, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	p, err := s.store.ListAlerts(ctx, orgID, f)
	for i := range p.Alerts {
		p.Alerts[i] = s.withLink(p.Alerts[i])
	}
	return p, err
}

// FindAlert returns one of the organization's alerts with every attempt
// at delivering it, newest first. [gatehouse.ErrNotFound].
func (s *Service) FindAlert(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Alert, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageWebhooks); err != nil {
		return gatehouse.Alert{}, err
	}
	a, err := s.store.FindAlert(ctx, orgID, id)
	return s.withLink(a), err
}

// withLink makes an alert's link absolute when the dashboard's URL is
// known.
func (s *Service) withLink(a gatehouse.Alert) gatehouse.Alert {
	if a.ID == uuid.Nil {
		return a
	}
	a.Link = s.alerts.DashboardURL + gatehouse.AlertLink(a)
	return a
}

// openAlertSecret opens a rule's sealed secret.
func (s *Service) openAlertSecret(ctx context.Context, orgID, id uuid.UUID, sealed []byte) (string, error) {
	return s.openSealed(ctx, orgID, gatehouse.AlertRuleSealLabel(id), "alert rule "+id.String(), sealed)
}
