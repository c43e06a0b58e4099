package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// TestConcurrentBatchesInOppositeOrderBothSucceed sends, round after round,
// two batches with the same event and command ids at once, one in reverse
// order. Each transaction locks the ids it inserts, so in input order the
// two wait for each other and PostgreSQL kills one as a deadlock. Both
// must succeed, all or nothing, with every id stored exactly once.
func TestConcurrentBatchesInOppositeOrderBothSucceed(t *testing.T) {
	db := open(t, testenv.PostgresDSN(t))
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Deadlock")
	if err != nil {
		t.Fatal(err)
	}
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	ap, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Door")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Millisecond).Add(-time.Hour)
	const rounds, size = 20, 200
	for round := range rounds {
		batch := make([]gatehouse.NewEvent, size)
		for i := range batch {
			batch[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventRemoteUnlock,
				OccurredAt: at, AccessPointID: ap.ID, Scope: new(gatehouse.ScopeUniverse),
				Command: &gatehouse.NewCommand{ID: gatehouse.NewID(), Status: gatehouse.CommandExecuted,
					Scope: gatehouse.ScopeUniverse, IssuedAt: at}}
		}
		reversed := slices.Clone(batch)
		slices.Reverse(reversed)
		var (
			wg      sync.WaitGroup
			results [2]gatehouse.IngestResult
			errs    [2]error
		)
		for i, b := range [][]gatehouse.NewEvent{batch, reversed} {
			wg.Go(func() { results[i], errs[i] = db.IngestEvents(ctx, org.ID, b) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: batch %d: %v", round, i, err)
			}
		}
		if got := results[0].Accepted + results[1].Accepted; got != size {
			t.Fatalf("round %d: %d events accepted in all, want each of the %d once (%+v, %+v)",
				round, got, size, results[0].Accepted, results[1].Accepted)
		}
		if results[0].Accepted+results[0].Duplicates != size || results[1].Accepted+results[1].Duplicates != size {
			t.Fatalf("round %d: a batch was stored in part: %d+%d, %d+%d", round,
				results[0].Accepted, results[0].Duplicates, results[1].Accepted, results[1].Duplicates)
		}
	}
}

// TestAbortedTransactionsAreRetried has PostgreSQL itself raise the errors
// it aborts a deadlock victim or a serialization failure with: the store
// runs the whole transaction again, keeping nothing of the aborted runs,
// and gives up after a bounded number of runs with ErrUnavailable, which
// clients retry.
func TestAbortedTransactionsAreRetried(t *testing.T) {
	db := open(t, testenv.PostgresDSN(t))
	ctx := context.Background()
	exec := func(sql string) func(pgx.Tx) error {
		return func(tx pgx.Tx) error { _, err := tx.Exec(ctx, sql); return err }
	}
	if err := db.WithTxForTest(ctx, exec("CREATE TABLE runs (n int)")); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"40P01", "40001"} {
		abort := exec("DO $$ BEGIN RAISE EXCEPTION 'aborted' USING ERRCODE = '" + code + "'; END $$")
		runs := 0
		err := db.WithTxForTest(ctx, func(tx pgx.Tx) error {
			runs++
			if err := exec(fmt.Sprintf("INSERT INTO runs VALUES (%d)", runs))(tx); err != nil || runs == 3 {
				return err
			}
			return abort(tx)
		})
		if err != nil || runs != 3 {
			t.Fatalf("%s twice, then success: %v after %d runs, want success on the third", code, err, runs)
		}
		runs = 0
		err = db.WithTxForTest(ctx, func(tx pgx.Tx) error { runs++; return abort(tx) })
		if !errors.Is(err, gatehouse.ErrUnavailable) || runs < 2 || runs > 10 {
			t.Fatalf("%s every time: %v after %d runs, want ErrUnavailable after a few runs", code, err, runs)
		}
	}
	var kept []int
	err := db.WithTxForTest(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, "SELECT n FROM runs ORDER BY n")
		var err error
		kept, err = pgx.CollectRows(rows, pgx.RowTo[int])
		return err
	})
	if err != nil || !slices.Equal(kept, []int{3, 3}) {
		t.Fatalf("rows kept: %v, %v; want only each successful third run's", kept, err)
	}
}
