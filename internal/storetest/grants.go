package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// newGrant is a grant as the service builds it: of player, from the
// clock for a day, listing aps or, with none, of loc.
func (f *fixture) newGrant(org uuid.UUID, player string, loc *uuid.UUID, aps ...uuid.UUID) gatehouse.NewGrant {
	if aps == nil {
		aps = []uuid.UUID{}
	}
	return gatehouse.NewGrant{Grant: gatehouse.Grant{ID: gatehouse.NewID(), OrgID: org, PlatformUserID: player,
		AccessPointIDs: aps, LocationID: loc, From: gatehouse.Time(f.now), Until: gatehouse.Time(f.now.Add(24 * time.Hour)),
		Source: gatehouse.GrantSource{Type: gatehouse.GrantManual}, CreatedAt: gatehouse.Time(f.now)}}
}

func (f *fixture) createGrant(g gatehouse.NewGrant) gatehouse.Grant {
	f.t.Helper()
	out, created, err := f.s.CreateGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantCreated), g)
	must(f.t, err)
	if !created {
		f.t.Fatalf("grant %s not created", g.ID)
	}
	return out
}

func grantIDs(grants []gatehouse.Grant) []uuid.UUID {
	return pluck(grants, func(g gatehouse.Grant) uuid.UUID { return g.ID })
}

// testGrants: a grant reads back as stored, lists by player, access
// point (directly or through its location) and activity, newest first
// in pages, and is revoked once, each change audited.
func testGrants(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	side := f.accessPoint(p.org.ID, p.loc.ID, "Side door")
	other := f.location(p.org.ID, "Annex")
	annexDoor := f.accessPoint(p.org.ID, other.ID, "Annex door")

	ng := f.newGrant(p.org.ID, "111", nil, p.door.ID, side.ID)
	ng.Note, ng.CreatedByUser = ptr("VIP"), &p.user.ID
	ng.Source = gatehouse.GrantSource{Type: gatehouse.GrantDeveloperProduct, ReceiptID: ptr("r-1")}
	a := f.createGrant(ng)
	if a.ID != ng.ID || a.PlatformUserID != "111" || !slices.Equal(a.AccessPointIDs, []uuid.UUID{p.door.ID, side.ID}) ||
		a.LocationID != nil || !a.From.Equal(ng.From) || !a.Until.Equal(ng.Until) || *a.Note != "VIP" ||
		a.Source.Type != gatehouse.GrantDeveloperProduct || *a.Source.ReceiptID != "r-1" || a.RevokedAt != nil ||
		a.CreatedBy == nil || a.CreatedBy.ID != p.user.ID || a.CreatedBy.Email != p.user.Email || a.CreatedByKey != nil {
		t.Fatalf("created %+v", a)
	}
	f.now = f.now.Add(time.Second)
	nb := f.newGrant(p.org.ID, "222", &other.ID)
	nb.CreatedByKeyID = &p.key.ID
	b := f.createGrant(nb)
	if b.LocationID == nil || *b.LocationID != other.ID || len(b.AccessPointIDs) != 0 || b.CreatedByKey == nil || b.CreatedByKey.Prefix != p.key.Prefix {
		t.Fatalf("created %+v", b)
	}
	f.now = f.now.Add(time.Second)
	nc := f.newGrant(p.org.ID, "111", &p.loc.ID)
	nc.From = gatehouse.Time(f.now.Add(time.Hour)) // starts later
	c := f.createGrant(nc)

	got, err := f.s.FindGrant(ctx, p.org.ID, a.ID)
	must(t, err)
	if got.ID != a.ID || got.Note == nil {
		t.Fatalf("FindGrant %+v", got)
	}
	_, err = f.s.FindGrant(ctx, p.org.ID, gatehouse.NewID())
	wantErr(t, "FindGrant of an unknown grant", err, gatehouse.ErrNotFound)

	list := func(fl gatehouse.GrantFilter) []uuid.UUID {
		t.Helper()
		fl.Limit, fl.Now = 50, f.now
		page, err := f.s.ListGrants(ctx, p.org.ID, fl)
		must(t, err)
		return grantIDs(page.Grants)
	}
	for _, tc := range []struct {
		name string
		f    gatehouse.GrantFilter
		want []uuid.UUID
	}{
		{"all, newest first", gatehouse.GrantFilter{}, []uuid.UUID{c.ID, b.ID, a.ID}},
		{"player", gatehouse.GrantFilter{PlatformUserID: ptr("111")}, []uuid.UUID{c.ID, a.ID}},
		{"door listed", gatehouse.GrantFilter{AccessPointID: &side.ID}, []uuid.UUID{a.ID}},
		{"door listed or its location", gatehouse.GrantFilter{AccessPointID: &side.ID, LocationOf: &p.loc.ID}, []uuid.UUID{c.ID, a.ID}},
		{"door of a location grant", gatehouse.GrantFilter{AccessPointID: &annexDoor.ID, LocationOf: &other.ID}, []uuid.UUID{b.ID}},
		{"active", gatehouse.GrantFilter{Active: ptr(true)}, []uuid.UUID{b.ID, a.ID}},
		{"not active", gatehouse.GrantFilter{Active: ptr(false)}, []uuid.UUID{c.ID}},
		{"receipt", gatehouse.GrantFilter{ReceiptID: ptr("r-1")}, []uuid.UUID{a.ID}},
	} {
		if got := list(tc.f); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	// Pages of one.
	var paged []uuid.UUID
	fl := gatehouse.GrantFilter{Limit: 1, Now: f.now}
	for {
		page, err := f.s.ListGrants(ctx, p.org.ID, fl)
		must(t, err)
		paged = append(paged, grantIDs(page.Grants)...)
		if page.Next == nil {
			break
		}
		fl.After = page.Next
	}
	if want := []uuid.UUID{c.ID, b.ID, a.ID}; !slices.Equal(paged, want) {
		t.Errorf("pages of one: %v, want %v", paged, want)
	}
	_, err = f.s.ListGrants(ctx, p.org.ID, gatehouse.GrantFilter{})
	wantErr(t, "ListGrants without a limit", err, gatehouse.ErrInvalid, "limit")

	// Revoke once; the second changes nothing.
	at := f.now.Add(time.Minute)
	r, revoked, err := f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, a.ID, at, nil)
	must(t, err)
	if !revoked || r.RevokedAt == nil || !time.Time(*r.RevokedAt).Equal(at) {
		t.Fatalf("revoked %v %+v", revoked, r)
	}
	r, revoked, err = f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, a.ID, at.Add(time.Minute), nil)
	must(t, err)
	if revoked || !time.Time(*r.RevokedAt).Equal(at) {
		t.Fatalf("revoked again: %v %+v", revoked, r)
	}
	_, _, err = f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, gatehouse.NewID(), at, nil)
	wantErr(t, "RevokeGrant of an unknown grant", err, gatehouse.ErrNotFound)

	if n := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditGrantCreated})); n != 3 {
		t.Errorf("%d grant.created entries, want 3", n)
	}
	log := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditGrantRevoked})
	if len(log) != 1 || log[0].Target.ID != a.ID || log[0].Target.Type != gatehouse.TargetGrant || log[0].Target.Name != "111" {
		t.Errorf("grant.revoked entries %+v, want one of %s", log, a.ID)
	}
}

// testGrantReceipts: one receipt id is one grant of the organization,
// also when several create it at once; other organizations have their
// own, and grants without a receipt are distinct.
func testGrantReceipts(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	q := f.unlockPlace("other")
	withReceipt := func(org uuid.UUID, door uuid.UUID, receipt string) gatehouse.NewGrant {
		g := f.newGrant(org, "111", nil, door)
		g.Source = gatehouse.GrantSource{Type: gatehouse.GrantDeveloperProduct, ReceiptID: &receipt}
		return g
	}
	first := f.createGrant(withReceipt(p.org.ID, p.door.ID, "r-1"))
	again, created, err := f.s.CreateGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantCreated), withReceipt(p.org.ID, p.door.ID, "r-1"))
	must(t, err)
	if created || again.ID != first.ID {
		t.Fatalf("the same receipt again: created %v, grant %s; want %s", created, again.ID, first.ID)
	}
	f.createGrant(withReceipt(q.org.ID, q.door.ID, "r-1"))
	f.createGrant(f.newGrant(p.org.ID, "111", nil, p.door.ID))
	f.createGrant(f.newGrant(p.org.ID, "111", nil, p.door.ID))

	const n = 8
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids = map[uuid.UUID]int{}
		won int
	)
	for range n {
		wg.Go(func() {
			g, created, err := f.s.CreateGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantCreated), withReceipt(p.org.ID, p.door.ID, "r-2"))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids[g.ID]++
			if created {
				won++
			}
		})
	}
	wg.Wait()
	if len(ids) != 1 || won != 1 {
		t.Errorf("%d concurrent creations of one receipt: grants %v, %d created; want one", n, ids, won)
	}
	if got := len(f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditGrantCreated})); got != 4 {
		t.Errorf("%d grant.created entries, want 4 (r-1, two without a receipt, r-2)", got)
	}
}

// testRunningGrants: a decision's read finds the player's grants that
// cover the access point (listed, or through its location, a door added
// later included) and run at the instant, ending at a revocation.
func testRunningGrants(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	side := f.accessPoint(p.org.ID, p.loc.ID, "Side door")
	listed := f.createGrant(f.newGrant(p.org.ID, "111", nil, p.door.ID))
	f.createGrant(f.newGrant(p.org.ID, "222", &p.loc.ID))
	later := f.accessPoint(p.org.ID, p.loc.ID, "New door")

	run := func(ap uuid.UUID, player string, at time.Time) []gatehouse.ActiveGrant {
		t.Helper()
		got, err := f.s.RunningGrants(ctx, p.org.ID, ap, p.loc.ID, player, at)
		must(t, err)
		return got
	}
	start, end := f.now, f.now.Add(24*time.Hour)
	for _, tc := range []struct {
		name   string
		ap     uuid.UUID
		player string
		at     time.Time
		want   int
	}{
		{"listed door at from", p.door.ID, "111", start, 1},
		{"listed door before from", p.door.ID, "111", start.Add(-time.Millisecond), 0},
		{"listed door just before until", p.door.ID, "111", end.Add(-time.Millisecond), 1},
		{"listed door at until", p.door.ID, "111", end, 0},
		{"door not listed", side.ID, "111", start, 0},
		{"another player", p.door.ID, "333", start, 0},
		{"location grant, a door", side.ID, "222", start, 1},
		{"location grant, a door added later", later.ID, "222", start, 1},
	} {
		if got := run(tc.ap, tc.player, tc.at); len(got) != tc.want {
			t.Errorf("%s: %v, want %d", tc.name, got, tc.want)
		}
	}
	got := run(p.door.ID, "111", start)
	if len(got) != 1 || got[0].PlatformUserID != "111" || !got[0].From.Equal(gatehouse.Time(start)) || !got[0].Until.Equal(gatehouse.Time(end)) {
		t.Errorf("running grant %+v", got)
	}
	revokedAt := start.Add(time.Hour)
	_, _, err := f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, listed.ID, revokedAt, nil)
	must(t, err)
	if got := run(p.door.ID, "111", revokedAt.Add(-time.Millisecond)); len(got) != 1 || !got[0].Until.Equal(gatehouse.Time(revokedAt)) {
		t.Errorf("before the revocation: %+v, want one ending at it", got)
	}
	if got := run(p.door.ID, "111", revokedAt); len(got) != 0 {
		t.Errorf("at the revocation: %+v, want none", got)
	}
	// Another organization's ids find nothing.
	q := f.unlockPlace("other")
	if got, err := f.s.RunningGrants(ctx, q.org.ID, side.ID, p.loc.ID, "222", start); err != nil || len(got) != 0 {
		t.Errorf("another organization: %v %v", got, err)
	}
}

// testLiveGrants: a sync's read lists its players' grants not revoked
// and not ended, soonest ending first, bounded (nil players: every
// player's).
func testLiveGrants(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	if got, err := f.s.LiveGrants(ctx, p.org.ID, nil, f.now, 10); err != nil || len(got) != 0 {
		t.Fatalf("LiveGrants of a new organization: %v %v", got, err)
	}
	long := f.createGrant(f.newGrant(p.org.ID, "111", nil, p.door.ID))
	short := f.newGrant(p.org.ID, "222", &p.loc.ID)
	short.Until = gatehouse.Time(f.now.Add(time.Hour))
	s := f.createGrant(short)
	future := f.newGrant(p.org.ID, "111", &p.loc.ID)
	future.From, future.Until = gatehouse.Time(f.now.Add(2*time.Hour)), gatehouse.Time(f.now.Add(3*time.Hour))
	fu := f.createGrant(future)
	revoked := f.createGrant(f.newGrant(p.org.ID, "111", &p.loc.ID))
	_, _, err := f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, revoked.ID, f.now, nil)
	must(t, err)
	f.createGrant(f.newGrant(p.org.ID, "333", &p.loc.ID))

	live := func(players []string, now time.Time, limit int) []uuid.UUID {
		t.Helper()
		got, err := f.s.LiveGrants(ctx, p.org.ID, players, now, limit)
		must(t, err)
		return grantIDs(got)
	}
	if got, want := live([]string{"111", "222"}, f.now, 10), []uuid.UUID{s.ID, fu.ID, long.ID}; !slices.Equal(got, want) {
		t.Errorf("live grants %v, want %v", got, want)
	}
	if got, want := live([]string{"111", "222"}, f.now, 2), []uuid.UUID{s.ID, fu.ID}; !slices.Equal(got, want) {
		t.Errorf("bounded to 2: %v, want %v", got, want)
	}
	if got, want := live([]string{"111", "222"}, f.now.Add(time.Hour), 10), []uuid.UUID{fu.ID, long.ID}; !slices.Equal(got, want) {
		t.Errorf("an hour on: %v, want %v", got, want)
	}
	if got := live([]string{}, f.now, 10); len(got) != 0 {
		t.Errorf("no players: %v", got)
	}
	if got := live(nil, f.now, 10); len(got) != 4 {
		t.Errorf("every player's: %v, want 4", got)
	}
	if got := live(nil, f.now.Add(25*time.Hour), 10); len(got) != 0 {
		t.Errorf("when all ended: %v", got)
	}
	q := f.unlockPlace("other")
	if got, err := f.s.LiveGrants(ctx, q.org.ID, []string{"111"}, f.now, 10); err != nil || len(got) != 0 {
		t.Errorf("another organization: %v %v", got, err)
	}
}

// testPlayerServers: the servers a grant wakes are the live ones hosting
// its player, in any universe; CreateGrant leaves their wakes.
func testPlayerServers(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	f.heartbeat(p.org.ID, "s1", "111", "222")
	f.heartbeat(p.org.ID, "s2", "222")
	must(t, f.s.Heartbeat(ctx, p.org.ID, gatehouse.GameServer{JobID: "s3", UniverseID: "43", Players: []string{"111"},
		SeenAt: f.now, StartedAt: f.now}, gatehouse.OrgServerCaps))
	servers, err := f.s.PlayerServers(ctx, p.org.ID, "111", f.now.Add(-time.Minute))
	must(t, err)
	var got []string
	for _, s := range servers {
		got = append(got, s.UniverseID+"/"+s.JobID)
	}
	if want := []string{"42/s1", "43/s3"}; !slices.Equal(got, want) {
		t.Errorf("servers of 111: %v, want %v", got, want)
	}
	if servers, err := f.s.PlayerServers(ctx, p.org.ID, "111", f.now.Add(time.Minute)); err != nil || len(servers) != 0 {
		t.Errorf("servers seen since a minute on: %v %v", servers, err)
	}

	wakes, stop := watch(t, f.s)
	defer stop()
	g := f.newGrant(p.org.ID, "111", &p.loc.ID)
	g.Wakes = []gatehouse.Wake{{OrgID: p.org.ID}, {OrgID: p.org.ID, UniverseID: universe, JobID: "s1"}}
	f.createGrant(g)
	WaitWake(t, wakes, wake{OrgID: p.org.ID, UniverseID: universe, JobID: "s1"}, time.Second, "CreateGrant")
	_, _, err = f.s.RevokeGrant(ctx, gatehouse.SystemEntry(gatehouse.AuditGrantRevoked), p.org.ID, g.ID, f.now, []gatehouse.Wake{{OrgID: p.org.ID}})
	must(t, err)
	WaitWake(t, wakes, wake{OrgID: p.org.ID}, time.Second, "RevokeGrant")
}
