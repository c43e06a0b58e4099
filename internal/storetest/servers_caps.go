package storetest

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// players returns n platform user ids from first on.
func players(first, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(first + i)
	}
	return out
}

// testServerCaps: an organization holds at most caps.Servers servers
// and caps.Players players on them. A new server past either cap is
// ErrTooManyServers and stores nothing; a server it holds keeps syncing,
// and a list that would take it past the players' cap keeps the players
// that fit, the rest tried again at each sync; servers forgotten free
// their places; another organization has caps of its own.
func testServerCaps(t *testing.T, f *fixture) {
	p, q := f.unlockPlace("acme"), f.unlockPlace("beta")
	caps := gatehouse.ServerCaps{Servers: 8, Players: 30}
	beat := func(org uuid.UUID, job string, players ...string) error {
		t.Helper()
		if players == nil {
			players = []string{}
		}
		return f.s.Heartbeat(ctx, org, gatehouse.GameServer{JobID: job, UniverseID: universe, Players: players,
			SeenAt: f.now, StartedAt: f.now}, caps)
	}
	hosts := func(player string) []string {
		t.Helper()
		live, err := f.s.LiveServers(ctx, p.org.ID, universe, f.now, ptr(player))
		must(t, err)
		return jobIDs(live)
	}
	for i := range 3 {
		must(t, beat(p.org.ID, "full-"+strconv.Itoa(i), players(i*10+1, 10)...)) // 30 players
	}
	wantErr(t, "a new server with a player past the players' cap", beat(p.org.ID, "one-more", "999"), gatehouse.ErrTooManyServers)
	if got := hosts("999"); len(got) != 0 {
		t.Errorf("a refused server was stored: %v", got)
	}
	// A server held syncs on: the same list, and a new list of its size.
	f.now = f.now.Add(time.Second)
	must(t, beat(p.org.ID, "full-0", players(1, 10)...))
	must(t, beat(p.org.ID, "full-1", players(101, 10)...))
	if got := hosts("101"); !slices.Equal(got, []string{"full-1"}) {
		t.Errorf("a held server's new list was not stored: %v", got)
	}
	// A server with no players is no player row: it may join, and its
	// list may grow only as far as the cap.
	must(t, beat(p.org.ID, "empty"))
	must(t, beat(p.org.ID, "empty", "888", "889"))
	if got := append(hosts("888"), hosts("889")...); len(got) != 0 {
		t.Errorf("a list grew past the players' cap: %v", got)
	}
	live, err := f.s.LiveServers(ctx, p.org.ID, universe, f.now, nil)
	must(t, err)
	if !slices.Contains(jobIDs(live), "empty") {
		t.Errorf("the server whose list did not fit is not live: %v", jobIDs(live))
	}
	// A list that shrinks makes room: the same list, sent again, takes it.
	must(t, beat(p.org.ID, "full-2", players(21, 9)...))
	must(t, beat(p.org.ID, "empty", "888", "889"))
	if got, other := hosts("888"), hosts("889"); !slices.Equal(got, []string{"empty"}) || len(other) != 0 {
		t.Errorf("the player that fits is on %v, the one that does not on %v; want [empty] and none", got, other)
	}
	// The other organization is at no cap.
	must(t, beat(q.org.ID, "one-more", "999"))

	// An erasure frees the rows it deletes: the player's server counts
	// its rows again, so that a new server with one player fits.
	wantErr(t, "a new server at the players' cap", beat(p.org.ID, "after-erasure", "777"), gatehouse.ErrTooManyServers)
	f.erasePlayer(p.org.ID, "101", 100)
	must(t, beat(p.org.ID, "after-erasure", "777"))

	// Servers: the cap counts them, with or without players.
	for i := range caps.Servers - 5 {
		must(t, beat(p.org.ID, "idle-"+strconv.Itoa(i)))
	}
	wantErr(t, "a new server past the servers' cap", beat(p.org.ID, "one-more"), gatehouse.ErrTooManyServers)
	must(t, beat(p.org.ID, "idle-0")) // held: syncs on

	// Forgotten servers free their places.
	f.now = f.now.Add(gatehouse.ServerForgetAfter + time.Minute)
	_, err = f.s.SweepCommands(ctx, f.now)
	must(t, err)
	must(t, beat(p.org.ID, "one-more", "999"))
	if got := hosts("999"); !slices.Equal(got, []string{"one-more"}) {
		t.Errorf("a server after the sweep is on %v", got)
	}
}
