package storetest

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func testIngest(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Front door")
	e1, e2 := f.attempt(door, gatehouse.EventAccessGranted, 2), f.attempt(door, gatehouse.EventAccessDenied, 1)
	e1.PlatformUserID, e1.PlatformUserName, e2.Reason = ptr("42"), ptr("Nightowl"), ptr(gatehouse.ReasonOutsideSchedule)
	res := f.ingest(a.ID, e1, e2, e1) // the same id twice in one batch
	if diff := cmp.Diff(gatehouse.IngestResult{Accepted: 2, Duplicates: 1, IDs: newIDs(e1, e2, e1)}, res); diff != "" {
		t.Errorf("first batch (-want +got)\n%s", diff)
	}
	received := f.now
	f.now = f.now.Add(time.Hour)
	changed := e1
	changed.PlatformUserID = ptr("99")
	res = f.ingest(a.ID, changed, e2)
	if res.Accepted != 0 || res.Duplicates != 2 {
		t.Errorf("retry: %+v", res)
	}
	events := f.all(a.ID, gatehouse.EventFilter{}, 10)
	if diff := cmp.Diff([]uuid.UUID{e2.ID, e1.ID}, ids(events)); diff != "" {
		t.Fatal(diff)
	}
	got := events[1]
	want := gatehouse.Event{ID: e1.ID, Type: gatehouse.EventAccessGranted, OccurredAt: gatehouse.Time(e1.OccurredAt),
		ReceivedAt: gatehouse.Time(received), Allowed: ptr(gatehouse.Granted), PlatformUserID: ptr("42"), PlatformUserName: ptr("Nightowl"),
		Location: gatehouse.NamedRef{ID: door.LocationID, Name: "HQ"}, AccessPoint: gatehouse.NamedRef{ID: door.ID, Name: "Front door"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored event: first write wins, receivedAt is the store clock (-want +got)\n%s", diff)
	}
}

func testIngestAllOrNothing(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Front door")
	foreign := f.accessPoint(b.ID, f.location(b.ID, "HQ").ID, "Front door")
	foreignUser, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: b.ID, Email: "b@example.com", PasswordHash: "h"}, nil)
	must(t, err)
	good := f.attempt(door, gatehouse.EventAccessGranted, 1)
	bad := f.attempt(foreign, gatehouse.EventAccessGranted, 1)
	unknown := f.attempt(gatehouse.AccessPoint{ID: gatehouse.NewID()}, gatehouse.EventAccessGranted, 1)
	requested := f.attempt(door, gatehouse.EventAccessGranted, 1)
	requested.RequestedBy = &foreignUser.ID

	_, err = f.s.IngestEvents(ctx, a.ID, []gatehouse.NewEvent{good, bad, unknown, requested})
	wantErr(t, "foreign access point and requester", err, gatehouse.ErrInvalid,
		"events[1].accessPointId", "events[2].accessPointId", "events[3].requestedBy")
	if got := f.all(a.ID, gatehouse.EventFilter{}, 10); len(got) != 0 {
		t.Errorf("a rejected batch stored %d events", len(got))
	}
	_, err = f.s.IngestEvents(ctx, gatehouse.NewID(), []gatehouse.NewEvent{good})
	wantErr(t, "unknown organization", err, gatehouse.ErrNotFound)
}

func testCommands(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Front door")
	user, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: a.ID, Email: "ops@example.com", Name: "Olivia", PasswordHash: "h"}, nil)
	must(t, err)
	cmdID := gatehouse.NewID()
	unlock := f.attempt(door, gatehouse.EventRemoteUnlock, 10)
	unlock.Allowed, unlock.Scope, unlock.PlatformUserID, unlock.RequestedBy = nil, ptr(gatehouse.ScopePlayer), ptr("7"), &user.ID
	unlock.Command = &gatehouse.NewCommand{ID: cmdID, Status: gatehouse.CommandPending, Scope: gatehouse.ScopePlayer, PlatformUserID: ptr("7"), IssuedAt: unlock.OccurredAt}
	entered := f.attempt(door, gatehouse.EventAccessGranted, 5)
	entered.Command = &gatehouse.NewCommand{ID: cmdID, Status: gatehouse.CommandExecuted, Scope: gatehouse.ScopePlayer, IssuedAt: entered.OccurredAt}
	f.ingest(a.ID, unlock, entered)
	// A late event about the command, older than the last status, changes nothing.
	late := f.attempt(door, gatehouse.EventAccessGranted, 8)
	late.Command = &gatehouse.NewCommand{ID: cmdID, Status: gatehouse.CommandDelivered, Scope: gatehouse.ScopePlayer, IssuedAt: late.OccurredAt}
	f.ingest(a.ID, late)

	events := f.all(a.ID, gatehouse.EventFilter{}, 10)
	if len(events) != 3 {
		t.Fatalf("%d events", len(events))
	}
	for _, e := range events {
		if e.Command == nil || e.Command.Status != gatehouse.CommandExecuted || e.Command.ID != cmdID {
			t.Errorf("event %s: command %+v, want the current status EXECUTED", e.Type, e.Command)
		}
	}
	got := events[2]
	if got.RequestedBy == nil || *got.RequestedBy != (gatehouse.Requester{ID: user.ID, Email: "ops@example.com", Name: "Olivia"}) {
		t.Errorf("requestedBy %+v", got.RequestedBy)
	}
	if c := got.Command; c.Scope != gatehouse.ScopePlayer || *c.PlatformUserID != "7" || !time.Time(c.IssuedAt).Equal(unlock.OccurredAt) {
		t.Errorf("command summary %+v: the first sight sets scope, target and issuedAt", c)
	}
}

// testIngestBatchSizes: a batch of any size stores each id once, the
// first copy of an id given twice, and counts the rest as duplicates, the
// same for the few events of a recorded decision and for a thousand (a
// store may write small and large batches differently).
func testIngestBatchSizes(t *testing.T, f *fixture) {
	a := f.org("Acme")
	door := f.accessPoint(a.ID, f.location(a.ID, "HQ").ID, "Front door")
	for _, n := range []int{1, 3, 199, 200, 201, 1000} {
		batch := make([]gatehouse.NewEvent, n)
		for i := range batch {
			batch[i] = f.attempt(door, gatehouse.EventAccessGranted, i%50)
			batch[i].PlatformUserID, batch[i].PlatformUserName = ptr("7"), ptr("Seven")
		}
		first := batch[0]
		again := first
		again.PlatformUserID = ptr("8")
		batch = append(batch, again)
		res := f.ingest(a.ID, batch...)
		if res.Accepted != n || res.Duplicates != 1 || len(res.IDs) != n+1 {
			t.Errorf("batch of %d and a repeat: accepted %d, duplicates %d, %d ids", n, res.Accepted, res.Duplicates, len(res.IDs))
		}
		got := f.all(a.ID, gatehouse.EventFilter{Q: first.ID.String()}, 10)
		if len(got) != 1 || got[0].PlatformUserID == nil || *got[0].PlatformUserID != "7" ||
			got[0].PlatformUserName == nil || *got[0].PlatformUserName != "Seven" {
			t.Errorf("batch of %d: the first copy of a repeated id is stored, got %+v", n, got)
		}
	}
}
