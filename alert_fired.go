package gatehouse

import (
	"crypto/sha256"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Alert is what a rule fired (or a test of it), with the state of its
// delivery to the rule's destination.
type Alert struct {
	ID       uuid.UUID `json:"id"`
	RuleID   uuid.UUID `json:"ruleId"`
	RuleName string    `json:"ruleName"`
	Kind     AlertKind `json:"kind"`
	// Test is set for an alert sent by POST /alert-rules/{id}/test.
	Test bool `json:"test"`
	// GroupBy and Group name what the count is of: the player or access
	// point (empty for none) of a threshold rule; "action" and the audit
	// action and target of an audit rule.
	GroupBy string `json:"groupBy"`
	Group   string `json:"group"`
	// Count events matched in the window [WindowStart, WindowEnd] of
	// WindowSeconds (an audit alert: 1, its entry's time).
	Count         int  `json:"count"`
	WindowSeconds int  `json:"windowSeconds"`
	WindowStart   Time `json:"windowStart"`
	WindowEnd     Time `json:"windowEnd"`
	// Audit is the entry an audit alert fired on.
	Audit   *AlertAuditEntry `json:"audit,omitempty"`
	FiredAt Time             `json:"firedAt"`
	// Link opens the dashboard's Event Log (or audit log) filtered to
	// what fired.
	Link     string        `json:"link"`
	Delivery AlertDelivery `json:"delivery"`
	// Deliveries are the attempts at sending it, newest first (GET
	// /alerts/{id} only).
	Deliveries []AlertAttempt `json:"deliveries,omitempty"`

	OrgID   uuid.UUID         `json:"-"`
	Filters map[string]string `json:"-"` // a threshold alert's rule's filters, for Link
}

// AlertAuditEntry names the audit entry an audit alert fired on.
type AlertAuditEntry struct {
	ID     uuid.UUID   `json:"id"`
	Action AuditAction `json:"action"`
	Actor  string      `json:"actor"`
	Target string      `json:"target"`
}

// AlertDelivery is where an alert's delivery stands: pending (being
// tried, NextAttemptAt set after a failure), succeeded, or failed (given
// up after the webhooks' retry period).
type AlertDelivery struct {
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	NextAttemptAt *Time  `json:"nextAttemptAt"`
	LastError     string `json:"lastError,omitempty"`
}

// AlertAttempt is one attempt at sending an alert, as the delivery log
// keeps it.
type AlertAttempt struct {
	ID           uuid.UUID `json:"id"`
	Attempt      int       `json:"attempt"`
	At           Time      `json:"at"`
	Status       string    `json:"status"`
	ResponseCode *int      `json:"responseCode"`
	LatencyMS    *int64    `json:"latencyMs"`
	Error        string    `json:"error,omitempty"`
	Response     string    `json:"response,omitempty"`
}

// AlertEvaluation is what one evaluation of a leased threshold rule
// leaves, saved in one transaction by the holder of its lease.
type AlertEvaluation struct {
	OrgID, RuleID uuid.UUID
	Holder        string
	Generation    int64
	Now           time.Time
	EventsAfter   FeedPosition
	Alerts        []Alert
	NextAt        time.Time
	Release       bool
}

// AlertRuleClaim is a due threshold rule leased to one instance.
type AlertRuleClaim struct {
	Rule AlertRule
}

// AlertClaim is an alert whose delivery is due, leased to one instance,
// with what sending needs.
type AlertClaim struct {
	Alert       Alert
	Destination AlertDestination
	Sealed      []byte // the standard-webhooks secret, sealed; nil otherwise
}

// AlertAttemptResult is one attempt at an alert, saved by the holder of
// its lease: the log row and the alert's delivery state.
type AlertAttemptResult struct {
	OrgID, AlertID uuid.UUID
	Holder         string
	Now            time.Time
	Attempt        AlertAttempt
	Delivery       AlertDelivery
	NextAt         time.Time
}

// AlertFilter selects a page of an organization's alerts, newest first.
type AlertFilter struct {
	RuleID *uuid.UUID
	Limit  int
	After  *int64 // keyset position
}

// AlertPage is one page of alerts; Next is nil on the last.
type AlertPage struct {
	Alerts []Alert
	Next   *int64
}

// CursorAlerts is the kind of the alert list's cursors.
const CursorAlerts = 'F'

// Digest identifies the filter in an organization, for its cursors.
func (f AlertFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("alerts\x00"))
	h.Write(orgID[:])
	if f.RuleID != nil {
		h.Write(f.RuleID[:])
	}
	return [8]byte(h.Sum(nil)[:8])
}

// AlertQueryParams are the parameters of GET /alerts.
var AlertQueryParams = []string{paramLimit, "ruleId", paramCursor}

// ReadAlertQuery reads the query of GET /alerts (limit, ruleId, cursor)
// and opens its cursor, signed for orgID and the rule: every problem at
// once, keyed by parameter.
func ReadAlertQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (AlertFilter, error) {
	var (
		f    AlertFilter
		errs ValidationError
	)
	q := newListQuery(v, AlertQueryParams, &errs)
	if s, ok := q.one("ruleId"); ok {
		f.RuleID = parseUUID(&errs, "ruleId", s)
	}
	f.Limit = q.limit()
	f.After = openListCursor(q, cursors, CursorAlerts, f.Digest(orgID), func(b []byte) (int64, error) {
		return strconv.ParseInt(string(b), 10, 64)
	})
	return f, errs.Err()
}

// AlertCursor is the cursor of the position after in f's list.
func AlertCursor(cursors *Cursors, orgID uuid.UUID, f AlertFilter, after int64) string {
	return cursors.Sign(CursorAlerts, f.Digest(orgID), []byte(strconv.FormatInt(after, 10)))
}

// AlertLink is the path and query, under the dashboard, of what an alert
// is about: the Event Log filtered to the rule's filters, the group and
// the window; the audit log for an audit alert.
func AlertLink(a Alert) string {
	if a.Kind == AlertAudit {
		v := url.Values{}
		if a.Audit != nil {
			v.Set("action", string(a.Audit.Action))
		}
		return "/dashboard/audit?" + v.Encode()
	}
	v := url.Values{}
	for k, val := range a.Filters {
		v.Set(k, val)
	}
	switch AlertGroupBy(a.GroupBy) {
	case AlertByPlatformUser:
		v.Set("platformUserId", a.Group)
	case AlertByAccessPoint:
		v.Set("accessPointId", a.Group)
	}
	v.Set("dateFrom", FormatTime(time.Time(a.WindowStart)))
	v.Set("dateTo", FormatTime(time.Time(a.WindowEnd).Add(time.Millisecond)))
	return "/dashboard/events?" + v.Encode()
}
