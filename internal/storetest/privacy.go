package storetest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

func erasedEntry() gatehouse.AuditEntry {
	return gatehouse.SystemEntry(gatehouse.AuditPlatformUserErased)
}

// erasePlayer runs an erasure as the service does: batches of events,
// then the rest.
func (f *fixture) erasePlayer(org uuid.UUID, player string, batch int) (events, commands int) {
	f.t.Helper()
	for {
		n, err := f.s.DeletePlayerEvents(ctx, org, player, batch)
		must(f.t, err)
		events += n
		if n < batch {
			break
		}
	}
	commands, err := f.s.FinishErasure(ctx, erasedEntry(), org, player)
	must(f.t, err)
	return events, commands
}

// testErasureOracle: over random events of several players in two
// organizations, erasing one player removes exactly that player's events
// of that organization (an oracle of what should remain), in batches
// smaller than what there is; a second erasure finds nothing; search no
// longer finds the player.
func testErasureOracle(t *testing.T, f *fixture) {
	rng := rand.New(rand.NewPCG(17, 18))
	a, b := f.org("Acme"), f.org("Beta")
	doorsOf := map[uuid.UUID][]gatehouse.AccessPoint{}
	for _, o := range []gatehouse.Organization{a, b} {
		loc := f.location(o.ID, "HQ")
		doorsOf[o.ID] = []gatehouse.AccessPoint{f.accessPoint(o.ID, loc.ID, "Gate"), f.accessPoint(o.ID, loc.ID, "Vault")}
	}
	players := []string{"7", "42", "420", "4200", "Ünï"}
	want := map[uuid.UUID][]uuid.UUID{} // the events that must remain, by organization
	const victim = "42"
	for i := range 300 {
		o := a.ID
		if i%3 == 0 {
			o = b.ID
		}
		ev := f.attempt(doorsOf[o][rng.IntN(2)], gatehouse.EventAccessDenied, rng.IntN(5000))
		p := players[rng.IntN(len(players))]
		ev.PlatformUserID = &p
		f.ingest(o, ev)
		if o != a.ID || p != victim {
			want[o] = append(want[o], ev.ID)
		}
	}
	events, _ := f.erasePlayer(a.ID, victim, 7)
	for _, o := range []gatehouse.Organization{a, b} {
		got := ids(f.all(o.ID, gatehouse.EventFilter{}, 500))
		slices.SortFunc(got, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
		w := slices.Clone(want[o.ID])
		slices.SortFunc(w, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
		if !slices.Equal(got, w) {
			t.Errorf("%s keeps %d events, want %d (erased %d)", o.Name, len(got), len(w), events)
		}
	}
	if events == 0 {
		t.Fatal("the random data gave the victim no events")
	}
	if again, commands := f.erasePlayer(a.ID, victim, 7); again != 0 || commands != 0 {
		t.Errorf("a second erasure removed %d events and %d commands", again, commands)
	}
	if page, err := f.s.ListEvents(ctx, a.ID, gatehouse.EventFilter{Q: victim, Limit: 50}); err != nil {
		t.Fatal(err)
	} else {
		for _, ev := range page.Events {
			if ev.PlatformUserID != nil && *ev.PlatformUserID == victim {
				t.Errorf("search still finds the erased player's event %s", ev.ID)
			}
		}
	}
	// Beta's events of the same id are Beta's: untouched (checked above);
	// both organizations' audit logs: one erasure, in Acme's.
	if log := f.log(a.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPlatformUserErased}); len(log) != 2 {
		t.Errorf("Acme's erasure entries: %d, want 2", len(log))
	}
	if log := f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPlatformUserErased}); len(log) != 0 {
		t.Errorf("Beta's erasure entries: %d, want none", len(log))
	}
}

// testErasureCommands: an erasure removes the player's commands, of
// ingested events and issued ones, and records their number.
func testErasureCommands(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	c := f.command(p, gatehouse.ScopePlayer)
	c.PlatformUserID = ptr("42")
	issued := f.create(c)
	other := f.create(f.command(p, gatehouse.ScopeUniverse))
	_, commands := f.erasePlayer(p.org.ID, "42", 100)
	if commands != 1 {
		t.Errorf("erased %d commands, want 1", commands)
	}
	_, err := f.s.FindCommand(ctx, p.org.ID, issued.ID)
	wantErr(t, "the erased player's command", err, gatehouse.ErrNotFound)
	if _, err := f.s.FindCommand(ctx, p.org.ID, other.ID); err != nil {
		t.Errorf("another command: %v", err)
	}
	log := f.log(p.org.ID, gatehouse.AuditFilter{Action: gatehouse.AuditPlatformUserErased})
	if len(log) != 1 || log[0].Changes["commands"].To != "1" {
		t.Errorf("erasure entry %+v", log)
	}
}

// testDeletionKeepsPositions: deleting the events and the command change
// with the largest positions does not let the feeds hand those positions
// out again: a consumer past them still gets what comes next.
func testDeletionKeepsPositions(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	mine := f.attempt(p.door, gatehouse.EventAccessGranted, 1)
	mine.PlatformUserID = ptr("7")
	f.ingest(p.org.ID, mine)
	theirs := f.attempt(p.door, gatehouse.EventAccessDenied, 1)
	theirs.PlatformUserID = ptr("42")
	f.ingest(p.org.ID, theirs)
	f.settle()
	page, err := f.s.ReadFeed(ctx, p.org.ID, gatehouse.EventFilter{Limit: 10}, gatehouse.FeedPosition{})
	must(t, err)
	if len(page.Events) != 2 {
		t.Fatalf("feed before: %d events", len(page.Events))
	}
	c := f.command(p, gatehouse.ScopePlayer)
	c.PlatformUserID = ptr("42")
	f.create(c) // its REMOTE_UNLOCK event is the player's too
	f.settle()
	changes, cpos, err := f.s.ReadCommandChanges(ctx, p.org.ID, gatehouse.FeedPosition{}, 10)
	must(t, err)
	if len(changes) != 1 {
		t.Fatalf("changes before: %+v", changes)
	}
	page, err = f.s.ReadFeed(ctx, p.org.ID, gatehouse.EventFilter{Limit: 10}, page.Next)
	must(t, err)
	read := page.Next // past every event: the erased player's last

	f.erasePlayer(p.org.ID, "42", 100)
	f.now = f.now.Add(time.Second)
	next := f.attempt(p.door, gatehouse.EventAccessGranted, 0)
	f.ingest(p.org.ID, next)
	later := f.create(f.command(p, gatehouse.ScopeUniverse))
	f.settle()
	page, err = f.s.ReadFeed(ctx, p.org.ID, gatehouse.EventFilter{Limit: 10}, read)
	must(t, err)
	var got []uuid.UUID
	for _, ev := range page.Events {
		got = append(got, ev.ID)
	}
	if !slices.Contains(got, next.ID) {
		t.Errorf("after erasing the last events, the feed past them has %v, want the next event %s", got, next.ID)
	}
	changes, _, err = f.s.ReadCommandChanges(ctx, p.org.ID, cpos, 10)
	must(t, err)
	if len(changes) != 1 || changes[0].ID != later.ID {
		t.Errorf("after erasing the last command, the changes past it are %+v, want the next command", changes)
	}
	all := ids(f.all(p.org.ID, gatehouse.EventFilter{}, 50))
	if slices.Contains(all, theirs.ID) || !slices.Contains(all, mine.ID) || len(all) != 3 {
		t.Errorf("events after the erasure: %v", all)
	}

	// The same event stored again (an import run twice) and erased
	// again, while it is the last: erased again, no clash with what kept
	// its position before.
	for range 2 {
		f.ingest(p.org.ID, theirs)
		if n, _ := f.erasePlayer(p.org.ID, "42", 100); n != 1 {
			t.Errorf("erasing the event stored again: %d", n)
		}
	}
	if n, err := f.s.DeleteEventsBefore(ctx, p.org.ID, f.now.Add(time.Hour), 100); err != nil || n != 3 {
		t.Errorf("retention after: %d, %v; want the three events left", n, err)
	}
}

// testErasureIntegration: the webhook's credentials are found by token
// hash only; a notification is recorded as erased once.
func testErasureIntegration(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	hash := [32]byte{1, 2, 3}
	must(t, f.s.SetErasureIntegration(ctx, gatehouse.SystemEntry(gatehouse.AuditErasureWebhookSet), a.ID, hash, []byte("tok"), []byte("sec"), f.now))
	org, secret, err := f.s.ErasureIntegrationByToken(ctx, hash)
	if err != nil || org != a.ID || string(secret) != "sec" {
		t.Errorf("by token: %v %q %v", org, secret, err)
	}
	_, _, err = f.s.ErasureIntegrationByToken(ctx, [32]byte{9})
	wantErr(t, "an unknown token", err, gatehouse.ErrNotFound)
	_, _, _, err = f.s.FindErasureIntegration(ctx, b.ID)
	wantErr(t, "an organization without one", err, gatehouse.ErrNotFound)
	// Replaced: the old token is gone.
	must(t, f.s.SetErasureIntegration(ctx, gatehouse.SystemEntry(gatehouse.AuditErasureWebhookSet), a.ID, [32]byte{4}, []byte("tok2"), []byte("sec2"), f.now))
	_, _, err = f.s.ErasureIntegrationByToken(ctx, hash)
	wantErr(t, "a replaced token", err, gatehouse.ErrNotFound)
	tok, sec, _, err := f.s.FindErasureIntegration(ctx, a.ID)
	if err != nil || string(tok) != "tok2" || string(sec) != "sec2" {
		t.Errorf("FindErasureIntegration = %q %q %v", tok, sec, err)
	}

	r := gatehouse.ErasureRequest{ID: gatehouse.NewID(), NotificationID: "n-1", ReceivedAt: gatehouse.Time(f.now),
		Outcome: gatehouse.ErasureErased, Detail: "erased", UserHash: "h", Events: 3}
	must(t, f.s.RecordErasureRequest(ctx, a.ID, r))
	if claimed, done, err := f.s.ClaimErasure(ctx, a.ID, "n-1", f.now, time.Minute); err != nil || claimed || !done {
		t.Errorf("ClaimErasure of an erased notification = %t, %t, %v; want done", claimed, done, err)
	}
	if claimed, done, _ := f.s.ClaimErasure(ctx, b.ID, "n-1", f.now, time.Minute); !claimed || done {
		t.Error("another organization's notification counts as erased")
	}
	r.ID = gatehouse.NewID()
	wantErr(t, "the same notification erased twice", f.s.RecordErasureRequest(ctx, a.ID, r), gatehouse.ErrConflict)
	r.ID, r.Outcome = gatehouse.NewID(), gatehouse.ErasureDuplicate
	must(t, f.s.RecordErasureRequest(ctx, a.ID, r))
	rs, err := f.s.ListErasureRequests(ctx, a.ID, 10)
	if err != nil || len(rs) != 2 || rs[0].Outcome != gatehouse.ErasureDuplicate || rs[1].Events != 3 {
		t.Errorf("ListErasureRequests = %+v, %v", rs, err)
	}
}

// testErasureClaims: deliveries of one notification that claim it at
// once get one claim; the others see it live until it is released, it
// expires, or its erasure is recorded (then done, for good); claims are
// the organization's.
func testErasureClaims(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	const lease = time.Minute
	claim := func(org uuid.UUID, id string, at time.Time) (bool, bool) {
		t.Helper()
		claimed, done, err := f.s.ClaimErasure(ctx, org, id, at, lease)
		must(t, err)
		return claimed, done
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners int
	)
	for range 8 {
		wg.Go(func() {
			claimed, done, err := f.s.ClaimErasure(ctx, a.ID, "n-1", f.now, lease)
			if err != nil || done {
				t.Errorf("a claim at once: %t, %v", done, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if claimed {
				winners++
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Fatalf("8 claims at once: %d claimed, want 1", winners)
	}
	if claimed, done := claim(a.ID, "n-1", f.now.Add(lease-time.Millisecond)); claimed || done {
		t.Errorf("a live claim claimed again: %t %t", claimed, done)
	}
	if claimed, _ := claim(b.ID, "n-1", f.now); !claimed {
		t.Error("another organization's claim blocks this one")
	}
	if claimed, _ := claim(a.ID, "n-1", f.now.Add(lease)); !claimed {
		t.Error("an expired claim is not taken over")
	}
	must(t, f.s.ReleaseErasure(ctx, a.ID, "n-1"))
	if claimed, _ := claim(a.ID, "n-1", f.now.Add(lease)); !claimed {
		t.Error("a released claim is not taken again")
	}
	must(t, f.s.RecordErasureRequest(ctx, a.ID, gatehouse.ErasureRequest{ID: gatehouse.NewID(), NotificationID: "n-1",
		ReceivedAt: gatehouse.Time(f.now), Outcome: gatehouse.ErasureErased, Detail: "erased", UserHash: "h"}))
	must(t, f.s.ReleaseErasure(ctx, a.ID, "n-1")) // a done claim stays done
	for _, at := range []time.Time{f.now, f.now.Add(24 * time.Hour)} {
		if claimed, done := claim(a.ID, "n-1", at); claimed || !done {
			t.Errorf("an erased notification at %s: claimed %t, done %t", at, claimed, done)
		}
	}
	if _, done := claim(b.ID, "n-1", f.now.Add(lease)); done {
		t.Error("another organization's erasure counts here")
	}
}

// testErasureServers: erasing a player takes it off the lists of who is
// on the organization's servers; a server that still reports it after
// stores it again.
func testErasureServers(t *testing.T, f *fixture) {
	p := f.unlockPlace("acme")
	q := f.unlockPlace("beta")
	f.heartbeat(p.org.ID, "job-1", "42", "7")
	f.heartbeat(q.org.ID, "job-1", "42")
	players := func(org uuid.UUID, player *string) [][]string {
		t.Helper()
		live, err := f.s.LiveServers(ctx, org, universe, f.now.Add(-time.Minute), player)
		must(t, err)
		var got [][]string
		for _, s := range live {
			got = append(got, s.Players)
		}
		return got
	}
	f.erasePlayer(p.org.ID, "42", 100)
	if got := players(p.org.ID, nil); len(got) != 1 || !slices.Equal(got[0], []string{"7"}) {
		t.Errorf("after the erasure, the server's players are %v; want [7]", got)
	}
	if got := players(p.org.ID, ptr("42")); len(got) != 0 {
		t.Errorf("the erased player is still found on %v", got)
	}
	if got := players(q.org.ID, nil); len(got) != 1 || !slices.Equal(got[0], []string{"42"}) {
		t.Errorf("another organization's server lost the player: %v", got)
	}
	f.heartbeat(p.org.ID, "job-1", "42", "7")
	if got := players(p.org.ID, ptr("42")); len(got) != 1 || !slices.Contains(got[0], "42") {
		t.Errorf("a server reporting the player again: %v", got)
	}
}
