package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// The webhook methods manage an endpoint end to end: its secret comes
// once, changes and refusals come back as the API says them.
func TestWebhookMethods(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	url, off, on := "https://hooks.example.com/gatehouse", false, true
	w, err := c.CreateWebhook(ctx, client.WebhookInput{URL: &url, Types: []string{"event.created", "command.updated"},
		Filters: &map[string]string{"type": "ACCESS_DENIED"}})
	must(t, err)
	if !strings.HasPrefix(w.Secret, "whsec_") || !w.Enabled || w.Filters["type"] != "ACCESS_DENIED" || len(w.Types) != 2 {
		t.Fatalf("created %+v", w)
	}
	list, err := c.ListWebhooks(ctx)
	must(t, err)
	if len(list) != 1 || list[0].ID != w.ID || list[0].Secret != "" {
		t.Errorf("ListWebhooks = %+v", list)
	}
	overlap := time.Hour
	rotated, err := c.RotateWebhookSecret(ctx, w.ID, &overlap)
	must(t, err)
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == w.Secret || rotated.PreviousSecretExpiresAt == nil {
		t.Errorf("rotated %+v", rotated)
	}
	got, err := c.UpdateWebhook(ctx, w.ID, client.WebhookInput{Enabled: &off})
	must(t, err)
	if got.Enabled || got.DisabledReason != "disabled" {
		t.Errorf("disabled = %+v", got)
	}
	var apiErr *client.Error
	if _, err := c.TestWebhook(ctx, w.ID); !errors.As(err, &apiErr) || apiErr.Status != 409 {
		t.Errorf("a test to a disabled endpoint: %v", err)
	}
	_, err = c.UpdateWebhook(ctx, w.ID, client.WebhookInput{Enabled: &on})
	must(t, err)
	d, err := c.TestWebhook(ctx, w.ID)
	must(t, err)
	if d.Status != "pending" || d.Type != "webhook.test" {
		t.Errorf("TestWebhook = %+v", d)
	}
	ds, err := c.WebhookDeliveries(ctx, w.ID, 10)
	must(t, err)
	if len(ds) != 1 || ds[0].ID != d.ID {
		t.Errorf("WebhookDeliveries = %+v", ds)
	}
	if _, err := c.RedeliverWebhook(ctx, w.ID, d.ID); err != nil {
		t.Errorf("RedeliverWebhook: %v", err)
	}
	if _, err := c.ReplayWebhook(ctx, w.ID, ""); !errors.As(err, &apiErr) || apiErr.Status != 400 || len(apiErr.Issues["after"]) == 0 {
		t.Errorf("a replay without a starting point: %v", err)
	}
	replayed, err := c.ReplayWebhookFromStart(ctx, w.ID)
	must(t, err)
	start, err := c.ReadFeed(ctx, client.EventQuery{}, "") // no events: its cursor is the feed's start
	must(t, err)
	if replayed.Cursor != start.NextCursor || replayed.ReplayEvents != 0 {
		t.Errorf("replayed to %q (%d events), want the feed's start %q and none", replayed.Cursor, replayed.ReplayEvents, start.NextCursor)
	}
	if again, err := c.ReplayWebhook(ctx, w.ID, replayed.Cursor); err != nil || again.Cursor != replayed.Cursor {
		t.Errorf("a replay from its own cursor: %v", err)
	}
	if _, err := c.ReplayWebhook(ctx, w.ID, "not-a-cursor"); !errors.As(err, &apiErr) || apiErr.Status != 400 || len(apiErr.Issues["after"]) == 0 {
		t.Errorf("a replay from a bad cursor: %v", err)
	}
	must(t, c.DeleteWebhook(ctx, w.ID))
	if _, err := c.Webhook(ctx, w.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("a deleted endpoint: %v", err)
	}
}
