package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// TestIngestLosesToADeleteAfterItsPlaces: PostgreSQL reads a batch's
// places before it writes the batch, in a transaction of their own. An
// access point deleted in between (it has no events yet) is not written
// to: the batch reads its places again and is refused as of an unknown
// access point, whether it is a few recorded decisions (one statement)
// or a batch stored in a transaction (here one reporting a remote
// unlock). One moved meanwhile is written where it is now.
func TestIngestLosesToADeleteAfterItsPlaces(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	hq, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	annex, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "Annex")
	if err != nil {
		t.Fatal(err)
	}
	granted := gatehouse.Granted
	event := func(ap gatehouse.AccessPoint, command bool) gatehouse.NewEvent {
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			AccessPointID: ap.ID, OccurredAt: time.Now().UTC().Truncate(time.Millisecond)}
		if command {
			ev.Type, ev.Allowed = gatehouse.EventRemoteUnlock, nil
			ev.Command = &gatehouse.NewCommand{ID: ev.ID, Scope: gatehouse.ScopeUniverse, Status: gatehouse.CommandExecuted, IssuedAt: ev.OccurredAt}
		}
		return ev
	}
	count := func(ap gatehouse.AccessPoint) int {
		t.Helper()
		page, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{AccessPointID: &ap.ID, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Events)
	}
	for _, command := range []bool{false, true} {
		door, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, hq.ID, "Door")
		if err != nil {
			t.Fatal(err)
		}
		once := false
		db.AfterIngestResolveForTest(func() {
			if !once {
				once = true
				if err := db.DeleteAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointDeleted), org.ID, door.ID); err != nil {
					t.Error(err)
				}
			}
		})
		_, err = db.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{event(door, command)})
		var ie *gatehouse.IngestError
		if !errors.As(err, &ie) {
			t.Errorf("command %v: ingest of an access point deleted after its places were read: %v, want it refused", command, err)
		}
		if n := count(door); n != 0 {
			t.Errorf("command %v: %d events of a deleted access point", command, n)
		}

		gate, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, hq.ID, "Gate")
		if err != nil {
			t.Fatal(err)
		}
		once = false
		db.AfterIngestResolveForTest(func() {
			if !once {
				once = true
				if _, err := db.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), org.ID, gate.ID, annex.ID); err != nil {
					t.Error(err)
				}
			}
		})
		if _, err := db.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{event(gate, command)}); err != nil {
			t.Fatal(err)
		}
		page, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{AccessPointID: &gate.ID, Limit: 10})
		if err != nil || len(page.Events) != 1 || page.Events[0].Location.ID != annex.ID {
			t.Errorf("command %v: the event of an access point moved meanwhile = %+v, %v", command, page.Events, err)
		}
		db.AfterIngestResolveForTest(nil)
		if _, err := db.MoveAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), org.ID, gate.ID, hq.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAccessPointCreatedInALocationBeingDeleted: an access point created
// in a location whose delete holds its row waits for the delete, then
// finds no location (ErrNotFound) rather than failing the foreign key.
// The delete is played by hand, its row held until the create waits.
func TestAccessPointCreatedInALocationBeingDeleted(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.PostgresDSN(t)
	db := open(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "Mistake")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var pid int
	if err := tx.QueryRow(ctx, "SELECT pg_backend_pid() FROM locations WHERE id = $1 FOR UPDATE", loc.ID).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	created := make(chan error, 1)
	go func() {
		_, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Late")
		created <- err
	}()
	// Wait until the create waits on the location's row.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		waiting, err := db.FloatForTest(ctx, "SELECT count(*) FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", pid)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the create never waited on the location's row")
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM locations WHERE id = $1", loc.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-created; !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an access point created in a location deleted meanwhile: %v, want ErrNotFound", err)
	}
}

// TestIngestHoldWaitsOnlyForMovesAndDeletes: while a batch holds its
// access point (FOR KEY SHARE, as ingest does until it commits), a rename,
// a policy change and an archive of the door go through at once, and a
// move waits for the batch (it would change where its events are).
func TestIngestHoldWaitsOnlyForMovesAndDeletes(t *testing.T) {
	ctx := context.Background()
	d := newDoor(t)
	other, err := d.db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), d.org.ID, "Annex")
	must(t, err)
	conn, err := pgx.Connect(ctx, d.dsn)
	must(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	must(t, err)
	defer tx.Rollback(ctx)
	var n int
	must(t, tx.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM access_points WHERE id = $1 FOR KEY SHARE) d", d.ap.ID).Scan(&n))

	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := d.db.RenameAccessPoint(quick, gatehouse.SystemEntry(gatehouse.AuditAccessPointRenamed), d.org.ID, d.ap.ID, "Front gate"); err != nil {
		t.Errorf("a rename waited for the batch: %v", err)
	}
	if _, err := d.db.PutPolicy(quick, gatehouse.SystemEntry(gatehouse.AuditPolicyChanged), d.org.ID, d.ap.ID,
		gatehouse.Policy{Mode: gatehouse.ModeOpen, FailMode: gatehouse.FailClosed}, nil, time.Now()); err != nil {
		t.Errorf("a policy change waited for the batch: %v", err)
	}
	now := time.Now()
	if _, err := d.db.SetAccessPointArchived(quick, gatehouse.SystemEntry(gatehouse.AuditAccessPointArchived), d.org.ID, d.ap.ID, &now); err != nil {
		t.Errorf("an archive waited for the batch: %v", err)
	}
	brief, cancelBrief := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelBrief()
	if _, err := d.db.MoveAccessPoint(brief, gatehouse.SystemEntry(gatehouse.AuditAccessPointMoved), d.org.ID, d.ap.ID, other.ID); err == nil {
		t.Error("a move did not wait for the batch holding the access point")
	}
}
