package shards_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/shards"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

var ctx = context.Background()

func openDB(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func createOrg(t testing.TB, s gatehouse.Store, name string) gatehouse.Organization {
	t.Helper()
	o, err := s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// createGate creates an organization with a location, "HQ", and its
// access point, "Gate".
func createGate(t testing.TB, s gatehouse.Store, name string) (gatehouse.Organization, gatehouse.Location, gatehouse.AccessPoint) {
	t.Helper()
	o := createOrg(t, s, name)
	loc, err := s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), o.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	ap, err := s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), o.ID, loc.ID, "Gate")
	if err != nil {
		t.Fatal(err)
	}
	return o, loc, ap
}

// TestPlacement: new organizations go to the shard with the fewest, the
// first given on a tie, never to --db; each lives, with its records, on
// its shard alone.
func TestPlacement(t *testing.T) {
	r, mainDSN, others := openRouter(t)
	var orgs []gatehouse.Organization
	for _, name := range []string{"A", "B", "C"} {
		orgs = append(orgs, createOrg(t, r, name))
	}
	list := r.Shards()
	if len(list) != 3 || !list[0].Main || list[1].ID == uuid.Nil || list[2].ID == uuid.Nil {
		t.Fatalf("shards: %+v", list)
	}
	main, first, second := openDB(t, mainDSN), openDB(t, others[0]), openDB(t, others[1])
	want := []*postgres.DB{first, second, first}
	for i, o := range orgs {
		for _, db := range []*postgres.DB{main, first, second} {
			_, err := db.FindOrganization(ctx, o.ID)
			if here := db == want[i]; here != (err == nil) {
				t.Errorf("%s on %v: %v, want here=%v", o.Name, db, err, here)
			}
		}
		loc, err := r.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), o.ID, "HQ")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := want[i].FindLocation(ctx, o.ID, loc.ID); err != nil {
			t.Errorf("%s's location is not on its shard: %v", o.Name, err)
		}
		if got, err := r.OrgOfLocation(ctx, loc.ID); err != nil || got != o.ID {
			t.Errorf("OrgOfLocation: %v, %v", got, err)
		}
	}
	got, err := r.ListOrganizations(ctx)
	if err != nil || len(got) != 3 || got[0].ID != orgs[0].ID || got[2].ID != orgs[2].ID {
		t.Errorf("ListOrganizations: %v, %v; want the three, oldest first", got, err)
	}
}

// TestDirectoryFollowsChanges: an instance that cached where an
// organization lives hears of its change from another, without waiting
// for the cache's expiry.
func TestDirectoryFollowsChanges(t *testing.T) {
	a, mainDSN, others := openRouter(t)
	b, err := shards.Open(ctx, mainDSN, others)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	o := createOrg(t, a, "Acme") // on the first shard
	if got, err := b.FindOrganization(ctx, o.ID); err != nil || got.Name != "Acme" {
		t.Fatalf("b: %v, %v", got, err)
	}
	// A copy of it on the second shard, under another name, and the
	// directory pointed there: what a move's last step does.
	second := b.Shards()[2]
	copyOf := o
	copyOf.Name = "Acme (moved)"
	if _, err := openDB(t, others[1]).CreateOrganizationAs(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), copyOf); err != nil {
		t.Fatal(err)
	}
	if err := openDB(t, mainDSN).PlaceOrganization(ctx, o.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := b.FindOrganization(ctx, o.ID)
		if err == nil && got.Name == copyOf.Name {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b still reads %v, %v: the change was not heard", got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The copy left behind is not the organization's any more.
	list, err := b.ListOrganizations(ctx)
	if err != nil || len(list) != 1 || list[0].Name != copyOf.Name {
		t.Errorf("ListOrganizations: %v, %v; want the moved one alone", list, err)
	}
}

// viaProxy returns dsn with its host replaced by a proxy to it.
func viaProxy(t *testing.T, dsn string) (string, *testenv.Proxy) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := testenv.NewProxy(t, u.Host)
	u.Host = p.Addr()
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()
	return u.String(), p
}

// TestShardDown: a shard that stops answering fails its organizations'
// requests, and the lookups that may need it, with ErrUnavailable (a 503),
// and nothing of the others; when it answers again, so do they. A shard
// down when the instance starts is the same.
func TestShardDown(t *testing.T) {
	mainDSN, others := testenv.PostgresDSN(t), testenv.ShardDSNs(t)
	first, proxy := viaProxy(t, others[0])
	r, err := shards.Open(ctx, mainDSN, []string{first, others[1]})
	if err != nil {
		t.Fatal(err)
	}
	down, up := createOrg(t, r, "Down"), createOrg(t, r, "Up")
	keys := map[uuid.UUID]gatehouse.KeyHash{}
	for _, o := range []gatehouse.Organization{down, up} {
		k := gatehouse.APIKey{ID: uuid.New(), OrgID: o.ID, Name: "k", Prefix: "gk_" + o.Name[:2], Hash: gatehouse.KeyHash{byte(len(keys) + 1)},
			Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: time.Now()}
		if err := r.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
			t.Fatal(err)
		}
		keys[o.ID] = k.Hash
	}
	check := func(when string, downWorks bool) {
		t.Helper()
		_, err := r.ListEvents(ctx, down.ID, gatehouse.EventFilter{Limit: 10})
		if downWorks != (err == nil) || err != nil && !errors.Is(err, gatehouse.ErrUnavailable) {
			t.Errorf("%s: the down shard's organization: %v", when, err)
		}
		_, err = r.FindAPIKeyByHash(ctx, keys[down.ID])
		if downWorks != (err == nil) || err != nil && !errors.Is(err, gatehouse.ErrUnavailable) {
			t.Errorf("%s: its key: %v, want ErrUnavailable (not an unknown key)", when, err)
		}
		if _, err := r.ListEvents(ctx, up.ID, gatehouse.EventFilter{Limit: 10}); err != nil {
			t.Errorf("%s: the other organization: %v", when, err)
		}
		if k, err := r.FindAPIKeyByHash(ctx, keys[up.ID]); err != nil || k.OrgID != up.ID {
			t.Errorf("%s: the other organization's key: %v, %v", when, k.OrgID, err)
		}
	}
	check("both up", true)
	proxy.Cut()
	check("first shard down", false)
	if _, err := r.FindAPIKeyByHash(ctx, gatehouse.KeyHash{99}); !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("an unknown key while a shard is down: %v, want ErrUnavailable", err)
	}
	proxy.Restore(t)
	deadline := time.Now().Add(10 * time.Second)
	for _, err := r.ListEvents(ctx, down.ID, gatehouse.EventFilter{Limit: 10}); err != nil; _, err = r.ListEvents(ctx, down.ID, gatehouse.EventFilter{Limit: 10}) {
		if time.Now().After(deadline) {
			t.Fatalf("the shard is back, its organization still fails: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	check("back", true)
	r.Close()

	// Down when an instance starts: it starts, and serves the others.
	proxy.Cut()
	late, err := shards.Open(ctx, mainDSN, []string{first, others[1]})
	if err != nil {
		t.Fatalf("Open with a shard down: %v", err)
	}
	defer late.Close()
	r = late
	check("down at start", false)
	proxy.Restore(t)
	time.Sleep(1100 * time.Millisecond) // retryEvery
	check("up after start", true)
}

// TestSessionsWhileAShardIsDown: signing out of a session that may be on
// a shard that does not answer is refused rather than look done, and the
// first wake of WatchCommands comes even when a shard stops answering
// before its listener connects.
func TestSessionsWhileAShardIsDown(t *testing.T) {
	mainDSN, others := testenv.PostgresDSN(t), testenv.ShardDSNs(t)
	first, proxy := viaProxy(t, others[0])
	r, err := shards.Open(ctx, mainDSN, []string{first, others[1]})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	org := createOrg(t, r, "Acme") // on the first shard
	u, err := r.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{ID: uuid.New(), OrgID: org.ID, Email: "a@example.com", Role: gatehouse.RoleAdmin, PasswordHash: "x", CreatedAt: time.Now()}, nil)

	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s := gatehouse.Session{TokenHash: [32]byte{1}, UserID: u.ID, CSRF: "c", CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := r.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s); err != nil {
		t.Fatal(err)
	}

	// A second instance starts while the first shard is down.
	proxy.Cut()
	later, err := shards.Open(ctx, mainDSN, []string{first, others[1]})
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	if err := later.DeleteSession(ctx, s.TokenHash, now); !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("sign-out with the session's shard down: %v, want ErrUnavailable", err)
	}
	watching, stop := context.WithCancel(ctx)
	defer stop()
	woken := make(chan gatehouse.Wake, 1024)
	go r.WatchCommands(watching, func(w gatehouse.Wake) { woken <- w })
	// Other tests' commands on the same servers wake it too: wait for
	// the listening wake among them.
	deadline := time.After(10 * time.Second)
	for listening := false; !listening; {
		select {
		case w := <-woken:
			listening = w == (gatehouse.Wake{})
		case <-deadline:
			t.Fatal("no listening wake with a shard down")
		}
	}

	proxy.Restore(t)
	time.Sleep(1100 * time.Millisecond) // retryEvery
	if err := later.DeleteSession(ctx, s.TokenHash, now); err != nil {
		t.Fatalf("sign-out once the shard is back: %v", err)
	}
	if _, _, err := r.FindSession(ctx, s.TokenHash, now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the session after sign-out: %v, want ErrNotFound", err)
	}
}

// TestOneDatabaseTwice: a primary given twice, under two addresses, or a
// shard given as --db, is refused at start rather than served twice.
func TestOneDatabaseTwice(t *testing.T) {
	mainDSN, others := testenv.PostgresDSN(t), testenv.ShardDSNs(t)
	u, err := url.Parse(others[0])
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", "again") // another address of the same database
	u.RawQuery = q.Encode()
	if r, err := shards.Open(ctx, mainDSN, []string{others[0], u.String()}); err == nil {
		r.Close()
		t.Error("a shard given twice was accepted")
	}
	r, _ := openRouterOn(t, mainDSN, others)
	r.Close()
	if r, err := shards.Open(ctx, others[0], []string{mainDSN}); !errors.Is(err, gatehouse.ErrConflict) {
		if err == nil {
			r.Close()
		}
		t.Errorf("a shard given as --db: %v, want ErrConflict", err)
	}
}
