package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// TestAcksDoNotWaitOnTheCommandRow: an answer that does not settle its
// command commits while another transaction holds the command's row, so
// a thousand servers answering one unlock do not queue on it.
func TestAcksDoNotWaitOnTheCommandRow(t *testing.T) {
	d := newDoor(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, job := range []string{"s1", "s2"} {
		must(t, d.db.Heartbeat(ctx, d.org.ID, gatehouse.GameServer{JobID: job, UniverseID: "42", Players: []string{}, SeenAt: now, StartedAt: now}, gatehouse.OrgServerCaps))
	}
	c := d.issue(t, now, "s1", "s2")
	for _, job := range []string{"s1", "s2"} {
		_, _, err := d.db.TakeCommands(ctx, d.org.ID, job, "42", 0, now)
		must(t, err)
	}
	conn, err := pgx.Connect(ctx, d.dsn)
	must(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	must(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, "SELECT 1 FROM commands WHERE id = $1 FOR UPDATE", c.ID)
	must(t, err)

	acking, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	rejected, err := d.db.AckCommands(acking, d.org.ID, "s1", []gatehouse.Ack{{CommandID: c.ID, Result: gatehouse.AckExecuted}}, now)
	if err != nil || len(rejected) != 0 {
		t.Fatalf("ack while the command's row is locked: rejected %v, %v", rejected, err)
	}
	must(t, tx.Rollback(ctx))
	got, err := d.db.FindCommand(ctx, d.org.ID, c.ID)
	must(t, err)
	if got.Status != gatehouse.CommandDelivered || got.Targets.Executed != 1 {
		t.Errorf("after one of two answers: %s %+v", got.Status, got.Targets)
	}
	_, err = d.db.AckCommands(ctx, d.org.ID, "s2", []gatehouse.Ack{{CommandID: c.ID, Result: gatehouse.AckExecuted}}, now)
	must(t, err)
	if got, err := d.db.FindCommand(ctx, d.org.ID, c.ID); err != nil || got.Status != gatehouse.CommandExecuted {
		t.Errorf("after every answer: %s, %v", got.Status, err)
	}
}

// TestSweepSettlesALostSettle: a command every target of which answered
// but that stayed unsettled (the answering instance stopped between its
// commit and the move) is settled by the next sweep, before its deadline
// and not as EXPIRED after it.
func TestSweepSettlesALostSettle(t *testing.T) {
	d := newDoor(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	must(t, d.db.Heartbeat(ctx, d.org.ID, gatehouse.GameServer{JobID: "s1", UniverseID: "42", Players: []string{}, SeenAt: now, StartedAt: now}, gatehouse.OrgServerCaps))
	executed, failed := d.issue(t, now, "s1"), d.issue(t, now, "s1")
	_, _, err := d.db.TakeCommands(ctx, d.org.ID, "s1", "42", 0, now)
	must(t, err)
	_, err = d.db.AckCommands(ctx, d.org.ID, "s1", []gatehouse.Ack{{CommandID: executed.ID, Result: gatehouse.AckExecuted},
		{CommandID: failed.ID, Result: gatehouse.AckFailed}}, now)
	must(t, err)
	conn, err := pgx.Connect(ctx, d.dsn)
	must(t, err)
	defer conn.Close(ctx)
	// The moves that were lost.
	_, err = conn.Exec(ctx, "UPDATE commands SET status = 'DELIVERED', failure_reason = NULL WHERE id = ANY($1)",
		[]uuid.UUID{executed.ID, failed.ID})
	must(t, err)

	later := now.Add(2 * time.Minute) // past both deadlines
	if _, err := d.db.SweepCommands(ctx, later); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[uuid.UUID]gatehouse.CommandStatus{executed.ID: gatehouse.CommandExecuted, failed.ID: gatehouse.CommandFailed} {
		got, err := d.db.FindCommand(ctx, d.org.ID, id)
		must(t, err)
		if got.Status != want || !time.Time(got.StatusAt).Equal(later) {
			t.Errorf("after the sweep: %s at %v, want %s at %v", got.Status, time.Time(got.StatusAt), want, later)
		}
	}
}
