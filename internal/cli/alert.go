package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// runAlertRuleCreate makes an alert rule: a threshold rule with
// --threshold and --window, or an audit rule with --audit-actions.
func runAlertRuleCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "alert-rule create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "what the rule is called in its alerts")
	format := f.String("format", "", "discord, slack or standard-webhooks")
	url := f.String("url", "", "the destination's webhook URL (https)")
	threshold := f.Int("threshold", 0, "a threshold rule: how many matching events of one group fire it")
	window := f.duration("window", 5*time.Minute, "a threshold rule: within how long (1m to 24h)")
	groupBy := f.String("group-by", string(gatehouse.AlertByNone), "a threshold rule: platformUserId, accessPointId or none")
	filters := filterFlags{}
	f.Var(filters, "filter", "a threshold rule: a feed filter the events must match, NAME=VALUE (repeatable): accessPointId, locationId, type, allowed, platformUserId, reason, scope")
	actions := f.String("audit-actions", "", "an audit rule: comma-separated audit actions, e.g. lockdown.started,policy.changed,api_key.created")
	cooldown := f.duration("cooldown", gatehouse.DefaultAlertCooldown*time.Second, "how long a group stays quiet after its alert")
	allowPrivate := f.boolSetting("webhooks-allow-private", "GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE",
		"admit http and loopback, private and link-local destinations, as serve --webhooks-allow-private does")
	f.actor(asUsage)
	return withWebhookService(ctx, f, allowPrivate, func(svc *service.Service) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		c := gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, Filters: filters, GroupBy: gatehouse.AlertGroupBy(*groupBy),
			Threshold: *threshold, WindowSeconds: int(window.Seconds())}
		if *actions != "" {
			c = gatehouse.AlertCondition{Kind: gatehouse.AlertAudit}
			for a := range strings.SplitSeq(*actions, ",") {
				if a = strings.TrimSpace(a); a != "" {
					c.Actions = append(c.Actions, gatehouse.AuditAction(a))
				}
			}
		}
		secs := int(cooldown.Seconds())
		r, secret, err := svc.CreateAlertRule(ctx, orgID, gatehouse.AlertRuleInput{Name: name, Condition: &c,
			Destination: &gatehouse.AlertDestination{Format: gatehouse.AlertFormat(*format), URL: *url}, CooldownSeconds: &secs})
		if err != nil {
			return err
		}
		human := "created alert rule %s (%s) → %s %s"
		args := []any{r.ID, r.Name, r.Destination.Format, r.Destination.URL}
		if secret != "" {
			human += "\nsecret: %s\n(shown this once: verify each alert's webhook-signature with it)"
			args = append(args, secret)
		}
		return f.print(struct {
			gatehouse.AlertRule
			Secret string `json:"secret,omitempty"`
		}{r, secret}, human, args...)
	})
}

func runAlertRuleList(ctx context.Context, e *env) error {
	f := newFlags(e, "alert-rule list")
	org := f.String("org", "", "organization id")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		rules, err := svc.ListAlertRules(ctx, orgID)
		if err != nil || *f.json {
			if err == nil {
				err = f.print(rules, "")
			}
			return err
		}
		for _, r := range rules {
			fmt.Fprintf(e.stdout, "%s  %s  %s  %s %s\n", r.ID, r.Name, alertConditionText(r.Condition), r.Destination.Format, r.Destination.URL)
		}
		return nil
	})
}

// alertConditionText says a condition in a line.
func alertConditionText(c gatehouse.AlertCondition) string {
	if c.Kind == gatehouse.AlertAudit {
		acts := make([]string, len(c.Actions))
		for i, a := range c.Actions {
			acts[i] = string(a)
		}
		return "audit " + strings.Join(acts, ",")
	}
	return fmt.Sprintf("%d in %s per %s", c.Threshold, gatehouse.WindowText(c.WindowSeconds), c.GroupBy)
}

func runAlertRuleDelete(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "alert-rule delete", "RULE_ID", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, arg string) error {
		id, err := parseID("RULE_ID", arg)
		if err != nil {
			return err
		}
		if err := svc.DeleteAlertRule(ctx, orgID, id); err != nil {
			return err
		}
		return f.print(map[string]string{"id": id.String(), "status": "deleted"}, "deleted alert rule %s and its alerts", id)
	})
}

func runAlertRuleTest(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "alert-rule test", "RULE_ID", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, arg string) error {
		id, err := parseID("RULE_ID", arg)
		if err != nil {
			return err
		}
		a, err := svc.TestAlertRule(ctx, orgID, id)
		if err != nil {
			return err
		}
		return f.print(a, "queued test alert %s of rule %s: a running server sends it (gatehouse alerts list --org %s shows how it went)", a.ID, id, orgID)
	})
}

func runAlertsList(ctx context.Context, e *env) error {
	f := newFlags(e, "alerts list")
	org := f.String("org", "", "organization id")
	rule := f.String("rule", "", "only the alerts of this rule")
	limit := f.Int("limit", 50, "how many, newest first (1 to 500)")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		filter := gatehouse.AlertFilter{Limit: *limit}
		if *rule != "" {
			id, err := parseID("rule", *rule)
			if err != nil {
				return err
			}
			filter.RuleID = &id
		}
		page, err := svc.ListAlerts(ctx, orgID, filter)
		if err != nil || *f.json {
			if err == nil {
				err = f.print(page.Alerts, "")
			}
			return err
		}
		for _, a := range page.Alerts {
			what := gatehouse.AlertSummary(a)
			fmt.Fprintf(e.stdout, "%s  %s  %s  %s  %s (%d attempts)\n", gatehouse.FormatTime(time.Time(a.FiredAt)), a.ID, a.RuleName, what,
				a.Delivery.Status, a.Delivery.Attempts)
		}
		return nil
	})
}
