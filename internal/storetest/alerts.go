package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

func (f *fixture) alertRule(org uuid.UUID, name string, c gatehouse.AlertCondition, sealed []byte) gatehouse.AlertRule {
	f.t.Helper()
	r, err := f.s.CreateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleCreated), gatehouse.AlertRule{
		ID: gatehouse.NewID(), OrgID: org, Name: name, Condition: c, CooldownSeconds: 300,
		Destination: gatehouse.AlertDestination{Format: gatehouse.AlertDiscord, URL: "https://discord.example/" + name},
		CreatedAt:   gatehouse.Time(f.now), UpdatedAt: gatehouse.Time(f.now)}, sealed)
	must(f.t, err)
	return r
}

func thresholdOf(n int) gatehouse.AlertCondition {
	return gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, GroupBy: gatehouse.AlertByPlatformUser, Threshold: n, WindowSeconds: 60,
		Filters: map[string]string{"type": "ACCESS_DENIED"}}
}

func (f *fixture) alerts(org uuid.UUID) []gatehouse.Alert {
	f.t.Helper()
	p, err := f.s.ListAlerts(ctx, org, gatehouse.AlertFilter{Limit: 100})
	must(f.t, err)
	return p.Alerts
}

// testAlertRules: rules are stored at the head of their organization's
// feed, listed, changed and deleted with each change recorded, and
// invisible to other organizations.
func testAlertRules(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	gate := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Gate")
	f.ingest(a.ID, f.attempt(gate, gatehouse.EventAccessDenied, 1))
	f.settle()
	r := f.alertRule(a.ID, "Probing", thresholdOf(3), nil)
	if r.Name != "Probing" || r.Condition.Threshold != 3 || r.Condition.Filters["type"] != "ACCESS_DENIED" || r.CooldownSeconds != 300 ||
		r.Destination.Format != gatehouse.AlertDiscord || !time.Time(r.CreatedAt).Equal(f.now) {
		t.Errorf("created %+v", r)
	}
	if page, _ := f.s.ReadFeed(ctx, a.ID, gatehouse.EventFilter{Limit: 10}, r.EventsAfter); len(page.Events) != 0 {
		t.Errorf("a new rule's position has %d events after it, want none", len(page.Events))
	}
	theirs := f.alertRule(b.ID, "Theirs", gatehouse.AlertCondition{Kind: gatehouse.AlertAudit, Actions: []gatehouse.AuditAction{"policy.changed"}}, []byte("sealed"))
	rules, err := f.s.ListAlertRules(ctx, a.ID)
	if err != nil || len(rules) != 1 || rules[0].ID != r.ID {
		t.Errorf("ListAlertRules(a) = %+v, %v", rules, err)
	}
	_, err = f.s.FindAlertRule(ctx, a.ID, theirs.ID)
	wantErr(t, "find another organization's rule", err, gatehouse.ErrNotFound)
	_, err = f.s.UpdateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleChanged), a.ID, theirs.ID, gatehouse.AlertRuleChange{Name: ptr("x")}, nil, f.now)
	wantErr(t, "change another organization's rule", err, gatehouse.ErrNotFound)
	wantErr(t, "delete another organization's rule", f.s.DeleteAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleDeleted), a.ID, theirs.ID), gatehouse.ErrNotFound)
	_, err = f.s.AlertRuleSecret(ctx, a.ID, theirs.ID)
	wantErr(t, "read another organization's secret", err, gatehouse.ErrNotFound)
	if sealed, err := f.s.AlertRuleSecret(ctx, b.ID, theirs.ID); err != nil || string(sealed) != "sealed" {
		t.Errorf("AlertRuleSecret = %q, %v", sealed, err)
	}

	f.now = f.now.Add(time.Minute)
	changed, err := f.s.UpdateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleChanged), a.ID, r.ID,
		gatehouse.AlertRuleChange{Name: ptr("Probed"), Condition: ptr(thresholdOf(5)), CooldownSeconds: ptr(60)}, nil, f.now)
	must(t, err)
	if changed.Name != "Probed" || changed.Condition.Threshold != 5 || changed.CooldownSeconds != 60 || changed.Generation == r.Generation ||
		!time.Time(changed.UpdatedAt).Equal(f.now) {
		t.Errorf("changed %+v", changed)
	}
	log := f.log(a.ID, gatehouse.AuditFilter{TargetID: &r.ID, Limit: 10})
	if len(log) != 2 || log[0].Action != gatehouse.AuditAlertRuleChanged || log[1].Action != gatehouse.AuditAlertRuleCreated ||
		log[0].Changes["name"] != (gatehouse.AuditChange{From: "Probing", To: "Probed"}) {
		t.Errorf("the audit log of the rule: %+v", log)
	}
	must(t, f.s.DeleteAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleDeleted), a.ID, r.ID))
	_, err = f.s.FindAlertRule(ctx, a.ID, r.ID)
	wantErr(t, "find a deleted rule", err, gatehouse.ErrNotFound)
}

// testAlertEvaluations: a due threshold rule is leased to one holder at a
// time; an evaluation whose lease ran out and was taken saves nothing,
// so no alert is made twice; a group that fired stays quiet for the
// rule's cooldown.
func testAlertEvaluations(t *testing.T, f *fixture) {
	a := f.org("Acme")
	r := f.alertRule(a.ID, "Probing", thresholdOf(1), nil)
	lease := 30 * time.Second
	first, err := f.s.ClaimAlertRule(ctx, "a", f.now, lease)
	must(t, err)
	if first.Rule.ID != r.ID {
		t.Fatalf("claimed %+v", first.Rule)
	}
	_, err = f.s.ClaimAlertRule(ctx, "b", f.now, lease)
	wantErr(t, "claim a leased rule", err, gatehouse.ErrNotFound)

	alert := func(group string) gatehouse.Alert {
		at := gatehouse.Time(f.now)
		return gatehouse.Alert{ID: gatehouse.NewID(), OrgID: a.ID, RuleID: r.ID, Kind: gatehouse.AlertThreshold, GroupBy: "platformUserId",
			Group: group, Count: 1, WindowSeconds: 60, WindowStart: at, WindowEnd: at, FiredAt: at, Filters: map[string]string{"type": "ACCESS_DENIED"}}
	}
	// a's lease runs out; b takes the rule and saves its evaluation.
	f.now = f.now.Add(lease + time.Second)
	second, err := f.s.ClaimAlertRule(ctx, "b", f.now, lease)
	must(t, err)
	saved, err := f.s.SaveAlertEvaluation(ctx, gatehouse.AlertEvaluation{OrgID: a.ID, RuleID: r.ID, Holder: "b", Generation: second.Rule.Generation,
		Now: f.now, EventsAfter: second.Rule.EventsAfter, Alerts: []gatehouse.Alert{alert("1")}, NextAt: f.now.Add(time.Second), Release: true})
	must(t, err)
	if len(saved) != 1 {
		t.Errorf("b's evaluation stored %d alerts, want 1", len(saved))
	}
	// a comes back: its evaluation of the same events stores nothing.
	_, err = f.s.SaveAlertEvaluation(ctx, gatehouse.AlertEvaluation{OrgID: a.ID, RuleID: r.ID, Holder: "a", Generation: first.Rule.Generation,
		Now: f.now, EventsAfter: first.Rule.EventsAfter, Alerts: []gatehouse.Alert{alert("1"), alert("2")}, NextAt: f.now, Release: true})
	wantErr(t, "save after the lease was lost", err, gatehouse.ErrConflict)
	if got := f.alerts(a.ID); len(got) != 1 || got[0].Group != "1" || got[0].Delivery.Status != gatehouse.DeliveryPending {
		t.Fatalf("alerts %+v, want b's one", got)
	}

	// Not due before NextAt; then group 1 is within its cooldown, 2 not.
	_, err = f.s.ClaimAlertRule(ctx, "a", f.now, lease)
	wantErr(t, "claim before the rule is due", err, gatehouse.ErrNotFound)
	f.now = f.now.Add(2 * time.Minute)
	third, err := f.s.ClaimAlertRule(ctx, "a", f.now, lease)
	must(t, err)
	saved, err = f.s.SaveAlertEvaluation(ctx, gatehouse.AlertEvaluation{OrgID: a.ID, RuleID: r.ID, Holder: "a", Generation: third.Rule.Generation,
		Now: f.now, EventsAfter: third.Rule.EventsAfter, Alerts: []gatehouse.Alert{alert("1"), alert("2")}, NextAt: f.now, Release: true})
	must(t, err)
	if len(saved) != 1 || saved[0].Group != "2" {
		t.Errorf("within group 1's cooldown, stored %+v; want only group 2", saved)
	}
	f.now = f.now.Add(5 * time.Minute)
	fourth, err := f.s.ClaimAlertRule(ctx, "b", f.now, lease)
	must(t, err)
	saved, err = f.s.SaveAlertEvaluation(ctx, gatehouse.AlertEvaluation{OrgID: a.ID, RuleID: r.ID, Holder: "b", Generation: fourth.Rule.Generation,
		Now: f.now, EventsAfter: fourth.Rule.EventsAfter, Alerts: []gatehouse.Alert{alert("1")}, NextAt: f.now, Release: true})
	must(t, err)
	if len(saved) != 1 {
		t.Errorf("after the cooldown, stored %d alerts, want 1", len(saved))
	}
	// A changed condition moves the generation: an evaluation under way
	// saves nothing.
	fifth, err := f.s.ClaimAlertRule(ctx, "a", f.now, lease)
	must(t, err)
	_, err = f.s.UpdateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleChanged), a.ID, r.ID,
		gatehouse.AlertRuleChange{Condition: ptr(thresholdOf(2))}, nil, f.now)
	must(t, err)
	_, err = f.s.SaveAlertEvaluation(ctx, gatehouse.AlertEvaluation{OrgID: a.ID, RuleID: r.ID, Holder: "a", Generation: fifth.Rule.Generation,
		Now: f.now, EventsAfter: fifth.Rule.EventsAfter, Alerts: []gatehouse.Alert{alert("3")}, NextAt: f.now, Release: true})
	wantErr(t, "save after the condition changed", err, gatehouse.ErrConflict)
	if n := len(f.alerts(a.ID)); n != 3 {
		t.Errorf("%d alerts, want 3", n)
	}
	// An erased player is named by no alert any more.
	f.erasePlayer(a.ID, "1", 100)
	if got := f.alerts(a.ID); len(got) != 1 || got[0].Group != "2" {
		t.Errorf("after erasing player 1: %+v", got)
	}
}

// testAuditAlerts: an audit entry of an action an audit rule names fires
// it in the transaction of the change, once per action and target within
// its cooldown, and only in its organization.
func testAuditAlerts(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	r := f.alertRule(a.ID, "Keys", gatehouse.AlertCondition{Kind: gatehouse.AlertAudit, Actions: []gatehouse.AuditAction{gatehouse.AuditAPIKeyCreated}}, nil)
	key := func(org uuid.UUID) gatehouse.APIKey {
		_, prefix, hash := gatehouse.GenerateKey()
		k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: org, Name: "k", Prefix: prefix, Hash: hash,
			Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now}
		must(t, f.s.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k))
		return k
	}
	k1 := key(a.ID)
	key(b.ID)
	f.location(a.ID, "Not watched")
	got := f.alerts(a.ID)
	if len(got) != 1 || got[0].Kind != gatehouse.AlertAudit || got[0].RuleID != r.ID || got[0].Audit == nil ||
		got[0].Audit.Action != gatehouse.AuditAPIKeyCreated || got[0].Group != "api_key.created "+k1.ID.String() {
		t.Fatalf("alerts %+v", got)
	}
	if n := len(f.alerts(b.ID)); n != 0 {
		t.Errorf("the other organization has %d alerts", n)
	}
	key(a.ID) // another target: its own alert
	if n := len(f.alerts(a.ID)); n != 2 {
		t.Errorf("%d alerts after a second key, want 2", n)
	}
}

// testAlertDeliveries: an alert due is leased to one holder with its
// rule's destination; an attempt is saved only by the lease's holder; a
// failed attempt makes it due again later; the alert shows its attempts.
func testAlertDeliveries(t *testing.T, f *fixture) {
	a := f.org("Acme")
	r := f.alertRule(a.ID, "Std", gatehouse.AlertCondition{Kind: gatehouse.AlertAudit, Actions: []gatehouse.AuditAction{"policy.changed"}}, []byte("sealed"))
	at := gatehouse.Time(f.now)
	added, err := f.s.AddAlert(ctx, gatehouse.Alert{ID: gatehouse.NewID(), OrgID: a.ID, RuleID: r.ID, Kind: gatehouse.AlertAudit, Test: true,
		GroupBy: "action", WindowStart: at, WindowEnd: at, FiredAt: at})
	must(t, err)
	if !added.Test || added.RuleName != "Std" || added.Delivery.Status != gatehouse.DeliveryPending {
		t.Errorf("added %+v", added)
	}
	c, err := f.s.ClaimAlert(ctx, "a", f.now, 30*time.Second)
	must(t, err)
	if c.Alert.ID != added.ID || c.Destination != r.Destination || string(c.Sealed) != "sealed" {
		t.Errorf("claimed %+v", c)
	}
	_, err = f.s.ClaimAlert(ctx, "b", f.now, 30*time.Second)
	wantErr(t, "claim a leased alert", err, gatehouse.ErrNotFound)
	code, ms := 500, int64(12)
	attempt := gatehouse.AlertAttemptResult{OrgID: a.ID, AlertID: added.ID, Holder: "b", Now: f.now,
		Attempt:  gatehouse.AlertAttempt{ID: gatehouse.NewID(), Attempt: 1, At: at, Status: gatehouse.DeliveryFailed, ResponseCode: &code, LatencyMS: &ms, Error: "boom"},
		Delivery: gatehouse.AlertDelivery{Status: gatehouse.DeliveryPending, Attempts: 1, LastError: "boom"}, NextAt: f.now.Add(time.Minute)}
	if err := f.s.SaveAlertAttempt(ctx, attempt); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("another holder's save: %v, want ErrConflict", err)
	}
	attempt.Holder = "a"
	must(t, f.s.SaveAlertAttempt(ctx, attempt))
	_, err = f.s.ClaimAlert(ctx, "b", f.now, 30*time.Second)
	wantErr(t, "claim before the retry is due", err, gatehouse.ErrNotFound)
	got, err := f.s.FindAlert(ctx, a.ID, added.ID)
	must(t, err)
	if got.Delivery.Attempts != 1 || got.Delivery.NextAttemptAt == nil || len(got.Deliveries) != 1 ||
		got.Deliveries[0].ResponseCode == nil || *got.Deliveries[0].ResponseCode != 500 || got.Deliveries[0].Error != "boom" {
		t.Errorf("after a failed attempt: %+v", got)
	}
	f.now = f.now.Add(time.Minute)
	c, err = f.s.ClaimAlert(ctx, "b", f.now, 30*time.Second)
	must(t, err)
	attempt.Holder, attempt.Now, attempt.Attempt.ID, attempt.Attempt.Status = "b", f.now, gatehouse.NewID(), gatehouse.DeliverySucceeded
	attempt.Delivery = gatehouse.AlertDelivery{Status: gatehouse.DeliverySucceeded, Attempts: 2}
	must(t, f.s.SaveAlertAttempt(ctx, attempt))
	_, err = f.s.ClaimAlert(ctx, "a", f.now.Add(time.Hour), 30*time.Second)
	wantErr(t, "claim a delivered alert", err, gatehouse.ErrNotFound)
	other := f.org("Other")
	_, err = f.s.FindAlert(ctx, other.ID, added.ID)
	wantErr(t, "find another organization's alert", err, gatehouse.ErrNotFound)
	// Pages: newest first, then the rest.
	for range 2 {
		_, err := f.s.AddAlert(ctx, gatehouse.Alert{ID: gatehouse.NewID(), OrgID: a.ID, RuleID: r.ID, Kind: gatehouse.AlertAudit, Test: true,
			GroupBy: "action", WindowStart: at, WindowEnd: at, FiredAt: at})
		must(t, err)
	}
	p1, err := f.s.ListAlerts(ctx, a.ID, gatehouse.AlertFilter{Limit: 2})
	must(t, err)
	if len(p1.Alerts) != 2 || p1.Next == nil {
		t.Fatalf("first page %+v", p1)
	}
	p2, err := f.s.ListAlerts(ctx, a.ID, gatehouse.AlertFilter{Limit: 2, After: p1.Next})
	must(t, err)
	if len(p2.Alerts) != 1 || p2.Next != nil || p2.Alerts[0].ID != added.ID {
		t.Errorf("second page %+v", p2)
	}
}
