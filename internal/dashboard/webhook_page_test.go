package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestWebhookPageDeliveriesAndActions: an endpoint's page shows its
// failing state and deliveries; test and redeliver queue a pending
// manual delivery; replay moves its cursor (a bad one is refused by
// field); disable and enable; delete after a confirmation.
func TestWebhookPageDeliveriesAndActions(t *testing.T) {
	s, rc := newWebhookSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	id, _ := createWebhook(b, url.Values{"url": {"https://hooks.example.com/x"}})
	path := "/dashboard/webhooks/" + id
	hookID := uuid.MustParse(id)
	detail := b.do("GET", path, nil)
	created, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID)
	if detail.status != http.StatusOK || !strings.Contains(detail.body, "Nothing delivered yet") || !strings.Contains(detail.body, created.Cursor) {
		t.Fatalf("the endpoint's page: %d, or no cursor", detail.status)
	}
	csrf := csrfOf(t, detail.body)

	// An event stored now fails to be delivered: the endpoint is failing.
	allowed := gatehouse.Denied
	ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &allowed, Reason: ptr("NO_RULE_MATCHED"),
		OccurredAt: s.now, AccessPointID: acme.ap.ID, PlatformUserID: ptr("333")}
	if _, err := s.store.IngestEvents(ctx, acme.org.ID, []gatehouse.NewEvent{ev}); err != nil {
		t.Fatal(err)
	}
	rc.answer(http.StatusInternalServerError)
	s.deliver()
	failing := b.do("GET", path, nil)
	for _, want := range []string{"msg_evt_" + ev.ID.String(), `<span class="badge failed">failed</span>`, "<td>500</td>",
		"attempts: 1", "the endpoint answered Internal Server Error", "event.created"} {
		if !strings.Contains(failing.body, want) {
			t.Errorf("the failing endpoint's page lacks %s", want)
		}
	}

	if r := b.do("POST", path+"/test", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=tested" {
		t.Fatalf("test: %d to %q", r.status, r.header.Get("Location"))
	}
	ds, _ := s.svc.ListWebhookDeliveries(ctx, acme.org.ID, hookID, 10)
	if len(ds) != 2 || ds[0].Type != gatehouse.WebhookTest || ds[0].Status != gatehouse.DeliveryPending || !ds[0].Manual {
		t.Fatalf("after a test: %+v", ds)
	}
	redeliver := regexp.MustCompile(`action="(`+path+`/deliveries/[0-9a-f-]{36}/redeliver)"`).FindAllStringSubmatch(b.do("GET", path+"?done=tested", nil).body, -1)
	if len(redeliver) != 2 {
		t.Fatalf("redeliver forms: %d, want one per delivery", len(redeliver))
	}
	if r := b.do("POST", redeliver[1][1], url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=redelivered" {
		t.Fatalf("redeliver: %d to %q", r.status, r.header.Get("Location"))
	}
	ds, _ = s.svc.ListWebhookDeliveries(ctx, acme.org.ID, hookID, 10)
	if len(ds) != 3 || ds[0].MessageID != "msg_evt_"+ev.ID.String() || ds[0].Status != gatehouse.DeliveryPending || !ds[0].Manual {
		t.Fatalf("after a redelivery: %+v", ds[0])
	}
	queued := b.do("GET", path+"?done=redelivered", nil)
	if !strings.Contains(queued.body, "queued to be sent again") || strings.Count(queued.body, `<span class="badge pending">pending</span>`) != 2 ||
		strings.Count(queued.body, "(manual)") != 2 {
		t.Error("the page does not show the two manual deliveries pending")
	}
	rc.answer(http.StatusNoContent)
	s.now = s.now.Add(time.Hour)
	s.deliver()
	if healthy := b.do("GET", path, nil); strings.Contains(healthy.body, "attempts:") || strings.Count(healthy.body, "badge succeeded") != 3 {
		t.Errorf("once the receiver answers, the page still shows failures or not three successes")
	}

	// Replay: a bad cursor by field; no starting point at all; then from
	// the feed's start, counted on a confirmation page first.
	before, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID)
	badReplay := b.do("POST", path+"/replay", url.Values{"csrf": {csrf}, "from": {"cursor"}, "after": {"not-a-cursor"}})
	if badReplay.status != http.StatusBadRequest || !strings.Contains(badReplay.body, "<strong>Cursor</strong>") || !strings.Contains(badReplay.body, `value="not-a-cursor"`) {
		t.Errorf("a bad cursor: %d", badReplay.status)
	}
	for _, form := range []url.Values{{"after": {""}}, {"from": {"cursor"}, "after": {""}}} {
		form.Set("csrf", csrf)
		form.Set("confirm", "yes")
		if r := b.do("POST", path+"/replay", form); r.status != http.StatusBadRequest || !strings.Contains(r.body, "choose") {
			t.Errorf("a replay without a starting point (%v): %d", form, r.status)
		}
	}
	if after, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); after.Cursor != before.Cursor {
		t.Error("a replay without a starting point moved the cursor")
	}
	feed, err := s.store.ReadFeed(ctx, acme.org.ID, gatehouse.EventFilter{Limit: 1000}, gatehouse.FeedPosition{})
	if err != nil || len(feed.Events) < 2 {
		t.Fatalf("the feed: %d events, %v", len(feed.Events), err)
	}
	asked := b.do("POST", path+"/replay", url.Values{"csrf": {csrf}, "from": {"start"}})
	if asked.status != http.StatusOK || !strings.Contains(asked.body, fmt.Sprintf("This replay sends %d events</strong>", len(feed.Events))) ||
		!strings.Contains(asked.body, `name="confirm" value="yes"`) || !strings.Contains(asked.body, `name="from" value="start"`) {
		t.Errorf("the confirmation: %d %s", asked.status, asked.body)
	}
	if after, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); after.Cursor != before.Cursor {
		t.Error("asking to confirm a replay moved the cursor")
	}
	if r := b.do("POST", path+"/replay", url.Values{"csrf": {csrf}, "from": {"start"}, "confirm": {"yes"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=replayed" {
		t.Fatalf("replay: %d to %q", r.status, r.header.Get("Location"))
	}
	if after, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); after.Cursor == before.Cursor {
		t.Error("a replay from the start left the cursor where it was")
	}
	if r := b.do("POST", path+"/replay", url.Values{"csrf": {csrf}, "from": {"cursor"}, "after": {before.Cursor}}); r.status != http.StatusOK || !strings.Contains(r.body, "This replay sends 0 events</strong>") {
		t.Errorf("the confirmation of a replay to its cursor: %d", r.status)
	}
	if r := b.do("POST", path+"/replay", url.Values{"csrf": {csrf}, "from": {"cursor"}, "after": {before.Cursor}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("replay to a cursor: %d", r.status)
	}
	if after, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); after.Cursor != before.Cursor {
		t.Errorf("a replay to the endpoint's own cursor: %s, want %s", after.Cursor, before.Cursor)
	}

	// Disable: nothing can be queued; enable again.
	if r := b.do("POST", path+"/enabled", url.Values{"csrf": {csrf}, "enabled": {"false"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=disabled" {
		t.Fatalf("disable: %d to %q", r.status, r.header.Get("Location"))
	}
	if h, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); h.Enabled || h.DisabledReason != "disabled" {
		t.Errorf("after disabling: enabled %v, reason %q", h.Enabled, h.DisabledReason)
	}
	disabled := b.do("GET", path, nil)
	if !strings.Contains(disabled.body, "by an admin") || strings.Contains(disabled.body, "Send test event") || strings.Contains(disabled.body, "/redeliver") {
		t.Error("a disabled endpoint's page offers test or redeliver, or does not say who disabled it")
	}
	if r := b.do("POST", path+"/test", url.Values{"csrf": {csrf}}); r.status != http.StatusConflict || !strings.Contains(r.body, "enable it first") {
		t.Errorf("a test of a disabled endpoint: %d", r.status)
	}
	if r := b.do("POST", redeliver[1][1], url.Values{"csrf": {csrf}}); r.status != http.StatusConflict {
		t.Errorf("a redelivery to a disabled endpoint: %d", r.status)
	}
	if r := b.do("POST", path+"/enabled", url.Values{"csrf": {csrf}, "enabled": {"true"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=enabled" {
		t.Fatalf("enable: %d to %q", r.status, r.header.Get("Location"))
	}
	if h, _ := s.svc.FindWebhook(ctx, acme.org.ID, hookID); !h.Enabled {
		t.Error("the endpoint is not enabled again")
	}

	// Delete, after a confirmation.
	confirm := b.do("GET", path+"/delete", nil)
	if confirm.status != http.StatusOK || !strings.Contains(confirm.body, "cannot be undone") || !strings.Contains(confirm.body, `action="`+path+`/delete"`) {
		t.Fatalf("the confirmation: %d", confirm.status)
	}
	if h, err := s.svc.FindWebhook(ctx, acme.org.ID, hookID); err != nil || h.ID != hookID {
		t.Fatal("the confirmation page deleted the endpoint")
	}
	if r := b.do("POST", path+"/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/webhooks?deleted=1" {
		t.Fatalf("delete: %d to %q", r.status, r.header.Get("Location"))
	}
	if _, err := s.svc.FindWebhook(ctx, acme.org.ID, hookID); err == nil {
		t.Error("the endpoint is still there")
	}
	if list := b.do("GET", "/dashboard/webhooks?deleted=1", nil); !strings.Contains(list.body, "The endpoint is deleted") || !strings.Contains(list.body, "No webhook endpoint yet") {
		t.Error("the list does not say the endpoint is deleted")
	}
	if r := b.do("GET", path, nil, "Accept", "text/html"); r.status != http.StatusNotFound {
		t.Errorf("the deleted endpoint's page: %d", r.status)
	}
}
