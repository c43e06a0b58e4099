package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/teststore"
)

// TestWakesCrossProcesses: a command issued or cancelled through one
// store reaches the watcher of another store on the same file (another
// process: a CLI beside gatehouse serve) within a second, also after the
// sweep has deleted old wakes.
func TestWakesCrossProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	open := func() *sqlite.DB {
		db := teststore.OpenSQLite(t, path)
		db.Now = func() time.Time { return now }
		return db
	}
	cli, serve := open(), open()

	org, err := cli.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	must(t, err)
	loc, err := cli.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	must(t, err)
	_, err = cli.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org.ID, loc.ID, "42")
	must(t, err)
	door, err := cli.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Door")
	must(t, err)
	key := gatehouse.NewID()
	issue := func() gatehouse.Command {
		t.Helper()
		c, err := cli.CreateCommand(ctx, gatehouse.SystemEntry(gatehouse.AuditCommandIssued), gatehouse.IssuedCommand{
			Command: gatehouse.Command{ID: gatehouse.NewID(), OrgID: org.ID, Type: gatehouse.CommandUnlock,
				Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse, UniverseID: "42",
				AccessPoint: gatehouse.NamedRef{ID: door.ID, Name: door.Name}, Location: gatehouse.NamedRef{ID: loc.ID, Name: loc.Name},
				DurationSeconds: 10, IssuedAt: gatehouse.Time(now), ExpiresAt: gatehouse.Time(now.Add(time.Minute)), StatusAt: gatehouse.Time(now)},
			IssuedByKeyID: &key})
		must(t, err)
		return c
	}

	type wake = gatehouse.Wake
	wakes := make(chan wake, 100)
	watch, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- serve.WatchCommands(watch, func(w wake) { wakes <- w })
	}()
	t.Cleanup(func() { stop(); <-done })
	if w := <-wakes; w != (wake{}) {
		t.Fatalf("first wake %v, want the one of anything", w)
	}
	want := wake{OrgID: org.ID, UniverseID: "42"}
	expect := func(what string) {
		t.Helper()
		select {
		case w := <-wakes:
			if w != want {
				t.Fatalf("%s: woken for %v, want %v", what, w, want)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s: no wake within a second", what)
		}
	}

	c := issue()
	expect("issued by another store")
	_, err = cli.CancelCommand(ctx, gatehouse.SystemEntry(gatehouse.AuditCommandCancelled), org.ID, c.ID, now)
	must(t, err)
	expect("cancelled by another store")

	// A minute on, the sweep deletes the old wakes but the newest, so the
	// numbers of new ones keep rising past what the watcher read.
	now = now.Add(2 * time.Minute)
	_, err = cli.SweepCommands(ctx, now)
	must(t, err)
	if n, err := cli.CountForTest(ctx, "command_wakes"); err != nil || n != 1 {
		t.Errorf("%d wakes kept after the sweep (%v), want the newest only", n, err)
	}
	issue()
	expect("issued after the sweep")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
