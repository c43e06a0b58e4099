package service_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestNewJobIDsStoreBoundedRows: a key that syncs 400 new job ids, each
// listing 1,000 players, stores at most the organization's caps of
// player rows; the syncs past them are refused. It stored all 400,000.
func TestNewJobIDsStoreBoundedRows(t *testing.T) {
	if testing.Short() {
		t.Skip("400 syncs of 1,000 players")
	}
	f := newUnlock(t)
	zero := 0
	list := make([]string, gatehouse.MaxServerPlayers)
	refused := 0
	start := time.Now()
	const n = 400
	for i := range n {
		for j := range list {
			list[j] = strconv.Itoa(i*len(list) + j + 1)
		}
		_, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: "flood-" + strconv.Itoa(i),
			UniverseID: "42", Players: list, WaitSeconds: &zero})
		switch {
		case errors.Is(err, gatehouse.ErrTooManyServers):
			refused++
		case err != nil:
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	// A new server is stored whole or refused: what is stored is the
	// lists of the syncs that passed.
	stored := (n - refused) * len(list)
	t.Logf("%d syncs of new job ids with %d players each: %d servers and %d player rows stored, %d refused; %s",
		n, len(list), n-refused, stored, refused, took.Round(time.Millisecond))
	if stored > gatehouse.MaxOrgPlayers {
		t.Errorf("%d player rows stored, past the cap of %d", stored, gatehouse.MaxOrgPlayers)
	}
	// The servers that passed sync on.
	_, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: "flood-0", UniverseID: "42", Players: list, WaitSeconds: &zero})
	must(t, err)
}
