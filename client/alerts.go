package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// AlertRule sends alerts to Discord, Slack or a Standard Webhooks
// receiver. A standard-webhooks destination's secret is only in the answer
// to CreateAlertRule (or to the UpdateAlertRule that made it one).
type AlertRule struct {
	ID              string           `json:"id"`
	Name            string           `json:"name"`
	Condition       AlertCondition   `json:"condition"`
	Destination     AlertDestination `json:"destination"`
	CooldownSeconds int              `json:"cooldownSeconds"`
	CreatedAt       time.Time        `json:"createdAt"`
	UpdatedAt       time.Time        `json:"updatedAt"`
	Secret          string           `json:"secret,omitempty"`
}

// AlertCondition is when a rule fires: Kind "threshold" (Threshold
// events matching Filters of one group, GroupBy platformUserId,
// accessPointId or none, within WindowSeconds) or "audit" (an audit entry
// of one of Actions).
type AlertCondition struct {
	Kind          string            `json:"kind"`
	Filters       map[string]string `json:"filters,omitempty"`
	GroupBy       string            `json:"groupBy,omitempty"`
	Threshold     int               `json:"threshold,omitempty"`
	WindowSeconds int               `json:"windowSeconds,omitempty"`
	Actions       []string          `json:"actions,omitempty"`
}

// AlertDestination is where alerts go: Format discord, slack or
// standard-webhooks, and the receiver's URL.
type AlertDestination struct {
	Format string `json:"format"`
	URL    string `json:"url"`
}

// AlertRuleInput creates a rule (Name, Condition and Destination
// required) or changes one (nil fields are left as they are).
type AlertRuleInput struct {
	Name            *string           `json:"name,omitempty"`
	Condition       *AlertCondition   `json:"condition,omitempty"`
	Destination     *AlertDestination `json:"destination,omitempty"`
	CooldownSeconds *int              `json:"cooldownSeconds,omitempty"`
}

// Alert is what a rule fired (or a test of it) and how its delivery went.
type Alert struct {
	ID            string    `json:"id"`
	RuleID        string    `json:"ruleId"`
	RuleName      string    `json:"ruleName"`
	Kind          string    `json:"kind"`
	Test          bool      `json:"test"`
	GroupBy       string    `json:"groupBy"`
	Group         string    `json:"group"`
	Count         int       `json:"count"`
	WindowSeconds int       `json:"windowSeconds"`
	WindowStart   time.Time `json:"windowStart"`
	WindowEnd     time.Time `json:"windowEnd"`
	Audit         *struct {
		ID     string `json:"id"`
		Action string `json:"action"`
		Actor  string `json:"actor"`
		Target string `json:"target"`
	} `json:"audit,omitempty"`
	FiredAt  time.Time `json:"firedAt"`
	Link     string    `json:"link"`
	Delivery struct {
		Status        string     `json:"status"` // pending, succeeded, failed
		Attempts      int        `json:"attempts"`
		NextAttemptAt *time.Time `json:"nextAttemptAt"`
		LastError     string     `json:"lastError,omitempty"`
	} `json:"delivery"`
	// Deliveries are the attempts, newest first: only from Alert.
	Deliveries []AlertAttempt `json:"deliveries,omitempty"`
}

// AlertAttempt is one attempt at sending an alert.
type AlertAttempt struct {
	ID           string    `json:"id"`
	Attempt      int       `json:"attempt"`
	At           time.Time `json:"at"`
	Status       string    `json:"status"`
	ResponseCode *int      `json:"responseCode"`
	LatencyMS    *int64    `json:"latencyMs"`
	Error        string    `json:"error,omitempty"`
	Response     string    `json:"response,omitempty"`
}

// AlertPage is a page of alerts; NextCursor is nil on the last.
type AlertPage struct {
	Data       []Alert `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

const alertRulesPath = "/api/consumer/v1/alert-rules"

func alertRulePath(id string, rest ...string) string {
	p := alertRulesPath + "/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// CreateAlertRule makes a rule (a key with webhooks:write, and events:read
// for a threshold rule or audit:read for an audit rule).
func (c *Client) CreateAlertRule(ctx context.Context, in AlertRuleInput) (*AlertRule, error) {
	var r AlertRule
	return &r, c.do(ctx, "POST", alertRulesPath, nil, in, &r)
}

// ListAlertRules returns the organization's rules, oldest first.
func (c *Client) ListAlertRules(ctx context.Context) ([]AlertRule, error) {
	var list struct{ Data []AlertRule }
	return list.Data, c.do(ctx, "GET", alertRulesPath, nil, nil, &list)
}

// AlertRule returns one rule; an unknown one is an *Error with Status 404.
func (c *Client) AlertRule(ctx context.Context, id string) (*AlertRule, error) {
	var r AlertRule
	return &r, c.do(ctx, "GET", alertRulePath(id), nil, nil, &r)
}

// UpdateAlertRule changes a rule's fields set in in.
func (c *Client) UpdateAlertRule(ctx context.Context, id string, in AlertRuleInput) (*AlertRule, error) {
	var r AlertRule
	return &r, c.do(ctx, "PATCH", alertRulePath(id), nil, in, &r)
}

// DeleteAlertRule deletes a rule and the alerts it fired.
func (c *Client) DeleteAlertRule(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", alertRulePath(id), nil, nil, nil)
}

// TestAlertRule queues a test alert of a rule and returns it, pending.
func (c *Client) TestAlertRule(ctx context.Context, id string) (*Alert, error) {
	var a Alert
	return &a, c.do(ctx, "POST", alertRulePath(id, "test"), nil, nil, &a)
}

// Alerts returns a page of what the rules fired, newest first: of one
// rule when ruleID is set; cursor "" for the first page, limit 0 for the
// server's default.
func (c *Client) Alerts(ctx context.Context, ruleID, cursor string, limit int) (*AlertPage, error) {
	q := url.Values{}
	if ruleID != "" {
		q.Set("ruleId", ruleID)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var p AlertPage
	return &p, c.do(ctx, "GET", "/api/consumer/v1/alerts", q, nil, &p)
}

// Alert returns one alert with every attempt at delivering it.
func (c *Client) Alert(ctx context.Context, id string) (*Alert, error) {
	var a Alert
	return &a, c.do(ctx, "GET", "/api/consumer/v1/alerts/"+url.PathEscape(id), nil, nil, &a)
}
