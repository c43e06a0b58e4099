package gatehouse

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// AlertKind is what an alert rule watches.
type AlertKind string

// The kinds of rule. A threshold rule counts matching events per group in
// a sliding window; an audit rule fires on audit entries of the actions
// it names.
const (
	AlertThreshold AlertKind = "threshold"
	AlertAudit     AlertKind = "audit"
)

// AlertGroupBy is what a threshold rule counts per: a player, an access
// point, or the whole organization (none).
type AlertGroupBy string

// The groupings of a threshold rule.
const (
	AlertByPlatformUser AlertGroupBy = "platformUserId"
	AlertByAccessPoint  AlertGroupBy = "accessPointId"
	AlertByNone         AlertGroupBy = "none"
)

// AlertFormat is the shape of the messages a rule's destination receives.
type AlertFormat string

// The destination formats: Discord's and Slack's incoming webhooks, or a
// Standard Webhooks receiver (signed like webhook deliveries).
const (
	AlertDiscord         AlertFormat = "discord"
	AlertSlack           AlertFormat = "slack"
	AlertStandardWebhook AlertFormat = "standard-webhooks"
)

// Bounds of an alert rule.
const (
	MaxAlertRuleName      = 100
	MaxAlertThreshold     = MaxLimit // a window's count is read in one page
	MinAlertWindowSeconds = 60
	MaxAlertWindowSeconds = 86400
	DefaultAlertCooldown  = 300
	MaxAlertCooldown      = 7 * 86400
	MaxAlertAuditActions  = 50
	// MaxAlertRules is how many rules one organization may have.
	MaxAlertRules = 50
)

// WebhookAlertFired is the type of the message a standard-webhooks
// destination receives: {"type": "alert.fired", "data": Alert}.
const WebhookAlertFired WebhookType = "alert.fired"

// AlertCondition is when a rule fires. Threshold rules use Filters (the
// feed's), GroupBy, Threshold and WindowSeconds; audit rules use Actions.
type AlertCondition struct {
	Kind          AlertKind         `json:"kind"`
	Filters       map[string]string `json:"filters,omitempty"`
	GroupBy       AlertGroupBy      `json:"groupBy,omitempty"`
	Threshold     int               `json:"threshold,omitempty"`
	WindowSeconds int               `json:"windowSeconds,omitempty"`
	Actions       []AuditAction     `json:"actions,omitempty"`
}

// AlertDestination is where a rule's alerts are sent, and in which shape.
type AlertDestination struct {
	Format AlertFormat `json:"format"`
	URL    string      `json:"url"`
}

// AlertRule is an organization's rule. A standard-webhooks destination's
// secret is never part of it: it is shown once, when the rule is made.
type AlertRule struct {
	ID              uuid.UUID        `json:"id"`
	Name            string           `json:"name"`
	Condition       AlertCondition   `json:"condition"`
	Destination     AlertDestination `json:"destination"`
	CooldownSeconds int              `json:"cooldownSeconds"`
	CreatedAt       Time             `json:"createdAt"`
	UpdatedAt       Time             `json:"updatedAt"`

	// What the store keeps for the evaluation; not in JSON.
	OrgID       uuid.UUID    `json:"-"`
	EventsAfter FeedPosition `json:"-"`
	Generation  int64        `json:"-"`
}

// AlertAuditActions are the actions an audit rule may name: every action
// of [AuditActions], and those of lockdowns and grants.
func AlertAuditActions() []AuditAction {
	acts := slices.Clone(AuditActions)
	for _, a := range []AuditAction{"lockdown.started", "lockdown.released", "grant.created", "grant.revoked"} {
		if !slices.Contains(acts, a) {
			acts = append(acts, a)
		}
	}
	return acts
}

// AlertRuleInput is what creates or changes a rule: on a change, a nil
// field is left as it is (a condition or destination is replaced whole).
type AlertRuleInput struct {
	Name            *string `json:"name"`
	Condition       *AlertCondition
	Destination     *AlertDestination
	CooldownSeconds *int `json:"cooldownSeconds"`
}

var (
	alertRuleFields   = []string{"name", "condition", "destination", "cooldownSeconds"}
	alertCondFields   = []string{"kind", "filters", "groupBy", "threshold", "windowSeconds", "actions"}
	alertTargetFields = []string{"format", "url"}
)

// DecodeAlertRuleInput reads the body of POST /alert-rules or PATCH
// /alert-rules/{id} strictly, nested objects too: every problem at once,
// keyed by field ("condition.threshold").
func DecodeAlertRuleInput(data []byte) (AlertRuleInput, error) {
	var (
		in  AlertRuleInput
		top struct {
			Name            *string `json:"name"`
			CooldownSeconds *int    `json:"cooldownSeconds"`
		}
		errs ValidationError
	)
	obj, err := DecodeFields(data, &top, alertRuleFields)
	errs.Absorb("", err)
	if obj == nil {
		return in, errs.Err()
	}
	in.Name, in.CooldownSeconds = top.Name, top.CooldownSeconds
	if raw, ok := obj["condition"]; ok {
		var c AlertCondition
		_, err := DecodeFields(raw, &c, alertCondFields)
		errs.Absorb("condition", err)
		in.Condition = &c
	}
	if raw, ok := obj["destination"]; ok {
		var d AlertDestination
		_, err := DecodeFields(raw, &d, alertTargetFields)
		errs.Absorb("destination", err)
		in.Destination = &d
	}
	return in, errs.Err()
}

// AlertRuleChange is a checked AlertRuleInput, as the store applies it.
type AlertRuleChange struct {
	Name            *string
	Condition       *AlertCondition
	Destination     *AlertDestination
	CooldownSeconds *int
}

// CheckAlertRule validates in; creating requires the name, the condition
// and the destination, and sets the default cooldown. allowPrivate admits
// http and private addresses as for webhooks (--webhooks-allow-private).
func CheckAlertRule(in AlertRuleInput, creating, allowPrivate bool) (AlertRuleChange, error) {
	var (
		errs ValidationError
		c    = AlertRuleChange{Condition: in.Condition, Destination: in.Destination, CooldownSeconds: in.CooldownSeconds}
	)
	switch {
	case in.Name != nil:
		name := strings.TrimSpace(*in.Name)
		if name == "" {
			errs.Add("name", "must not be empty")
		} else {
			CheckText(&errs, "name", name, MaxAlertRuleName)
		}
		c.Name = &name
	case creating:
		errs.Add("name", "is required")
	}
	switch {
	case in.Condition != nil:
		checkAlertCondition(&errs, in.Condition)
	case creating:
		errs.Add("condition", `is required: {"kind": "threshold", ...} or {"kind": "audit", "actions": [...]}`)
	}
	switch {
	case in.Destination != nil:
		d := in.Destination
		if !slices.Contains([]AlertFormat{AlertDiscord, AlertSlack, AlertStandardWebhook}, d.Format) {
			errs.Add("destination.format", "must be discord, slack or standard-webhooks")
		}
		var ue ValidationError
		checkWebhookURL(&ue, d.URL, allowPrivate)
		errs.Merge("destination", &ue)
	case creating:
		errs.Add("destination", `is required: {"format": "discord" | "slack" | "standard-webhooks", "url": "https://..."}`)
	}
	if in.CooldownSeconds != nil {
		if n := *in.CooldownSeconds; n < 0 || n > MaxAlertCooldown {
			errs.Add("cooldownSeconds", "must be between 0 and %d (7 days)", MaxAlertCooldown)
		}
	} else if creating {
		n := DefaultAlertCooldown
		c.CooldownSeconds = &n
	}
	return c, errs.Err()
}

func checkAlertCondition(errs *ValidationError, c *AlertCondition) {
	switch c.Kind {
	case AlertThreshold:
		if len(c.Actions) > 0 {
			errs.Add("condition.actions", "is for audit rules only")
		}
		if c.Filters == nil {
			c.Filters = map[string]string{}
		}
		v := url.Values{}
		for k, val := range c.Filters {
			if k == paramLimit || k == ParamAfter || !slices.Contains(FeedQueryParams, k) {
				errs.Add("condition.filters."+k, "is not a filter (known: accessPointId, locationId, type, allowed, platformUserId, reason, scope)")
				continue
			}
			v.Set(k, val)
		}
		var ve *ValidationError
		if _, err := ParseFeedQuery(v); errors.As(err, &ve) {
			errs.Merge("condition.filters", ve)
		}
		if c.GroupBy == "" {
			c.GroupBy = AlertByNone
		}
		if !slices.Contains([]AlertGroupBy{AlertByPlatformUser, AlertByAccessPoint, AlertByNone}, c.GroupBy) {
			errs.Add("condition.groupBy", "must be platformUserId, accessPointId or none")
		}
		if c.Threshold < 1 || c.Threshold > MaxAlertThreshold {
			errs.Add("condition.threshold", "must be between 1 and %d", MaxAlertThreshold)
		}
		if c.WindowSeconds < MinAlertWindowSeconds || c.WindowSeconds > MaxAlertWindowSeconds {
			errs.Add("condition.windowSeconds", "must be between %d and %d (one day)", MinAlertWindowSeconds, MaxAlertWindowSeconds)
		}
	case AlertAudit:
		if len(c.Filters) > 0 || c.GroupBy != "" || c.Threshold != 0 || c.WindowSeconds != 0 {
			errs.Add("condition", "an audit rule takes only kind and actions")
		}
		known := AlertAuditActions()
		if len(c.Actions) == 0 || len(c.Actions) > MaxAlertAuditActions {
			errs.Add("condition.actions", "must name 1 to %d audit actions", MaxAlertAuditActions)
		}
		var acts []AuditAction
		for i, a := range c.Actions {
			if !slices.Contains(known, a) {
				errs.Add(fmt.Sprintf("condition.actions[%d]", i), "is not an audit action (e.g. policy.changed, api_key.created, lockdown.started)")
			} else if !slices.Contains(acts, a) {
				acts = append(acts, a)
			}
		}
		c.Actions = acts
	default:
		errs.Add("condition.kind", "must be threshold or audit")
	}
}

// Filter returns the event filter of a threshold rule's filters.
func (c AlertCondition) Filter() (EventFilter, error) {
	v := url.Values{}
	for k, val := range c.Filters {
		v.Set(k, val)
	}
	q, err := ParseFeedQuery(v)
	return q.Filter, err
}

// Matches reports whether an audit rule fires on action.
func (c AlertCondition) Matches(action AuditAction) bool {
	return c.Kind == AlertAudit && slices.Contains(c.Actions, action)
}

// EncodeAlertCondition is how stores keep a condition: its JSON.
func EncodeAlertCondition(c AlertCondition) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// DecodeAlertCondition reads a condition kept by EncodeAlertCondition.
func DecodeAlertCondition(s string) (AlertCondition, error) {
	var c AlertCondition
	err := json.Unmarshal([]byte(s), &c)
	return c, err
}
