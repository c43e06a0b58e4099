package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// The alert rule methods manage a rule end to end: a standard-webhooks
// rule's secret comes once, a test alert is listed, refusals come back as
// the API says them.
func TestAlertRuleMethods(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	name, cooldown := "Door probing", 900
	r, err := c.CreateAlertRule(ctx, client.AlertRuleInput{Name: &name,
		Condition: &client.AlertCondition{Kind: "threshold", Filters: map[string]string{"type": "ACCESS_DENIED"}, GroupBy: "platformUserId",
			Threshold: 10, WindowSeconds: 300},
		Destination: &client.AlertDestination{Format: "standard-webhooks", URL: "https://hooks.example.com/alerts"}})
	must(t, err)
	if !strings.HasPrefix(r.Secret, "whsec_") || r.CooldownSeconds != 300 || r.Condition.GroupBy != "platformUserId" {
		t.Fatalf("created %+v", r)
	}
	list, err := c.ListAlertRules(ctx)
	must(t, err)
	if len(list) != 1 || list[0].ID != r.ID || list[0].Secret != "" {
		t.Errorf("ListAlertRules = %+v", list)
	}
	got, err := c.UpdateAlertRule(ctx, r.ID, client.AlertRuleInput{CooldownSeconds: &cooldown})
	must(t, err)
	if got.CooldownSeconds != 900 {
		t.Errorf("updated %+v", got)
	}
	test, err := c.TestAlertRule(ctx, r.ID)
	must(t, err)
	if !test.Test || test.Delivery.Status != "pending" {
		t.Errorf("TestAlertRule = %+v", test)
	}
	page, err := c.Alerts(ctx, r.ID, "", 10)
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != test.ID || page.NextCursor != nil {
		t.Errorf("Alerts = %+v", page)
	}
	one, err := c.Alert(ctx, test.ID)
	must(t, err)
	if one.ID != test.ID || one.RuleName != name {
		t.Errorf("Alert = %+v", one)
	}
	var apiErr *client.Error
	bad := 0
	if _, err := c.UpdateAlertRule(ctx, r.ID, client.AlertRuleInput{Condition: &client.AlertCondition{Kind: "threshold", Threshold: bad, WindowSeconds: 60}}); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Errorf("a threshold of 0: %v", err)
	}
	must(t, c.DeleteAlertRule(ctx, r.ID))
	if _, err := c.AlertRule(ctx, r.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("a deleted rule: %v", err)
	}
}
