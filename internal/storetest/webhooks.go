package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

func (f *fixture) webhook(org uuid.UUID, url string, filters string, types ...gatehouse.WebhookType) gatehouse.Webhook {
	f.t.Helper()
	if len(types) == 0 {
		types = []gatehouse.WebhookType{gatehouse.WebhookEventCreated}
	}
	w, err := f.s.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
		gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: org, URL: url, Types: types, CreatedAt: gatehouse.Time(f.now)},
		filters, []byte("sealed "+url))
	must(f.t, err)
	return w
}

func webhookEntry() gatehouse.AuditEntry { return gatehouse.SystemEntry(gatehouse.AuditWebhookChanged) }

// testWebhooks: endpoints are stored at the heads of their
// organization's feeds, listed, changed with their changes recorded,
// deleted with their log, and invisible to other organizations.
func testWebhooks(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	gate := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Gate")
	f.ingest(a.ID, f.attempt(gate, gatehouse.EventAccessGranted, 1))
	f.settle() // the head a new endpoint starts at is past that event

	w := f.webhook(a.ID, "https://hooks.example/a", "type=ACCESS_DENIED")
	if !w.Enabled || w.Failing != nil || w.URL != "https://hooks.example/a" || w.Filters["type"] != "ACCESS_DENIED" ||
		len(w.Types) != 1 || w.Types[0] != gatehouse.WebhookEventCreated || !time.Time(w.CreatedAt).Equal(f.now) {
		t.Errorf("created %+v", w)
	}
	// At the head: the event stored before is not the endpoint's.
	page, err := f.s.ReadFeed(ctx, a.ID, gatehouse.EventFilter{Limit: 10}, w.EventsAfter)
	must(t, err)
	if len(page.Events) != 0 {
		t.Errorf("the feed after a new endpoint's position has %d events, want none", len(page.Events))
	}
	f.ingest(a.ID, f.attempt(gate, gatehouse.EventAccessDenied, 0))
	f.settle()
	if page, _ := f.s.ReadFeed(ctx, a.ID, gatehouse.EventFilter{Limit: 10}, w.EventsAfter); len(page.Events) != 1 {
		t.Errorf("the feed after the position has %d events after one more, want 1", len(page.Events))
	}

	theirs := f.webhook(b.ID, "https://hooks.example/b", "")
	hooks, err := f.s.ListWebhooks(ctx, a.ID)
	if err != nil || len(hooks) != 1 || hooks[0].ID != w.ID {
		t.Errorf("ListWebhooks(a) = %+v, %v; want only a's", hooks, err)
	}
	_, err = f.s.FindWebhook(ctx, a.ID, theirs.ID)
	wantErr(t, "find another organization's endpoint", err, gatehouse.ErrNotFound)
	_, err = f.s.UpdateWebhook(ctx, webhookEntry(), a.ID, theirs.ID, gatehouse.WebhookChange{URL: ptr("https://x.example")}, f.now)
	wantErr(t, "change another organization's endpoint", err, gatehouse.ErrNotFound)
	err = f.s.DeleteWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookDeleted), a.ID, theirs.ID)
	wantErr(t, "delete another organization's endpoint", err, gatehouse.ErrNotFound)
	_, err = f.s.AddWebhookDelivery(ctx, a.ID, theirs.ID, gatehouse.WebhookDelivery{ID: gatehouse.NewID()})
	wantErr(t, "queue a delivery to another organization's endpoint", err, gatehouse.ErrNotFound)

	off := false
	got, err := f.s.UpdateWebhook(ctx, webhookEntry(), a.ID, w.ID, gatehouse.WebhookChange{Enabled: &off}, f.now)
	must(t, err)
	if got.Enabled || got.DisabledReason != "disabled" || got.Generation != w.Generation+1 {
		t.Errorf("disabled endpoint = %+v, want disabled with the next generation", got)
	}
	offGeneration := got.Generation
	_, err = f.s.AddWebhookDelivery(ctx, a.ID, w.ID, gatehouse.WebhookDelivery{ID: gatehouse.NewID()})
	wantErr(t, "queue a delivery to a disabled endpoint", err, gatehouse.ErrConflict)
	filters := "allowed=denied"
	got, err = f.s.UpdateWebhook(ctx, webhookEntry(), a.ID, w.ID, gatehouse.WebhookChange{URL: ptr("https://hooks.example/a2"), Filters: &filters}, f.now)
	must(t, err)
	if got.URL != "https://hooks.example/a2" || got.Filters["allowed"] != "denied" || got.Generation != offGeneration+1 {
		t.Errorf("changed endpoint = %+v", got)
	}
	// Nothing changed: nothing recorded.
	if _, err := f.s.UpdateWebhook(ctx, webhookEntry(), a.ID, w.ID, gatehouse.WebhookChange{URL: ptr("https://hooks.example/a2")}, f.now); err != nil {
		t.Fatal(err)
	}
	log := f.log(a.ID, gatehouse.AuditFilter{})
	actions := map[gatehouse.AuditAction]int{}
	for _, e := range log {
		if e.Target.Type == gatehouse.TargetWebhook {
			actions[e.Action]++
		}
	}
	if actions[gatehouse.AuditWebhookCreated] != 1 || actions[gatehouse.AuditWebhookDisabled] != 1 || actions[gatehouse.AuditWebhookChanged] != 1 {
		t.Errorf("webhook audit entries = %v, want one created, one disabled, one changed", actions)
	}

	must(t, f.s.DeleteWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookDeleted), a.ID, w.ID))
	_, err = f.s.FindWebhook(ctx, a.ID, w.ID)
	wantErr(t, "find a deleted endpoint", err, gatehouse.ErrNotFound)
	if hooks, _ := f.s.ListWebhooks(ctx, b.ID); len(hooks) != 1 {
		t.Errorf("b's endpoints after a's deletion = %+v", hooks)
	}

	for i := range gatehouse.MaxWebhooks - 1 {
		f.webhook(b.ID, fmt.Sprintf("https://hooks.example/%d", i), "")
	}
	_, err = f.s.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
		gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: b.ID, URL: "https://one.too.many", CreatedAt: gatehouse.Time(f.now)}, "", []byte("s"))
	wantErr(t, "an endpoint past the limit", err, gatehouse.ErrConflict)
}

// testWebhookClaims: a due endpoint is leased to one holder at a time;
// a round's progress is saved only under its lease and generation, and
// its log rows always; a replay moves the generation; the log keeps the
// newest deliveries.
func testWebhookClaims(t *testing.T, f *fixture) {
	a := f.org("Acme")
	w := f.webhook(a.ID, "https://hooks.example/a", "", gatehouse.WebhookEventCreated, gatehouse.WebhookCommandUpdated)
	const ttl = time.Minute
	c, err := f.s.ClaimWebhook(ctx, "one", f.now, ttl)
	must(t, err)
	if c.Webhook.ID != w.ID || string(c.Sealed) != "sealed https://hooks.example/a" || len(c.Pending) != 0 {
		t.Errorf("claim = %+v", c)
	}
	_, err = f.s.ClaimWebhook(ctx, "two", f.now, ttl)
	wantErr(t, "claim a leased endpoint", err, gatehouse.ErrNotFound)

	delivered := func(status string) gatehouse.WebhookDelivery {
		return gatehouse.WebhookDelivery{ID: gatehouse.NewID(), MessageID: "msg_1", Type: gatehouse.WebhookEventCreated,
			ObjectID: gatehouse.NewID(), Status: status, Attempt: 1, At: gatehouse.Time(f.now), ResponseCode: ptr(500), LatencyMS: ptr(int64(12))}
	}
	since := f.now
	failed := gatehouse.WebhookProgress{OrgID: a.ID, ID: w.ID, Holder: "one", Generation: c.Webhook.Generation, Now: f.now,
		Deliveries: []gatehouse.WebhookDelivery{delivered(gatehouse.DeliveryFailed)}, EventsAfter: gatehouse.FeedPosition{Txn: w.EventsAfter.Txn, Seq: 7},
		CommandsAfter: w.CommandsAfter, Attempts: 1, FailingSince: &since, LastError: "boom", NextAt: f.now.Add(time.Minute), Release: true}
	must(t, f.s.SaveWebhookProgress(ctx, failed))
	got, _ := f.s.FindWebhook(ctx, a.ID, w.ID)
	if got.Failing == nil || got.Failing.Attempts != 1 || got.Failing.LastError != "boom" ||
		!time.Time(got.Failing.NextAttemptAt).Equal(f.now.Add(time.Minute)) || got.EventsAfter.Seq != 7 {
		t.Errorf("after a failed round: %+v (failing %+v)", got, got.Failing)
	}
	// Released, but not due until its next attempt.
	_, err = f.s.ClaimWebhook(ctx, "two", f.now, ttl)
	wantErr(t, "claim an endpoint backing off", err, gatehouse.ErrNotFound)
	f.now = f.now.Add(time.Minute)
	c2, err := f.s.ClaimWebhook(ctx, "two", f.now, ttl)
	must(t, err)

	// "one" lost its lease: its late save stores its log row only.
	late := failed
	late.Now, late.Deliveries = f.now, []gatehouse.WebhookDelivery{delivered(gatehouse.DeliverySucceeded)}
	late.EventsAfter.Seq, late.Attempts, late.FailingSince = 99, 0, nil
	wantErr(t, "save without the lease", f.s.SaveWebhookProgress(ctx, late), gatehouse.ErrConflict)
	got, _ = f.s.FindWebhook(ctx, a.ID, w.ID)
	if got.EventsAfter.Seq != 7 || got.Failing == nil {
		t.Errorf("a save without the lease moved the endpoint: %+v", got)
	}
	ds, err := f.s.ListWebhookDeliveries(ctx, a.ID, w.ID, 10)
	must(t, err)
	if len(ds) != 2 || ds[0].Status != gatehouse.DeliverySucceeded || ds[1].Status != gatehouse.DeliveryFailed ||
		ds[1].ResponseCode == nil || *ds[1].ResponseCode != 500 {
		t.Errorf("delivery log = %+v, want the late success then the failure", ds)
	}

	// A replay under way: the holder's save keeps the replayed position.
	replayed, err := f.s.UpdateWebhook(ctx, webhookEntry(), a.ID, w.ID, gatehouse.WebhookChange{EventsAfter: &gatehouse.FeedPosition{}, SealCursor: sealCursor}, f.now)
	must(t, err)
	if replayed.Failing != nil || replayed.EventsAfter != (gatehouse.FeedPosition{}) || replayed.Generation == c2.Webhook.Generation {
		t.Errorf("replayed = %+v", replayed)
	}
	ok := failed
	ok.Holder, ok.Generation, ok.Now, ok.Deliveries = "two", c2.Webhook.Generation, f.now, nil
	ok.EventsAfter.Seq, ok.Attempts, ok.FailingSince = 50, 0, nil
	wantErr(t, "save after a replay", f.s.SaveWebhookProgress(ctx, ok), gatehouse.ErrConflict)
	if got, _ = f.s.FindWebhook(ctx, a.ID, w.ID); got.EventsAfter != (gatehouse.FeedPosition{}) {
		t.Errorf("a round saved over a replay: %+v", got.EventsAfter)
	}

	// A queued manual delivery comes with the claim, and makes the
	// endpoint due at once.
	f.now = f.now.Add(time.Second)
	manual := delivered(gatehouse.DeliveryPending)
	manual.Manual = true
	_, err = f.s.AddWebhookDelivery(ctx, a.ID, w.ID, manual)
	must(t, err)
	c3, err := f.s.ClaimWebhook(ctx, "three", f.now, ttl)
	must(t, err)
	if len(c3.Pending) != 1 || c3.Pending[0].ID != manual.ID {
		t.Errorf("claim's pending = %+v, want the queued delivery", c3.Pending)
	}
	if d, err := f.s.FindWebhookDelivery(ctx, a.ID, w.ID, manual.ID); err != nil || d.Status != gatehouse.DeliveryPending {
		t.Errorf("FindWebhookDelivery = %+v, %v", d, err)
	}

	// The log keeps the newest KeptDeliveries.
	many := gatehouse.WebhookProgress{OrgID: a.ID, ID: w.ID, Holder: "three", Generation: c3.Webhook.Generation, Now: f.now,
		EventsAfter: c3.Webhook.EventsAfter, CommandsAfter: c3.Webhook.CommandsAfter, NextAt: f.now, Release: true}
	for range 1005 {
		many.Deliveries = append(many.Deliveries, delivered(gatehouse.DeliverySucceeded))
	}
	must(t, f.s.SaveWebhookProgress(ctx, many))
	ds, err = f.s.ListWebhookDeliveries(ctx, a.ID, w.ID, gatehouse.MaxDeliveriesListed)
	must(t, err)
	if len(ds) != 1000 || ds[0].ID != many.Deliveries[1004].ID {
		t.Errorf("the log keeps %d deliveries (newest %v), want the newest 1000", len(ds), ds[0].ID)
	}
}

// testCommandChanges: every status change of an issued command moves it
// to the end of its organization's command changes.
func testCommandChanges(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	read := func(after gatehouse.FeedPosition) ([]gatehouse.CommandChange, gatehouse.FeedPosition) {
		t.Helper()
		changes, next, err := f.s.ReadCommandChanges(ctx, p.org.ID, after, 10)
		must(t, err)
		return changes, next
	}
	_, start := read(gatehouse.FeedPosition{})
	first := f.create(f.command(p, gatehouse.ScopeUniverse, "job-1"))
	second := f.create(f.command(p, gatehouse.ScopeUniverse, "job-1"))
	f.create(f.command(q, gatehouse.ScopeUniverse, "job-9"))
	f.settle()
	changes, next := read(start)
	if len(changes) != 2 || changes[0].ID != first.ID || changes[1].ID != second.ID || changes[0].Status != gatehouse.CommandPending {
		t.Fatalf("changes after two commands = %+v", changes)
	}
	if again, same := read(next); len(again) != 0 || same != next {
		t.Errorf("read at the end = %+v, %+v; want nothing and the same position", again, same)
	}
	f.now = f.now.Add(time.Second)
	_, err := f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, first.ID, f.now)
	must(t, err)
	f.settle()
	changes, _ = read(next)
	if len(changes) != 1 || changes[0].ID != first.ID || changes[0].Status != gatehouse.CommandCancelled {
		t.Errorf("changes after a cancel = %+v", changes)
	}
	all, _ := read(start)
	if len(all) != 2 || all[0].ID != second.ID || all[1].ID != first.ID {
		t.Errorf("from the start, each command once at its latest change: %+v", all)
	}
	if changes, _, err := f.s.ReadCommandChanges(ctx, gatehouse.NewID(), gatehouse.FeedPosition{}, 10); err != nil || len(changes) != 0 {
		t.Errorf("an unknown organization's changes = %+v, %v", changes, err)
	}
}

// testWebhookClaimsShared: claims share the endpoints due between
// organizations, whichever holder (worker, instance) asks. A claim takes
// an endpoint of the organization with the fewest endpoints leased, then
// of the one whose last lease ended longest ago, then the one due
// soonest: an organization with many endpoints due holds at most one
// lease more than another that has one waiting, and organizations are
// served in turn.
func testWebhookClaimsShared(t *testing.T, f *fixture) {
	a, b := f.org("Many"), f.org("Few")
	start := f.now
	for i := range 5 {
		f.webhook(a.ID, fmt.Sprintf("https://many.example/%d", i), "")
	}
	// b's are due a second later than all of a's: due-soonest-first
	// would give a's five first.
	f.now = f.now.Add(time.Second)
	for i := range 2 {
		f.webhook(b.ID, fmt.Sprintf("https://few.example/%d", i), "")
	}
	const ttl = time.Minute
	var claims []gatehouse.WebhookClaim
	claim := func() uuid.UUID {
		t.Helper()
		c, err := f.s.ClaimWebhook(ctx, fmt.Sprintf("holder-%d", len(claims)), f.now, ttl)
		must(t, err)
		claims = append(claims, c)
		return c.Webhook.OrgID
	}
	var got []string
	name := map[uuid.UUID]string{a.ID: "many", b.ID: "few"}
	for range 7 {
		got = append(got, name[claim()])
	}
	if want := "many few many few many many many"; strings.Join(got, " ") != want {
		t.Errorf("claims went to %v, want %s: the organization with the fewest leases first", got, want)
	}
	_, err := f.s.ClaimWebhook(ctx, "holder-8", f.now, ttl)
	wantErr(t, "claim with every endpoint leased", err, gatehouse.ErrNotFound)

	// Every round ends; b's ended before a's. All are due again, a's
	// sooner: b, served longest ago, comes first, then a (which has
	// none leased while b has one), then b (each has one, a's taken
	// since).
	f.now = start.Add(10 * time.Second)
	for i, c := range claims {
		if c.Webhook.OrgID == b.ID {
			saveReleased(t, f, fmt.Sprintf("holder-%d", i), c, start.Add(2*time.Second))
		}
	}
	f.now = f.now.Add(time.Second)
	for i, c := range claims {
		if c.Webhook.OrgID == a.ID {
			saveReleased(t, f, fmt.Sprintf("holder-%d", i), c, start)
		}
	}
	f.now = f.now.Add(time.Second)
	claims = nil
	got = nil
	for range 3 {
		got = append(got, name[claim()])
		f.now = f.now.Add(time.Second)
	}
	if want := "few many few"; strings.Join(got, " ") != want {
		t.Errorf("claims after every round ended went to %v, want %s: the organization served longest ago first", got, want)
	}
}

// saveReleased ends holder's round on c's endpoint, due again at next.
func saveReleased(t *testing.T, f *fixture, holder string, c gatehouse.WebhookClaim, next time.Time) {
	t.Helper()
	w := c.Webhook
	must(t, f.s.SaveWebhookProgress(ctx, gatehouse.WebhookProgress{OrgID: w.OrgID, ID: w.ID, Holder: holder,
		Generation: w.Generation, Now: f.now, EventsAfter: w.EventsAfter, CommandsAfter: w.CommandsAfter, NextAt: next, Release: true}))
}

// sealCursor stands for the service's sealing of a feed position in an
// audit entry's change.
func sealCursor(p gatehouse.FeedPosition) string { return fmt.Sprintf("sealed %d.%d", p.Txn, p.Seq) }
