package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ErrAlertLeaseLost is the error of SaveAlertEvaluation and
// SaveAlertAttempt when the lease (or the rule's generation) moved:
// another instance took over, and nothing is stored.
var ErrAlertLeaseLost = fmt.Errorf("the alert's lease or the rule's position moved: %w", gatehouse.ErrConflict)

// KeptAlerts is how many of a rule's most recent alerts are kept (with
// their attempts); older ones that are no longer being sent are deleted
// as new ones fire.
const KeptAlerts = 1000

// CheckAlertRuleCount refuses a new rule for an organization that has n
// already, at the limit.
func CheckAlertRuleCount(n int) error {
	if n >= gatehouse.MaxAlertRules {
		return &gatehouse.ConflictError{Field: "name", Message: fmt.Sprintf("an organization has at most %d alert rules", gatehouse.MaxAlertRules)}
	}
	return nil
}

// AlertRuleTarget is the audit target of a rule, named by its name.
func AlertRuleTarget(id uuid.UUID, name string) gatehouse.AuditTarget {
	return gatehouse.AuditTarget{Type: gatehouse.TargetAlertRule, ID: id, Name: name}
}

// AlertRuleChanges returns the columns c changes in old, and e with those
// changes recorded, and whether the condition changed (the rule then
// starts from the head of the feed).
func AlertRuleChanges(old gatehouse.AlertRule, c gatehouse.AlertRuleChange, e gatehouse.AuditEntry) ([]Set, gatehouse.AuditEntry, bool) {
	var set []Set
	if c.Name != nil && *c.Name != old.Name {
		set = append(set, Set{"name", *c.Name})
		e = e.Change("name", old.Name, *c.Name)
	}
	moved := false
	if c.Condition != nil {
		was, now := gatehouse.EncodeAlertCondition(old.Condition), gatehouse.EncodeAlertCondition(*c.Condition)
		if was != now {
			set = append(set, Set{"condition", now}, Set{"kind", string(c.Condition.Kind)})
			e = e.Change("condition", was, now)
			moved = true
		}
	}
	if c.Destination != nil && *c.Destination != old.Destination {
		set = append(set, Set{"format", string(c.Destination.Format)}, Set{"url", c.Destination.URL})
		e = e.Change("destination", string(old.Destination.Format)+" "+old.Destination.URL, string(c.Destination.Format)+" "+c.Destination.URL)
	}
	if c.CooldownSeconds != nil && *c.CooldownSeconds != old.CooldownSeconds {
		set = append(set, Set{"cooldown_seconds", *c.CooldownSeconds})
		e = e.Change("cooldownSeconds", fmt.Sprint(old.CooldownSeconds), fmt.Sprint(*c.CooldownSeconds))
	}
	return set, e, moved
}

// AlertRuleCreated is the entry of a new rule, with its settings.
func AlertRuleCreated(e gatehouse.AuditEntry, r gatehouse.AlertRule) gatehouse.AuditEntry {
	return e.Change("name", "", r.Name).Change("condition", "", gatehouse.EncodeAlertCondition(r.Condition)).
		Change("destination", "", string(r.Destination.Format)+" "+r.Destination.URL).
		Change("cooldownSeconds", "", fmt.Sprint(r.CooldownSeconds))
}

// FillAlertRule completes a rule read from its columns.
func FillAlertRule(r *gatehouse.AlertRule, condition, format string) error {
	c, err := gatehouse.DecodeAlertCondition(condition)
	if err != nil {
		return fmt.Errorf("alert rule %s: its condition: %w", r.ID, err)
	}
	r.Condition, r.Destination.Format = c, gatehouse.AlertFormat(format)
	return nil
}

// AuditAlert is the alert rule (id, name) fires on entry e at its time.
func AuditAlert(ruleID uuid.UUID, ruleName string, e gatehouse.AuditEntry) gatehouse.Alert {
	target := e.Target.Name
	if target == "" && e.Target.ID != uuid.Nil {
		target = e.Target.ID.String()
	}
	if e.Target.Type != "" && target != "" {
		target = e.Target.Type + " " + target
	}
	at := gatehouse.Time(e.At)
	return gatehouse.Alert{ID: gatehouse.NewID(), OrgID: e.OrgID, RuleID: ruleID, RuleName: ruleName, Kind: gatehouse.AlertAudit,
		GroupBy: "action", Group: AuditAlertGroup(e), Count: 1, WindowStart: at, WindowEnd: at, FiredAt: at,
		Audit:    &gatehouse.AlertAuditEntry{ID: e.ID, Action: e.Action, Actor: e.Actor.Label, Target: target},
		Delivery: gatehouse.AlertDelivery{Status: gatehouse.DeliveryPending}}
}

// AuditAlertGroup is what an audit rule's cooldown is per: the action on
// one target (a second key created is its own alert; a policy saved ten
// times in a minute is one).
func AuditAlertGroup(e gatehouse.AuditEntry) string {
	if e.Target.ID != uuid.Nil {
		return string(e.Action) + " " + e.Target.ID.String()
	}
	return string(e.Action) + " " + e.Target.Name
}

// AlertJSON is how stores keep an alert's audit entry and filters.
func AlertJSON(a gatehouse.Alert) (audit any, filters string) {
	if a.Audit != nil {
		b, _ := json.Marshal(a.Audit)
		audit = string(b)
	}
	if a.Filters == nil {
		return audit, "{}"
	}
	b, _ := json.Marshal(a.Filters)
	return audit, string(b)
}

// FillAlert completes an alert read from its columns.
func FillAlert(a *gatehouse.Alert, audit *string, filters string, nextAt time.Time) {
	if audit != nil {
		a.Audit = &gatehouse.AlertAuditEntry{}
		json.Unmarshal([]byte(*audit), a.Audit)
	}
	json.Unmarshal([]byte(filters), &a.Filters)
	if a.Delivery.Status == gatehouse.DeliveryPending && a.Delivery.Attempts > 0 {
		t := gatehouse.Time(nextAt)
		a.Delivery.NextAttemptAt = &t
	}
	a.Link = gatehouse.AlertLink(*a)
}

// AlertInCooldown reports whether an alert fired at last keeps one at now
// from firing, for a cooldown of seconds.
func AlertInCooldown(last, now time.Time, seconds int) bool {
	return now.Before(last.Add(time.Duration(seconds) * time.Second))
}

// SeqAlert is an alert and its row's seq, the list's keyset position.
type SeqAlert struct {
	Seq   int64
	Alert gatehouse.Alert
}

// AlertPage is the page of alerts, read one beyond limit newest first:
// at most limit alerts (never nil), and the seq of the next page when
// another follows.
func AlertPage(rows []SeqAlert, limit int) gatehouse.AlertPage {
	p := gatehouse.AlertPage{Alerts: []gatehouse.Alert{}}
	rows, last := TrimPage(rows, limit)
	for _, r := range rows {
		p.Alerts = append(p.Alerts, r.Alert)
	}
	if last != nil {
		seq := last.Seq
		p.Next = &seq
	}
	return p
}

// AuditRule is an audit rule as fireAuditAlerts reads it: its row's seq,
// its id and name, its encoded condition and its cooldown.
type AuditRule struct {
	Seq       int64
	ID        uuid.UUID
	Name      string
	Condition string
	Cooldown  int
}

// Fires returns the alert r fires on entry e, and false when r does not
// name e's action (or its condition does not decode).
func (r AuditRule) Fires(e gatehouse.AuditEntry) (gatehouse.Alert, bool) {
	c, err := gatehouse.DecodeAlertCondition(r.Condition)
	if err != nil || !c.Matches(e.Action) {
		return gatehouse.Alert{}, false
	}
	return AuditAlert(r.ID, r.Name, e), true
}

// StoreAlerts stores each of alerts with insert, which reports whether a
// cooldown let it through, and returns those stored.
func StoreAlerts(alerts []gatehouse.Alert, insert func(gatehouse.Alert) (bool, error)) ([]gatehouse.Alert, error) {
	var fired []gatehouse.Alert
	for _, a := range alerts {
		ok, err := insert(a)
		if err != nil {
			return nil, err
		}
		if ok {
			fired = append(fired, a)
		}
	}
	return fired, nil
}
