package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// testFindCommand: one command with its counts and deliveries (targets
// first, then by job id); another organization's command, an unknown id
// and a command only known from ingested events are ErrNotFound, and
// OrgOfCommand answers likewise.
func testFindCommand(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	c := f.create(f.command(p, gatehouse.ScopeUniverse, "job-c", "job-a"))
	f.heartbeat(p.org.ID, "job-0")
	f.heartbeat(p.org.ID, "job-a")
	f.take(p.org.ID, "job-0", 0)
	f.take(p.org.ID, "job-a", 0)
	got := f.find(p.org.ID, c.ID)
	wantDeliveries(t, got, "job-a", "job-c", "job-0")
	if got.Targets != (gatehouse.CommandTargets{Live: 2, Delivered: 1, Joined: 1}) {
		t.Errorf("targets = %+v", got.Targets)
	}
	if d := got.Deliveries; !d[0].Target || d[0].DeliveredAt == nil || !time.Time(*d[0].DeliveredAt).Equal(f.now) ||
		!d[1].Target || d[1].DeliveredAt != nil || d[2].Target || d[2].DeliveredAt == nil {
		t.Errorf("deliveries = %+v", d)
	}

	_, err := f.s.FindCommand(ctx, q.org.ID, c.ID)
	wantErr(t, "another organization's command", err, gatehouse.ErrNotFound)
	_, err = f.s.FindCommand(ctx, p.org.ID, gatehouse.NewID())
	wantErr(t, "an unknown command", err, gatehouse.ErrNotFound)
	ingested := f.attempt(p.door, gatehouse.EventRemoteUnlock, 1)
	ingested.Allowed, ingested.Scope = nil, ptr(gatehouse.ScopeUniverse)
	ingested.Command = &gatehouse.NewCommand{ID: gatehouse.NewID(), Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse, IssuedAt: ingested.OccurredAt}
	f.ingest(p.org.ID, ingested)
	_, err = f.s.FindCommand(ctx, p.org.ID, ingested.Command.ID)
	wantErr(t, "a command only known from events", err, gatehouse.ErrNotFound)

	if org, err := f.s.OrgOfCommand(ctx, c.ID); err != nil || org != p.org.ID {
		t.Errorf("OrgOfCommand = %v, %v", org, err)
	}
	_, err = f.s.OrgOfCommand(ctx, ingested.Command.ID)
	wantErr(t, "OrgOfCommand of an ingested command", err, gatehouse.ErrNotFound)
	_, err = f.s.OrgOfCommand(ctx, gatehouse.NewID())
	wantErr(t, "OrgOfCommand of an unknown id", err, gatehouse.ErrNotFound)
}

// testListCommands: newest first (issuedAt, then id), every filter, keyset
// pages that neither skip nor repeat, no deliveries, only the
// organization's issued commands.
func testListCommands(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	annex := f.location(p.org.ID, "Annex")
	_, err := f.s.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), p.org.ID, annex.ID, universe)
	must(t, err)
	gate := f.accessPoint(p.org.ID, annex.ID, "Gate")
	start := f.now
	var all []gatehouse.Command
	for i := range 13 {
		scope := []gatehouse.CommandScope{gatehouse.ScopeUniverse, gatehouse.ScopeServer, gatehouse.ScopePlayer}[i%3]
		var in gatehouse.IssuedCommand
		if i%4 == 0 {
			in = f.command(p, scope) // SERVER and PLAYER fail at issue
		} else {
			in = f.command(p, scope, "job-1")
		}
		if i%2 == 1 {
			in.AccessPoint = gatehouse.NamedRef{ID: gate.ID, Name: gate.Name}
			in.Location = gatehouse.NamedRef{ID: annex.ID, Name: annex.Name}
		}
		all = append(all, f.create(in))
		if i%3 != 1 { // some commands share an issuedAt: id orders them
			f.now = f.now.Add(time.Second)
		}
	}
	f.create(f.command(q, gatehouse.ScopeUniverse))
	_, err = f.s.CancelCommand(ctx, cancelledEntry(), p.org.ID, all[5].ID, f.now)
	must(t, err)
	all[5].Status = gatehouse.CommandCancelled
	ingested := f.attempt(p.door, gatehouse.EventRemoteUnlock, 1)
	ingested.Allowed, ingested.Scope = nil, ptr(gatehouse.ScopeUniverse)
	ingested.Command = &gatehouse.NewCommand{ID: gatehouse.NewID(), Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse, IssuedAt: start.Add(time.Hour)}
	f.ingest(p.org.ID, ingested)

	slices.SortFunc(all, func(a, b gatehouse.Command) int {
		if c := time.Time(b.IssuedAt).Compare(time.Time(a.IssuedAt)); c != 0 {
			return c
		}
		return slices.Compare(b.ID[:], a.ID[:])
	})
	pending, failed := gatehouse.CommandPending, gatehouse.CommandFailed
	universeScope := gatehouse.ScopeUniverse
	for _, tc := range []struct {
		name string
		f    gatehouse.CommandFilter
		keep func(gatehouse.Command) bool
	}{
		{"none", gatehouse.CommandFilter{}, func(gatehouse.Command) bool { return true }},
		{"status PENDING", gatehouse.CommandFilter{Status: &pending}, func(c gatehouse.Command) bool { return c.Status == pending }},
		{"status FAILED", gatehouse.CommandFilter{Status: &failed}, func(c gatehouse.Command) bool { return c.Status == failed }},
		{"scope", gatehouse.CommandFilter{Scope: &universeScope}, func(c gatehouse.Command) bool { return c.Scope == universeScope }},
		{"accessPointId", gatehouse.CommandFilter{AccessPointID: &gate.ID}, func(c gatehouse.Command) bool { return c.AccessPoint.ID == gate.ID }},
		{"locationId", gatehouse.CommandFilter{LocationID: &p.loc.ID}, func(c gatehouse.Command) bool { return c.Location.ID == p.loc.ID }},
		{"all of them", gatehouse.CommandFilter{Status: &pending, Scope: &universeScope, LocationID: &annex.ID, AccessPointID: &gate.ID},
			func(c gatehouse.Command) bool {
				return c.Status == pending && c.Scope == universeScope && c.AccessPoint.ID == gate.ID
			}},
		{"another organization's access point", gatehouse.CommandFilter{AccessPointID: &q.door.ID}, func(gatehouse.Command) bool { return false }},
	} {
		var want []uuid.UUID
		for _, c := range all {
			if tc.keep(c) {
				want = append(want, c.ID)
			}
		}
		for _, limit := range []int{1, 2, 5, 50} {
			got := f.listCommands(p.org.ID, tc.f, limit)
			var gotIDs []uuid.UUID
			for _, c := range got {
				gotIDs = append(gotIDs, c.ID)
			}
			if !slices.Equal(gotIDs, want) {
				t.Errorf("%s, pages of %d: %v\nwant %v", tc.name, limit, gotIDs, want)
			}
		}
	}
	got := f.listCommands(p.org.ID, gatehouse.CommandFilter{}, 50)
	for i, c := range got {
		if c.Deliveries != nil {
			t.Errorf("listed command %s has deliveries", c.ID)
		}
		if c.Status != all[i].Status || c.Targets != all[i].Targets || c.AccessPoint != all[i].AccessPoint ||
			c.RequestedBy == nil || c.RequestedBy.ID != p.user.ID {
			t.Errorf("listed %+v\nwant %+v", c, all[i])
		}
	}
}

// listCommands walks every page of the organization's commands.
func (f *fixture) listCommands(org uuid.UUID, filter gatehouse.CommandFilter, limit int) []gatehouse.Command {
	f.t.Helper()
	filter.Limit = limit
	var out []gatehouse.Command
	for range 100 {
		page, err := f.s.ListCommands(ctx, org, filter)
		must(f.t, err)
		if len(page.Commands) > limit {
			f.t.Fatalf("a page of %d commands for limit %d", len(page.Commands), limit)
		}
		out = append(out, page.Commands...)
		if page.Next == nil {
			return out
		}
		if len(page.Commands) != limit {
			f.t.Fatalf("a page of %d commands (limit %d) says more follow", len(page.Commands), limit)
		}
		if last := page.Commands[len(page.Commands)-1].Key(); *page.Next != last {
			f.t.Fatalf("next %+v, want the last command's key %+v", *page.Next, last)
		}
		filter.After = page.Next
	}
	f.t.Fatal("pages never end")
	return nil
}
