package luasdk

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// A key that expires loses nothing silently: events stay queued up to
// the bound, those beyond are counted as dropped, one warning says why,
// and stats tell it.
func TestExpiredKeyLosesNothingSilently(t *testing.T) {
	g := newGame(t, gameOptions{secrets: map[string]string{}})
	raw, prefix, hash := gatehouse.GenerateKey()
	expires := g.api.Clock.Now().Add(time.Minute)
	if err := g.api.Store.CreateAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), gatehouse.APIKey{
		ID: gatehouse.NewID(), OrgID: g.api.OrgID, Name: "game", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite}, CreatedAt: g.api.Clock.Now(), ExpiresAt: &expires,
	}); err != nil {
		t.Fatal(err)
	}
	g.env.opts.Secrets["gatehouse_key"] = raw
	g.start(`maxQueued = 100`)
	g.record(30, 7, "")
	g.env.Advance(10 * time.Second)
	if s := g.statInt("sent"); s != 30 {
		t.Fatalf("sent %d before the key expired", s)
	}
	g.env.Advance(time.Minute) // the key expires
	g.record(150, 7, "")
	g.env.Advance(5 * time.Minute)
	sent, queued, dropped := g.statInt("sent"), g.statInt("queued"), g.statInt("dropped")
	if sent != 30 || queued != 100 || dropped != 50 {
		t.Fatalf("sent %d queued %d dropped %d, want 30, 100 and 50", sent, queued, dropped)
	}
	if sent+queued+dropped != g.events {
		t.Fatalf("%d events unaccounted for", g.events-sent-queued-dropped)
	}
	if g.stat("authFailed").String() != "true" || g.stat("lastError").String() == "nil" {
		t.Fatalf("stats say authFailed %v, lastError %v", g.stat("authFailed"), g.stat("lastError"))
	}
	if n := g.warnings("the key was refused (401)"); n != 1 {
		t.Fatalf("%d warnings about the key, want 1: %q", n, g.env.Warnings)
	}
	if n := len(g.stored()); n != 30 {
		t.Fatalf("stored %d", n)
	}
}

// Shutdown sends what is queued within the platform's 30 seconds.
func TestShutdownFlushes(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.start(`flushSeconds = 60`)
	g.record(2200, 9, "")
	took, done := g.env.Shutdown(30 * time.Second)
	if !done {
		t.Fatalf("BindToClose still running after %v", took)
	}
	if n := len(g.stored()); n != 2200 {
		t.Fatalf("stored %d of 2200 at shutdown", n)
	}
	t.Logf("2,200 queued events flushed in %v of virtual time", took)
}

// A 429 is waited out for its Retry-After, and nothing is lost.
func TestRetryAfterIsWaited(t *testing.T) {
	g := newGame(t, gameOptions{limit: limitOf(2, time.Minute)})
	g.start(`sync = false, flushSeconds = 1`)
	g.env.Advance(time.Second) // GET /policies takes one of the two
	for i := 0; i < 4; i++ {
		g.record(10, 7, "")
		g.env.Advance(2 * time.Second)
	}
	g.env.Advance(3 * time.Minute)
	if n := len(g.stored()); n != 40 {
		t.Fatalf("stored %d of 40", n)
	}
	if n := g.env.Paths["POST /api/consumer/v1/events"]; n > 6 || g.statInt("budgetWaits") == 0 {
		t.Fatalf("%d POST /events, %d waits: a 429 was not waited out", n, g.statInt("budgetWaits"))
	}
}

// Without network answers the SDK backs off, keeps the events and
// sends them once the network is back.
func TestNetworkErrorsBackOff(t *testing.T) {
	g := newGame(t, gameOptions{})
	g.start(`sync = false`)
	g.env.Advance(time.Second)
	g.env.LoseAnswers["POST /api/consumer/v1/events"] = 5
	g.record(10, 7, "")
	g.env.Advance(2 * time.Minute)
	if n := len(g.stored()); n != 10 || g.statInt("sent") != 10 {
		t.Fatalf("stored %d, sent %d of 10", n, g.statInt("sent"))
	}
	// 5 s flush, then waits 1, 2, 4, 8, 16: six attempts, not one a second.
	if n := g.env.Paths["POST /api/consumer/v1/events"]; n != 6 {
		t.Fatalf("%d POST /events, want 6", n)
	}
}

// A sync refused because no location names the game's universe (404
// universe_not_found) is told once, with Gatehouse's message, and tried
// again a minute later, not every few seconds; the game's events still
// go.
func TestSyncOfAnUnknownUniverseWarnsOnce(t *testing.T) {
	g := newGame(t, gameOptions{gameID: 43})
	g.start(``)
	g.record(5, 7, "")
	g.env.Advance(5 * time.Minute)
	if n := g.warnings("sync refused (404 universe_not_found): no location of your organization names this universe"); n != 1 {
		t.Fatalf("%d warnings about the universe, want 1: %q", n, g.env.Warnings)
	}
	if n := g.env.Paths["POST /api/consumer/v1/servers/"+jobID+"/sync"]; n > 6 {
		t.Fatalf("%d syncs in 5 minutes: a refused sync is retried hot", n)
	}
	if n := len(g.stored()); n != 5 {
		t.Fatalf("stored %d of 5 events", n)
	}
}

// A sync refused because the organization holds as many servers as it
// may (409 too_many_servers) is told once and tried again a minute later.
func TestSyncPastTheServersCapWarnsOnce(t *testing.T) {
	saved := gatehouse.OrgServerCaps
	gatehouse.OrgServerCaps = gatehouse.ServerCaps{}
	t.Cleanup(func() { gatehouse.OrgServerCaps = saved })
	g := newGame(t, gameOptions{})
	g.start(``)
	g.env.Advance(5 * time.Minute)
	if n := g.warnings("sync refused (409 too_many_servers)"); n != 1 {
		t.Fatalf("%d warnings about the cap, want 1: %q", n, g.env.Warnings)
	}
	if n := g.env.Paths["POST /api/consumer/v1/servers/"+jobID+"/sync"]; n > 6 {
		t.Fatalf("%d syncs in 5 minutes: a refused sync is retried hot", n)
	}
}
