package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// TestEventsArePartitionedByMonth: a new installation has a partition
// for each month; a month with no partition is made by the ingest that
// meets it, as far back as retention allows, and the months ahead by
// every instance at once without a clash.
func TestEventsArePartitionedByMonth(t *testing.T) {
	ctx := context.Background()
	p := newPartitioned(t, time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC))
	// A new installation: no legacy partition.
	if _, ok := p.partitions(t)["events_legacy"]; ok {
		t.Errorf("partitions after migrating an empty database: %v, want no legacy one", p.partitions(t))
	}
	// The months ahead, by four instances at once.
	var wg sync.WaitGroup
	made := make([]int, 4)
	for i := range made {
		wg.Go(func() {
			n, err := p.db.AddEventPartitions(ctx, p.now)
			if err != nil {
				t.Error(err)
			}
			made[i] = n
		})
	}
	wg.Wait()
	parts := p.partitions(t)
	for _, month := range []string{"events_2031_03", "events_2031_04", "events_2031_05"} {
		if _, ok := parts[month]; !ok {
			t.Errorf("partitions: %v, want %s", parts, month)
		}
	}
	if total := made[0] + made[1] + made[2] + made[3]; total != 3 {
		t.Errorf("the instances made %v partitions, want 3 in all", made)
	}
	if bound := parts["events_2031_04"]; bound != "FOR VALUES FROM ('2031-04-01 00:00:00+00') TO ('2031-05-01 00:00:00+00')" {
		t.Errorf("April's bounds: %s", bound)
	}
	// From the 31st, the next month is February, not March the 3rd.
	if _, err := p.db.AddEventPartitions(ctx, time.Date(2032, 1, 31, 23, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.partitions(t)["events_2032_02"]; !ok {
		t.Errorf("partitions made ahead on January 31st: %v, want February's", p.partitions(t))
	}

	// A month of history no partition holds yet: the ingest makes it.
	old := gatehouse.NewID()
	if !p.ingest(t, p.org, p.door, old, time.Date(2030, 5, 31, 23, 59, 59, 0, time.UTC)) {
		t.Fatal("an event of a month with no partition was not stored")
	}
	if _, ok := p.partitions(t)["events_2030_05"]; !ok {
		t.Errorf("partitions: %v, want May 2030's", p.partitions(t))
	}
	now := gatehouse.NewID()
	if !p.ingest(t, p.org, p.door, now, p.now) {
		t.Fatal("an event of this month was not stored")
	}
	if got := p.ids(t, p.org); !slices.Equal(got, []uuid.UUID{now, old}) {
		t.Errorf("events: %v, want %v", got, []uuid.UUID{now, old})
	}
}

// TestABatchIntoANewMonthIsWrittenOnce: a batch of history that reaches
// a month with no partition makes the month before it writes. Written
// first and tried again, its rows in the months that had one would stay
// behind as dead space, which a past month never fills again (the 1 M
// bench lost 8% of its rows' pages to it).
func TestABatchIntoANewMonthIsWrittenOnce(t *testing.T) {
	ctx := context.Background()
	p := newPartitioned(t, time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC))
	if _, err := p.db.AddEventPartitions(ctx, p.now); err != nil {
		t.Fatal(err)
	}
	// Ten events of March, whose month is made, and one of a May of
	// history, whose month is not.
	var batch []gatehouse.NewEvent
	for i := range 11 {
		at := time.Date(2031, 3, 1, 8, i, 0, 0, time.UTC)
		if i == 10 {
			at = time.Date(2030, 5, 2, 8, 0, 0, 0, time.UTC)
		}
		batch = append(batch, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted,
			AccessPointID: p.door.ID, OccurredAt: at, PlatformUserID: new("42")})
	}
	res, err := p.db.IngestEvents(ctx, p.org.ID, batch)
	if err != nil || res.Accepted != 11 {
		t.Fatalf("ingest: %+v, %v", res, err)
	}
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The rows of March are the first ten of its first page: no attempt
	// before them left its own.
	var last int
	if err := conn.QueryRow(ctx, "SELECT max((ctid::text::point)[1])::int FROM events_2031_03").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != 10 {
		t.Errorf("March's ten rows end at line %d of their page, want 10: a failed attempt wrote before them", last)
	}
}
