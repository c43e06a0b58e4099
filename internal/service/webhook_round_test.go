package service_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// eventsDown is a store whose event list fails, while down is set, the way
// a store does: with the label of the method that failed.
type eventsDown struct {
	gatehouse.Store
	down atomic.Bool
}

func (s *eventsDown) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	if s.down.Load() {
		return gatehouse.EventPage{}, &gatehouse.StoreError{Op: "Store.ListEvents", IDs: []uuid.UUID{orgID},
			Err: fmt.Errorf("%w: the disk is gone", gatehouse.ErrUnavailable)}
	}
	return s.Store.ListEvents(ctx, orgID, f)
}

// webhookService is a service on store at now whose webhook sends all
// answer 200 at once, with the organization Acme and its door "Front
// door" at HQ.
func webhookService(t *testing.T, store gatehouse.Store, now time.Time) (*service.Service, gatehouse.Organization, gatehouse.AccessPoint) {
	t.Helper()
	ctx := context.Background()
	svc := service.New(service.Config{Store: store, Secret: []byte("0123456789abcdef0123456789abcdef"), Now: func() time.Time { return now },
		Webhooks: service.WebhookSettings{AllowPrivate: true,
			Send: func(context.Context, string, http.Header, []byte) (int, []byte, error) { return 200, nil, nil }}})
	org, err := svc.CreateOrganization(ctx, "Acme")
	must(t, err)
	loc, err := svc.CreateLocation(ctx, org.ID, "HQ")
	must(t, err)
	door, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Front door")
	must(t, err)
	return svc, org, door
}

// A delivery that fails because the store did records the error as the
// receiver's owner reads it in the delivery log: without the store's
// label, which names an internal method and belongs in the server's log.
func TestWebhookFailureTextLeavesStoreLabelsOut(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	db := &eventsDown{Store: teststore.Open(t, func() time.Time { return now })}
	svc, org, door := webhookService(t, db, now)
	url := "http://127.0.0.1:9/hook"
	hook, _, err := svc.CreateWebhook(ctx, org.ID, gatehouse.WebhookInput{URL: &url, Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}})
	must(t, err)
	granted, user := gatehouse.Granted, "42"
	_, err = svc.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted,
		OccurredAt: now.Add(-time.Minute), AccessPointID: door.ID, Allowed: &granted, PlatformUserID: &user}})
	must(t, err)
	// On PostgreSQL the feed's horizon is the cluster's: another test's
	// transaction holds the event back, and a round that found nothing
	// would not come again on this fixed clock.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		page, err := db.ReadFeed(ctx, org.ID, gatehouse.EventFilter{Limit: 1}, gatehouse.FeedPosition{})
		must(t, err)
		if len(page.Events) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event never reached the feed")
		}
	}
	for claimed := true; claimed; {
		claimed, err = svc.DeliverWebhooks(ctx, "test")
		must(t, err)
	}
	sent, err := svc.ListWebhookDeliveries(ctx, org.ID, hook.ID, 10)
	must(t, err)
	if len(sent) != 1 || sent[0].Status != gatehouse.DeliverySucceeded {
		t.Fatalf("first deliveries: %+v", sent)
	}

	_, err = svc.RedeliverWebhook(ctx, org.ID, hook.ID, sent[0].ID)
	must(t, err)
	db.down.Store(true)
	_, err = svc.DeliverWebhooks(ctx, "test")
	must(t, err)
	db.down.Store(false)
	log, err := svc.ListWebhookDeliveries(ctx, org.ID, hook.ID, 10)
	must(t, err)
	if len(log) != 2 || log[0].Status != gatehouse.DeliveryFailed {
		t.Fatalf("after the redelivery: %+v", log)
	}
	if log[0].Error != "service unavailable: the disk is gone" {
		t.Errorf("the failure reads %q, want the cause without the store's label", log[0].Error)
	}
}
