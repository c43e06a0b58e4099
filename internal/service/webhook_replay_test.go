package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/teststore"
)

// CountWebhookReplay counts what a replay from a starting point would
// send, changing nothing; without a starting point, or for a key that
// cannot read events, it refuses as ReplayWebhook does.
func TestCountWebhookReplay(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	svc, org, door := webhookService(t, teststore.Open(t, func() time.Time { return now }), now)
	url := "http://127.0.0.1:9/hook"
	hook, _, err := svc.CreateWebhook(ctx, org.ID, gatehouse.WebhookInput{URL: &url})
	must(t, err)
	commandsOnly, _, err := svc.CreateWebhook(ctx, org.ID, gatehouse.WebhookInput{URL: &url, Types: []gatehouse.WebhookType{gatehouse.WebhookCommandUpdated}})
	must(t, err)
	granted := gatehouse.Granted
	for i := range 3 {
		_, err = svc.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted,
			OccurredAt: now.Add(-time.Duration(i+1) * time.Minute), AccessPointID: door.ID, Allowed: &granted}})
		must(t, err)
	}
	start := gatehouse.ReplayFrom{Start: true}

	if _, err := svc.CountWebhookReplay(ctx, org.ID, hook.ID, gatehouse.ReplayFrom{}); !errors.Is(err, gatehouse.ErrInvalid) ||
		len(gatehouse.AsValidation(err).Issues["after"]) == 0 {
		t.Errorf("no starting point: %v, want an issue keyed after", err)
	}
	if n, err := svc.CountWebhookReplay(ctx, org.ID, hook.ID, start); err != nil || n != 3 {
		t.Errorf("from the start: %d, %v; want 3", n, err)
	}
	if n, err := svc.CountWebhookReplay(ctx, org.ID, hook.ID, gatehouse.ReplayFrom{After: hook.Cursor}); err != nil || n != 3 {
		t.Errorf("after its cursor at creation: %d, %v; want 3", n, err)
	}
	if n, err := svc.CountWebhookReplay(ctx, org.ID, commandsOnly.ID, start); err != nil || n != 0 {
		t.Errorf("an endpoint without event.created: %d, %v; want 0", n, err)
	}
	if after, _ := svc.FindWebhook(ctx, org.ID, hook.ID); after.Cursor != hook.Cursor {
		t.Error("counting moved the endpoint")
	}
	key := func(scopes ...gatehouse.Scope) context.Context {
		return gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: gatehouse.NewID(), OrgID: org.ID, Scopes: scopes})
	}
	var se *gatehouse.ScopeError
	if _, err := svc.CountWebhookReplay(key(gatehouse.ScopeWebhooksWrite), org.ID, hook.ID, start); !errors.As(err, &se) || se.Scope != gatehouse.ScopeEventsRead {
		t.Errorf("a key without events:read: %v", err)
	}
	if n, err := svc.CountWebhookReplay(key(gatehouse.ScopeWebhooksWrite, gatehouse.ScopeEventsRead), org.ID, hook.ID, start); err != nil || n != 3 {
		t.Errorf("a key with events:read: %d, %v", n, err)
	}
}
