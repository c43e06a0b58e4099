package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// archive archives (or, with at nil, restores) an access point and fails
// the test on any error.
func (f *fixture) archiveAccessPoint(org, id uuid.UUID, at *time.Time) gatehouse.AccessPoint {
	f.t.Helper()
	action := gatehouse.AuditAccessPointArchived
	if at == nil {
		action = gatehouse.AuditAccessPointRestored
	}
	ap, err := f.s.SetAccessPointArchived(ctx, gatehouse.SystemEntry(action), org, id, at)
	must(f.t, err)
	return ap
}

func (f *fixture) archiveLocation(org, id uuid.UUID, at *time.Time) gatehouse.Location {
	f.t.Helper()
	action := gatehouse.AuditLocationArchived
	if at == nil {
		action = gatehouse.AuditLocationRestored
	}
	l, err := f.s.SetLocationArchived(ctx, gatehouse.SystemEntry(action), org, id, at)
	must(f.t, err)
	return l
}

// listed returns the names of org's locations, each with its access
// points' ("HQ: Door, Gate"), as ListLocations pages them.
func (f *fixture) listed(org uuid.UUID, withArchived bool) []string {
	f.t.Helper()
	locs, _, err := f.s.ListLocations(ctx, org, gatehouse.MaxLimit, nil, withArchived, nil)
	must(f.t, err)
	var out []string
	for _, l := range locs {
		names := pluck(l.AccessPoints, func(ap gatehouse.AccessPoint) string { return ap.Name })
		out = append(out, l.Name+": "+strings.Join(names, ", "))
	}
	return out
}

// actions returns the actions of org's audit log about target, oldest
// first.
func (f *fixture) actions(org, target uuid.UUID) []gatehouse.AuditAction {
	f.t.Helper()
	entries := f.log(org, gatehouse.AuditFilter{TargetID: &target})
	slices.Reverse(entries)
	return pluck(entries, func(e gatehouse.AuditEntry) gatehouse.AuditAction { return e.Action })
}

// testArchive: an archived access point or location leaves the lists but
// those asked for archived records, where it shows with its archivedAt;
// archiving again or restoring one in use records nothing; its events are
// still accepted and found, and its policy still in its universe's set.
// Another organization finds none of it.
func testArchive(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	gate := f.accessPoint(p.org.ID, p.loc.ID, "Gate")
	annex := f.location(p.org.ID, "Annex")
	f.accessPoint(p.org.ID, annex.ID, "Annex door")
	f.put(p.org.ID, gate.ID, policy(t, "1"), nil)

	at := f.now
	f.now = f.now.Add(time.Minute)
	ap := f.archiveAccessPoint(p.org.ID, gate.ID, &at)
	if ap.ArchivedAt == nil || !time.Time(*ap.ArchivedAt).Equal(at) || ap.Name != "Gate" || ap.LocationID != p.loc.ID {
		t.Fatalf("archived %+v", ap)
	}
	if got := f.listed(p.org.ID, false); !slices.Equal(got, []string{"Annex: Annex door", "HQ: Front door"}) {
		t.Errorf("listed without archived = %q", got)
	}
	if got := f.listed(p.org.ID, true); !slices.Equal(got, []string{"Annex: Annex door", "HQ: Front door, Gate"}) {
		t.Errorf("listed with archived = %q", got)
	}
	found, err := f.s.FindAccessPoint(ctx, p.org.ID, gate.ID)
	if err != nil || found.ArchivedAt == nil || !time.Time(*found.ArchivedAt).Equal(at) || found.LocationArchived {
		t.Errorf("FindAccessPoint = %+v, %v", found, err)
	}
	loc, err := f.s.FindLocation(ctx, p.org.ID, p.loc.ID)
	if err != nil || len(loc.AccessPoints) != 2 || loc.AccessPoints[1].ArchivedAt == nil || loc.AccessPoints[0].ArchivedAt != nil {
		t.Errorf("FindLocation = %+v, %v: want both access points, the archived one marked", loc, err)
	}
	// Archiving again keeps the first instant and records nothing.
	later := f.now
	if again := f.archiveAccessPoint(p.org.ID, gate.ID, &later); !time.Time(*again.ArchivedAt).Equal(at) {
		t.Errorf("archived again: %+v", again)
	}

	// Its events are accepted and found; its policy still serves.
	ev := f.attempt(gate, gatehouse.EventAccessDenied, 0)
	f.ingest(p.org.ID, ev)
	if got := f.all(p.org.ID, gatehouse.EventFilter{AccessPointID: &gate.ID}, 10); len(got) != 1 || got[0].ID != ev.ID || got[0].AccessPoint.Name != "Gate" {
		t.Errorf("events of the archived access point = %+v", got)
	}
	members, err := f.s.PolicySetMembers(ctx, p.org.ID, universe)
	must(t, err)
	if !slices.ContainsFunc(members, func(m gatehouse.PolicySetMember) bool { return m.AccessPoint.ID == gate.ID && m.PolicyVersion == 1 }) {
		t.Errorf("the policy set lost the archived access point: %+v", members)
	}

	// A location archived hides its access points with it.
	f.now = f.now.Add(time.Minute)
	locAt := f.now
	l := f.archiveLocation(p.org.ID, p.loc.ID, &locAt)
	if l.ArchivedAt == nil || !time.Time(*l.ArchivedAt).Equal(locAt) || l.Name != "HQ" || len(l.AccessPoints) != 2 {
		t.Errorf("archived location %+v", l)
	}
	if got := f.listed(p.org.ID, false); !slices.Equal(got, []string{"Annex: Annex door"}) {
		t.Errorf("listed without archived = %q", got)
	}
	if got := f.listed(p.org.ID, true); !slices.Equal(got, []string{"Annex: Annex door", "HQ: Front door, Gate"}) {
		t.Errorf("listed with archived = %q", got)
	}
	door, err := f.s.FindAccessPoint(ctx, p.org.ID, p.door.ID)
	if err != nil || door.ArchivedAt != nil || !door.LocationArchived {
		t.Errorf("an access point of the archived location = %+v, %v", door, err)
	}
	if err := door.Writable(); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("an access point of the archived location is writable: %v", err)
	}
	f.ingest(p.org.ID, f.attempt(p.door, gatehouse.EventAccessGranted, 0))
	if got := f.all(p.org.ID, gatehouse.EventFilter{LocationID: &p.loc.ID}, 10); len(got) != 2 {
		t.Errorf("events of the archived location: %d, want 2", len(got))
	}

	// Restored, both show again; restoring again records nothing.
	f.archiveLocation(p.org.ID, p.loc.ID, nil)
	if restored := f.archiveLocation(p.org.ID, p.loc.ID, nil); restored.ArchivedAt != nil {
		t.Errorf("restored location %+v", restored)
	}
	if ap := f.archiveAccessPoint(p.org.ID, gate.ID, nil); ap.ArchivedAt != nil {
		t.Errorf("restored access point %+v", ap)
	}
	if got := f.listed(p.org.ID, false); !slices.Equal(got, []string{"Annex: Annex door", "HQ: Front door, Gate"}) {
		t.Errorf("listed after restoring = %q", got)
	}

	if got := f.actions(p.org.ID, gate.ID); !slices.Equal(got, []gatehouse.AuditAction{gatehouse.AuditAccessPointCreated,
		gatehouse.AuditPolicyChanged, gatehouse.AuditAccessPointArchived, gatehouse.AuditAccessPointRestored}) {
		t.Errorf("audit of the access point = %v", got)
	}
	if got := f.actions(p.org.ID, p.loc.ID); !slices.Equal(got, []gatehouse.AuditAction{gatehouse.AuditLocationCreated,
		gatehouse.AuditLocationUniverseSet, gatehouse.AuditLocationArchived, gatehouse.AuditLocationRestored}) {
		t.Errorf("audit of the location = %v", got)
	}
	entries := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointArchived})
	if len(entries) != 1 || entries[0].Target.Name != "Gate" || entries[0].Changes["archivedAt"].To != gatehouse.FormatTime(at) {
		t.Errorf("archived entry = %+v", entries)
	}

	// Another organization's ids are unknown.
	_, err = f.s.SetAccessPointArchived(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointArchived), q.org.ID, gate.ID, &at)
	wantErr(t, "another organization's access point", err, gatehouse.ErrNotFound)
	_, err = f.s.SetLocationArchived(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationArchived), q.org.ID, p.loc.ID, &at)
	wantErr(t, "another organization's location", err, gatehouse.ErrNotFound)
	if got := f.listed(q.org.ID, true); !slices.Equal(got, []string{"HQ: Front door"}) {
		t.Errorf("the other organization lists %q", got)
	}
}

// testDeleteAccessPoint: an access point nothing names is deleted with
// every version of its policy, and taken off its grants (one that listed
// it alone goes), audited once; one with events, a remote command's
// included, is refused with a StateError and nothing changes.
func testDeleteAccessPoint(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	mistake := f.accessPoint(p.org.ID, p.loc.ID, "Mistake")
	f.put(p.org.ID, mistake.ID, policy(t, "1"), nil)
	f.put(p.org.ID, mistake.ID, policy(t, "2"), nil)
	alone := f.createGrant(f.newGrant(p.org.ID, "111", nil, mistake.ID))
	shared := f.createGrant(f.newGrant(p.org.ID, "222", nil, p.door.ID, mistake.ID))
	ofLocation := f.createGrant(f.newGrant(p.org.ID, "333", &p.loc.ID))

	err := f.s.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), q.org.ID, mistake.ID)
	wantErr(t, "another organization's access point", err, gatehouse.ErrNotFound)

	must(t, f.s.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), p.org.ID, mistake.ID))
	if _, err := f.s.FindAccessPoint(ctx, p.org.ID, mistake.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("deleted access point found: %v", err)
	}
	if _, err := f.s.FindPolicy(ctx, p.org.ID, mistake.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("deleted access point's policy: %v", err)
	}
	if got := f.listed(p.org.ID, true); !slices.Equal(got, []string{"HQ: Front door"}) {
		t.Errorf("listed = %q", got)
	}
	if _, err := f.s.FindGrant(ctx, p.org.ID, alone.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the grant of the deleted access point alone: %v", err)
	}
	if g, err := f.s.FindGrant(ctx, p.org.ID, shared.ID); err != nil || !slices.Equal(g.AccessPointIDs, []uuid.UUID{p.door.ID}) {
		t.Errorf("the grant it shared = %+v, %v", g, err)
	}
	if g, err := f.s.FindGrant(ctx, p.org.ID, ofLocation.ID); err != nil || g.LocationID == nil {
		t.Errorf("the grant of its location = %+v, %v", g, err)
	}
	page, err := f.s.ListGrants(ctx, p.org.ID, gatehouse.GrantFilter{AccessPointID: &mistake.ID, Limit: 10})
	if err != nil || len(page.Grants) != 0 {
		t.Errorf("grants of the deleted access point = %+v, %v", page.Grants, err)
	}
	entries := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditAccessPointDeleted})
	if len(entries) != 1 || entries[0].Target.ID != mistake.ID || entries[0].Target.Name != "Mistake" ||
		entries[0].Changes["name"] != (gatehouse.AuditChange{From: "Mistake"}) ||
		entries[0].Changes["policyVersions"] != (gatehouse.AuditChange{From: "2"}) ||
		entries[0].Changes["grants"] != (gatehouse.AuditChange{From: "2"}) {
		t.Errorf("deleted entry = %+v", entries)
	}
	// Its events are refused as an unknown access point's.
	_, err = f.s.IngestEvents(ctx, p.org.ID, []gatehouse.NewEvent{f.attempt(mistake, gatehouse.EventAccessGranted, 0)})
	wantErr(t, "an event of the deleted access point", err, gatehouse.ErrInvalid)
	// A grant that names it, checked before the delete, fails in the store.
	_, _, err = f.s.CreateGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantCreated), f.newGrant(p.org.ID, "444", nil, p.door.ID, mistake.ID))
	wantErr(t, "a grant of the deleted access point", err, gatehouse.ErrNotFound)

	// Events refuse the delete, a remote unlock's too.
	used := f.accessPoint(p.org.ID, p.loc.ID, "Used")
	f.ingest(p.org.ID, f.attempt(used, gatehouse.EventAccessGranted, 1), f.attempt(used, gatehouse.EventAccessDenied, 0))
	before := len(f.log(p.org.ID, gatehouse.AuditFilter{}))
	err = f.s.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), p.org.ID, used.ID)
	var se *gatehouse.StateError
	if !errors.As(err, &se) || !errors.Is(err, gatehouse.ErrConflict) || se.Message != `access point "Used" has 2 events: archive it instead` {
		t.Fatalf("delete of an access point with events: %v", err)
	}
	f.create(f.command(p, gatehouse.ScopeUniverse))
	err = f.s.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), p.org.ID, p.door.ID)
	if !errors.As(err, &se) || se.Message != `access point "Front door" has 1 event: archive it instead` {
		t.Fatalf("delete of an access point with a remote unlock: %v", err)
	}
	if _, err := f.s.FindAccessPoint(ctx, p.org.ID, used.ID); err != nil {
		t.Errorf("a refused delete deleted: %v", err)
	}
	if got := len(f.log(p.org.ID, gatehouse.AuditFilter{})); got != before+1 { // the command's entry
		t.Errorf("refused deletes appended %d entries", got-before-1)
	}
}

// testDeleteLocation: a location nothing names is deleted with its
// grants, audited once; one with access points, or that events or
// lockdowns name, is refused with a StateError saying what to do.
func testDeleteLocation(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	empty := f.location(p.org.ID, "Empty")
	grant := f.createGrant(f.newGrant(p.org.ID, "111", &empty.ID))

	err := f.s.DeleteLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationDeleted), q.org.ID, empty.ID)
	wantErr(t, "another organization's location", err, gatehouse.ErrNotFound)
	must(t, f.s.DeleteLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationDeleted), p.org.ID, empty.ID))
	if _, err := f.s.FindLocation(ctx, p.org.ID, empty.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("deleted location found: %v", err)
	}
	if _, err := f.s.FindGrant(ctx, p.org.ID, grant.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the deleted location's grant: %v", err)
	}
	entries := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationDeleted})
	if len(entries) != 1 || entries[0].Target.ID != empty.ID || entries[0].Changes["grants"] != (gatehouse.AuditChange{From: "1"}) {
		t.Errorf("deleted entry = %+v", entries)
	}
	_, err = f.s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), p.org.ID, empty.ID, "Late")
	wantErr(t, "an access point of the deleted location", err, gatehouse.ErrNotFound)
	_, _, err = f.s.CreateGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantCreated), f.newGrant(p.org.ID, "222", &empty.ID))
	wantErr(t, "a grant of the deleted location", err, gatehouse.ErrNotFound)

	refused := func(what string, id uuid.UUID, want string) {
		t.Helper()
		err := f.s.DeleteLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationDeleted), p.org.ID, id)
		var se *gatehouse.StateError
		if !errors.As(err, &se) || se.Message != want {
			t.Errorf("%s: %v, want %q", what, err, want)
		}
		if _, err := f.s.FindLocation(ctx, p.org.ID, id); err != nil {
			t.Errorf("%s: deleted: %v", what, err)
		}
	}
	refused("access points", p.loc.ID, `location "HQ" has 1 access point: archive it, or delete or move its access points first`)
	// An access point moved away leaves its events with the location.
	annex := f.location(p.org.ID, "Annex")
	f.ingest(p.org.ID, f.attempt(p.door, gatehouse.EventAccessGranted, 0))
	_, err = f.s.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), p.org.ID, p.door.ID, annex.ID)
	must(t, err)
	refused("events", p.loc.ID, `location "HQ" has 1 event: archive it instead`)
	locked := f.location(p.org.ID, "Locked")
	nl := f.newLockdown(p, gatehouse.LockdownLocation, nil)
	nl.LocationID, nl.Location = &locked.ID, &gatehouse.NamedRef{ID: locked.ID, Name: locked.Name}
	nl.Commands = nil
	f.startLockdown(nl)
	refused("lockdowns", locked.ID, `location "Locked" has 1 lockdown: archive it instead`)
	if got := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditLocationDeleted})); got != 1 {
		t.Errorf("refused deletes appended %d entries", got-1)
	}
}

// testDeleteRacesIngest: a delete and an ingest of one access point never
// both win. An ingest held before its commit makes the delete that comes
// meanwhile see its events and refuse; an ingest after the delete is
// refused as of an unknown access point. No event is ever left of an
// access point that is gone.
func testDeleteRacesIngest(t *testing.T, f *fixture) {
	holder, ok := f.s.(interface{ HoldIngestCommitsForTest(hold func()) })
	if !ok {
		t.Fatal("the store cannot hold its commits back (HoldIngestCommitsForTest)")
	}
	p := f.unlockPlace("acme")
	held, release := make(chan struct{}), make(chan struct{})
	holder.HoldIngestCommitsForTest(func() { close(held); <-release })
	ingested := make(chan error, 1)
	ev := f.attempt(p.door, gatehouse.EventAccessGranted, 0)
	go func() {
		_, err := f.s.IngestEvents(ctx, p.org.ID, []gatehouse.NewEvent{ev})
		ingested <- err
	}()
	<-held
	holder.HoldIngestCommitsForTest(nil)
	deleted := make(chan error, 1)
	go func() {
		deleted <- f.s.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), p.org.ID, p.door.ID)
	}()
	// The delete must wait for the ingest: a store that lets it through
	// shows it here. (The pause only gives such a store the time to; a
	// right one waits however long the pause.)
	select {
	case err := <-deleted:
		close(release)
		t.Fatalf("the delete ended (%v) while an ingest of its access point was not committed", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	must(t, <-ingested)
	if err := <-deleted; !errors.Is(err, gatehouse.ErrConflict) {
		t.Fatalf("delete while an ingest of its access point commits: %v, want a conflict", err)
	}
	if got := f.all(p.org.ID, gatehouse.EventFilter{AccessPointID: &p.door.ID}, 10); len(got) != 1 {
		t.Errorf("%d events of the access point, want 1", len(got))
	}
	if _, err := f.s.FindAccessPoint(ctx, p.org.ID, p.door.ID); err != nil {
		t.Errorf("the access point with an event: %v", err)
	}
}
