package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// Webhook is an endpoint Gatehouse delivers events (and command changes)
// to. Its secret is only in the answer to CreateWebhook.
type Webhook struct {
	ID          string            `json:"id"`
	URL         string            `json:"url"`
	Description string            `json:"description"`
	Types       []string          `json:"types"`   // event.created, command.updated
	Filters     map[string]string `json:"filters"` // the feed's filters, by parameter name
	Enabled     bool              `json:"enabled"`
	// DisabledReason is "disabled" (by a person) or "failing" (by
	// Gatehouse, after 72 hours of failures); empty while enabled.
	DisabledReason string    `json:"disabledReason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	// Cursor is the feed position delivered through.
	Cursor string `json:"cursor"`
	// Failing is set while the delivery at the head of the queue fails.
	Failing *WebhookFailing `json:"failing"`
	// PreviousSecretExpiresAt is, after a rotation, when the previous
	// secret stops signing beside the new one.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
	// Secret is set only in the answers to CreateWebhook and
	// RotateWebhookSecret: store it then.
	Secret string `json:"secret,omitempty"`
	// ReplayEvents is set only in the answers to ReplayWebhook and
	// ReplayWebhookFromStart: how many events the replay sends, counted
	// as it was made (events stored since follow too).
	ReplayEvents int64 `json:"replayEvents,omitempty"`
}

// WebhookFailing says since when an endpoint's head delivery fails.
type WebhookFailing struct {
	Since         time.Time `json:"since"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	LastError     string    `json:"lastError"`
}

// WebhookInput creates an endpoint (URL required) or changes one (nil
// fields are left as they are; Filters replaces the filters whole).
type WebhookInput struct {
	URL         *string            `json:"url,omitempty"`
	Description *string            `json:"description,omitempty"`
	Types       []string           `json:"types,omitempty"`
	Filters     *map[string]string `json:"filters,omitempty"`
	Enabled     *bool              `json:"enabled,omitempty"`
}

// WebhookDelivery is one attempt in an endpoint's delivery log.
type WebhookDelivery struct {
	ID           string    `json:"id"`
	MessageID    string    `json:"messageId"` // the webhook-id header
	Type         string    `json:"type"`
	ObjectID     string    `json:"objectId"`
	Status       string    `json:"status"` // pending, succeeded, failed
	Manual       bool      `json:"manual"`
	Attempt      int       `json:"attempt"`
	At           time.Time `json:"at"`
	ResponseCode *int      `json:"responseCode"`
	LatencyMS    *int64    `json:"latencyMs"`
	Error        string    `json:"error,omitempty"`
	Response     string    `json:"response,omitempty"`
}

const webhooksPath = "/api/consumer/v1/webhooks"

func webhookPath(id string, rest ...string) string {
	p := webhooksPath + "/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// CreateWebhook makes an endpoint (a key with webhooks:write) and returns
// it with its Secret, shown this once.
func (c *Client) CreateWebhook(ctx context.Context, in WebhookInput) (*Webhook, error) {
	var w Webhook
	return &w, c.do(ctx, "POST", webhooksPath, nil, in, &w)
}

// ListWebhooks returns the organization's endpoints, oldest first.
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	var list struct{ Data []Webhook }
	return list.Data, c.do(ctx, "GET", webhooksPath, nil, nil, &list)
}

// Webhook returns one endpoint; an unknown one is an *Error with Status 404.
func (c *Client) Webhook(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	return &w, c.do(ctx, "GET", webhookPath(id), nil, nil, &w)
}

// UpdateWebhook changes an endpoint's fields set in in.
func (c *Client) UpdateWebhook(ctx context.Context, id string, in WebhookInput) (*Webhook, error) {
	var w Webhook
	return &w, c.do(ctx, "PATCH", webhookPath(id), nil, in, &w)
}

// DeleteWebhook deletes an endpoint and its delivery log.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", webhookPath(id), nil, nil, nil)
}

// WebhookDeliveries returns an endpoint's latest limit deliveries, newest
// first (limit 0: the server's default).
func (c *Client) WebhookDeliveries(ctx context.Context, id string, limit int) ([]WebhookDelivery, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var list struct{ Data []WebhookDelivery }
	return list.Data, c.do(ctx, "GET", webhookPath(id, "deliveries"), q, nil, &list)
}

// RedeliverWebhook queues a delivery's message to be sent again, once,
// with the same webhook-id; the answer is the pending delivery.
func (c *Client) RedeliverWebhook(ctx context.Context, id, deliveryID string) (*WebhookDelivery, error) {
	var d WebhookDelivery
	return &d, c.do(ctx, "POST", webhookPath(id, "deliveries", url.PathEscape(deliveryID), "redeliver"), nil, nil, &d)
}

// TestWebhook queues a webhook.test message to the endpoint.
func (c *Client) TestWebhook(ctx context.Context, id string) (*WebhookDelivery, error) {
	var d WebhookDelivery
	return &d, c.do(ctx, "POST", webhookPath(id, "test"), nil, nil, &d)
}

// RotateWebhookSecret gives the endpoint a new secret, in the answer's
// Secret (the only time it is shown). For overlap (nil: the server's
// default, 24 h; at most 7 days) the previous secret signs deliveries
// too; PreviousSecretExpiresAt says until when.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string, overlap *time.Duration) (*Webhook, error) {
	body := map[string]int64{}
	if overlap != nil {
		body["overlapSeconds"] = int64(*overlap / time.Second)
	}
	var w Webhook
	return &w, c.do(ctx, "POST", webhookPath(id, "rotate-secret"), nil, body, &w)
}

// ReplayWebhook moves the endpoint's feed position to after, a feed
// cursor (a FeedPage's NextCursor, or an endpoint's Cursor): what follows
// is delivered again, in order. An empty cursor is no starting point (a
// 400 keyed "after"): to send every event again, ReplayWebhookFromStart.
// The answer's ReplayEvents counts the events the replay sends.
func (c *Client) ReplayWebhook(ctx context.Context, id, after string) (*Webhook, error) {
	var w Webhook
	return &w, c.do(ctx, "POST", webhookPath(id, "replay"), nil, map[string]string{"after": after}, &w)
}

// ReplayWebhookFromStart moves the endpoint's feed position to the
// feed's start: every event is delivered again, in order. The answer's
// ReplayEvents counts them.
func (c *Client) ReplayWebhookFromStart(ctx context.Context, id string) (*Webhook, error) {
	var w Webhook
	return &w, c.do(ctx, "POST", webhookPath(id, "replay"), nil, map[string]string{"from": "start"}, &w)
}
