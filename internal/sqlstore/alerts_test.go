package sqlstore_test

import (
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

func TestAlertPage(t *testing.T) {
	rows := []sqlstore.SeqAlert{{Seq: 9}, {Seq: 7}, {Seq: 4}}
	p := sqlstore.AlertPage(rows, 2)
	if len(p.Alerts) != 2 || p.Next == nil || *p.Next != 7 {
		t.Errorf("a row beyond the page: %d alerts, next %v; want 2 and the last kept's seq, 7", len(p.Alerts), p.Next)
	}
	p = sqlstore.AlertPage(nil, 2)
	if p.Alerts == nil || len(p.Alerts) != 0 || p.Next != nil {
		t.Errorf("no rows: %#v; want an empty, non-nil list and no next page", p)
	}
}

func TestAuditRuleFiresOnItsActions(t *testing.T) {
	cond := gatehouse.EncodeAlertCondition(gatehouse.AlertCondition{Kind: gatehouse.AlertAudit,
		Actions: []gatehouse.AuditAction{gatehouse.AuditWebhookCreated}})
	r := sqlstore.AuditRule{Seq: 1, ID: uuid.New(), Name: "hooks", Condition: cond}
	e := gatehouse.AuditEntry{ID: uuid.New(), OrgID: uuid.New(), Action: gatehouse.AuditWebhookCreated}
	a, ok := r.Fires(e)
	if !ok || a.RuleID != r.ID || a.RuleName != "hooks" || a.Audit == nil || a.Audit.Action != e.Action {
		t.Errorf("Fires on a named action = %+v, %v; want the rule's audit alert", a, ok)
	}
	e.Action = gatehouse.AuditAlertRuleCreated
	if _, ok := r.Fires(e); ok {
		t.Error("Fires on an action the rule does not name")
	}
	r.Condition = "{"
	if _, ok := r.Fires(gatehouse.AuditEntry{Action: gatehouse.AuditWebhookCreated}); ok {
		t.Error("Fires with a condition that does not decode")
	}
}

func TestStoreAlertsKeepsWhatWasStored(t *testing.T) {
	in := []gatehouse.Alert{{Group: "a"}, {Group: "b"}, {Group: "c"}}
	fired, err := sqlstore.StoreAlerts(in, func(a gatehouse.Alert) (bool, error) { return a.Group != "b", nil })
	if err != nil || len(fired) != 2 || fired[0].Group != "a" || fired[1].Group != "c" {
		t.Errorf("StoreAlerts = %+v, %v; want a and c (b in its cooldown)", fired, err)
	}
	boom := errors.New("boom")
	if _, err := sqlstore.StoreAlerts(in, func(gatehouse.Alert) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("StoreAlerts with a failing insert: %v; want its error", err)
	}
}
