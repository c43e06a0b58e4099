package storetest

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// CheckLegacyFeedCursors is each store's test of the migration that
// begins sealed feed cursors (0019): s is migrated up to the one before
// it, and migrate applies the rest. A cursor of the first form handed
// out before the migration (after the first of three events) still
// reads the events after it, those stored since included; the ceiling
// is past every event stored before and before every event stored
// after; and a cursor of the first form written by hand past the
// ceiling reads from the ceiling.
func CheckLegacyFeedCursors(t *testing.T, s gatehouse.Store, migrate func(context.Context) error) {
	t.Helper()
	now := time.Now()
	org, err := s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	must(t, err)
	loc, err := s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	must(t, err)
	door, err := s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Door")
	must(t, err)
	var ids []uuid.UUID
	ingest := func() {
		t.Helper()
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, AccessPointID: door.ID, OccurredAt: now}
		_, err := s.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{ev})
		must(t, err)
		ids = append(ids, ev.ID)
	}
	// positions reads the whole feed once it holds n events (PostgreSQL
	// holds an event back while an older transaction of the cluster runs).
	positions := func(n int) []gatehouse.FeedPosition {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			page, err := s.ReadFeed(ctx, org.ID, gatehouse.EventFilter{Limit: 100}, gatehouse.FeedPosition{})
			must(t, err)
			if len(page.Events) >= n {
				return page.Positions
			}
			if time.Now().After(deadline) {
				t.Fatalf("the feed holds %d events after 20 s, want %d", len(page.Events), n)
			}
		}
	}
	legacy := func(p gatehouse.FeedPosition) string {
		return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "f1.%d.%d", p.Txn, p.Seq))
	}
	ingest()
	ingest()
	ingest()
	before := positions(3)
	handedOut := legacy(before[0])
	must(t, migrate(ctx))
	ingest()
	all := positions(4)

	ceiling, err := s.FeedCursorCeiling(ctx, org.ID)
	must(t, err)
	if ceiling.Less(before[2]) || !ceiling.Less(all[3]) {
		t.Errorf("ceiling %+v, want at or past %+v and before %+v", ceiling, before[2], all[3])
	}
	svc := service.New(service.Config{Store: s, Secret: []byte("0123456789abcdef0123456789abcdef")})
	read := func(cursor string) []uuid.UUID {
		t.Helper()
		q, err := svc.ReadFeedQuery(ctx, org.ID, url.Values{"after": {cursor}})
		must(t, err)
		page, err := svc.ReadFeed(ctx, org.ID, q)
		must(t, err)
		var got []uuid.UUID
		for _, e := range page.Events {
			got = append(got, e.ID)
		}
		return got
	}
	if got := read(handedOut); !slices.Equal(got, ids[1:]) {
		t.Errorf("after a cursor of the first form handed out before: %v, want %v", got, ids[1:])
	}
	if got := read(legacy(all[3])); !slices.Equal(got, ids[3:]) {
		t.Errorf("after a cursor of the first form written since: %v, want from the ceiling, %v", got, ids[3:])
	}
	if got := read(svc.FeedCursor(org.ID, all[2])); !slices.Equal(got, ids[3:]) {
		t.Errorf("after a sealed cursor: %v, want %v", got, ids[3:])
	}
}
