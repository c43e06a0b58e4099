package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// partitioned is a migrated database with an organization and a door,
// its clock at *now.
type partitioned struct {
	db   *postgres.DB
	dsn  string
	now  time.Time
	org  gatehouse.Organization
	door gatehouse.AccessPoint
}

func newPartitioned(t *testing.T, now time.Time) *partitioned {
	t.Helper()
	ctx := context.Background()
	dsn := testenv.PostgresDSN(t)
	p := &partitioned{db: open(t, dsn), dsn: dsn, now: now}
	p.db.Now = func() time.Time { return p.now }
	if err := p.db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p.org, p.door = p.place(t, "Acme")
	return p
}

func (p *partitioned) place(t *testing.T, name string) (gatehouse.Organization, gatehouse.AccessPoint) {
	t.Helper()
	ctx := context.Background()
	org, err := p.db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), name)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := p.db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	door, err := p.db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Door")
	if err != nil {
		t.Fatal(err)
	}
	return org, door
}

// ingest stores an event of id at at through door, and returns whether it
// was stored (false: a duplicate).
func (p *partitioned) ingest(t *testing.T, org gatehouse.Organization, door gatehouse.AccessPoint, id uuid.UUID, at time.Time) bool {
	t.Helper()
	res, err := p.db.IngestEvents(context.Background(), org.ID, []gatehouse.NewEvent{{ID: id, Type: gatehouse.EventAccessDenied,
		AccessPointID: door.ID, OccurredAt: at, PlatformUserID: new("42"), Reason: new("OUTSIDE_SCHEDULE")}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Accepted == 1
}

func (p *partitioned) ids(t *testing.T, org gatehouse.Organization) []uuid.UUID {
	t.Helper()
	page, err := p.db.ListEvents(context.Background(), org.ID, gatehouse.EventFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	for _, ev := range page.Events {
		ids = append(ids, ev.ID)
	}
	return ids
}

func (p *partitioned) partitions(t *testing.T) map[string]string {
	t.Helper()
	parts, err := p.db.PartitionsForTest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// TestRetriedIDsArePartitionedDuplicates: the unique key of events holds
// occurredAt; an id is still a duplicate whatever its occurredAt for
// gatehouse.RecentIDsKept, and with the same occurredAt forever. An
// event deleted is no duplicate.
func TestRetriedIDsArePartitionedDuplicates(t *testing.T) {
	ctx := context.Background()
	p := newPartitioned(t, time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC))
	id := gatehouse.NewID()
	at := time.Date(2031, 3, 1, 8, 0, 0, 0, time.UTC)
	if !p.ingest(t, p.org, p.door, id, at) {
		t.Fatal("not stored")
	}
	// Another month: another partition, where the key alone would not
	// see it.
	if p.ingest(t, p.org, p.door, id, at.AddDate(0, -1, 0)) {
		t.Error("the id again with another occurredAt, the same day: stored, want a duplicate")
	}
	// Another organization's id is its own.
	other, otherDoor := p.place(t, "Beta")
	if !p.ingest(t, other, otherDoor, id, at) {
		t.Error("another organization's event of the same id: a duplicate")
	}

	// 7 days later. (An id received again, stored or not, is recent
	// again: it is forgotten each time.)
	forget := func(want int) {
		t.Helper()
		p.now = p.now.Add(gatehouse.RecentIDsKept + time.Hour)
		if n, err := p.db.ForgetRecentIDs(ctx, p.now.Add(-gatehouse.RecentIDsKept)); err != nil || n != want {
			t.Fatalf("ForgetRecentIDs: %d, %v; want %d", n, err, want)
		}
	}
	forget(2)
	if p.ingest(t, p.org, p.door, id, at) {
		t.Error("the id again with its occurredAt, after 7 days: stored, want a duplicate")
	}
	forget(1)
	if !p.ingest(t, p.org, p.door, id, at.AddDate(0, -1, 0)) {
		t.Error("the id again with another occurredAt after 7 days: a duplicate, want it stored (docs/api.md)")
	}
	if got := p.ids(t, p.org); len(got) != 2 {
		t.Errorf("events: %v, want the id twice", got)
	}

	// Erased, the id is new again, as on SQLite.
	if n, err := p.db.DeletePlayerEvents(ctx, p.org.ID, "42", 100); err != nil || n != 2 {
		t.Fatalf("erasing: %d, %v", n, err)
	}
	fresh := gatehouse.NewID()
	if !p.ingest(t, p.org, p.door, fresh, p.now) {
		t.Fatal("not stored")
	}
	if _, err := p.db.DeletePlayerEvents(ctx, p.org.ID, "42", 100); err != nil {
		t.Fatal(err)
	}
	if !p.ingest(t, p.org, p.door, fresh, p.now.Add(-time.Hour)) {
		t.Error("an erased event's id within 7 days, another occurredAt: a duplicate, want it stored")
	}
}

// TestRetentionDropsWholeMonths: a month whose events are all past their
// organization's retention is dropped whole, with its rollups; a month
// that holds an event retention keeps stays, and so do the empty months
// within the shortest retention; a month left detached by a
// pass that stopped is finished by the next, and an ingest that meets a
// month detached attaches it again.
func TestRetentionDropsWholeMonths(t *testing.T) {
	ctx := context.Background()
	p := newPartitioned(t, time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC))
	// The months ahead are empty, and stay.
	if _, err := p.db.AddEventPartitions(ctx, p.now); err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.DropExpiredPartitions(ctx, p.now); err != nil {
		t.Fatal(err)
	}
	for _, month := range []string{"events_2031_03", "events_2031_04", "events_2031_05"} {
		if _, ok := p.partitions(t)[month]; !ok {
			t.Errorf("partitions after a pass: %v, want %s, within retention", p.partitions(t), month)
		}
	}
	keeper, keeperDoor := p.place(t, "Keeps everything")
	if _, err := p.db.SetRetention(ctx, gatehouse.SystemEntry(gatehouse.AuditRetentionChanged), keeper.ID, 36500); err != nil {
		t.Fatal(err)
	}
	jan, feb, mar := time.Date(2031, 1, 15, 0, 0, 0, 0, time.UTC), time.Date(2031, 2, 15, 0, 0, 0, 0, time.UTC), time.Date(2031, 3, 5, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{jan, feb, mar} {
		p.ingest(t, p.org, p.door, gatehouse.NewID(), at)
	}
	kept := gatehouse.NewID()
	p.ingest(t, keeper, keeperDoor, kept, feb)
	if err := p.db.RollInsights(ctx, p.now); err != nil {
		t.Fatal(err)
	}
	rollups := func(month time.Time) float64 {
		t.Helper()
		n, err := p.db.FloatForTest(ctx, `SELECT (SELECT count(*) FROM insight_door_days WHERE day >= $1 AND day < $2)
			+ (SELECT count(*) FROM insight_player_months WHERE month >= $1 AND month < $2)
			+ (SELECT count(*) FROM insight_hour_totals WHERE hour >= $1 AND hour < $2)`, month, month.AddDate(0, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	janStart := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
	if rollups(janStart) == 0 {
		t.Fatal("January has no rollup rows to drop")
	}

	// A pass that stopped after detaching January.
	if err := p.db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2031_01"); err != nil {
		t.Fatal(err)
	}
	// February past Acme's retention, not the keeper's; January and
	// February past Acme's only.
	p.now = time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, gatehouse.DefaultRetentionDays+1)
	// (The months the migration made ahead of the real day are empty:
	// dropped too, when they are past.)
	if dropped, err := p.db.DropExpiredPartitions(ctx, p.now); err != nil || dropped < 1 {
		t.Fatalf("DropExpiredPartitions: %d, %v; want January", dropped, err)
	}
	parts := p.partitions(t)
	if _, ok := parts["events_2031_02"]; !ok {
		t.Errorf("partitions: %v; February holds an event its organization keeps", parts)
	}
	if _, ok := parts["events_2031_01"]; ok {
		t.Errorf("partitions: %v; January is past", parts)
	}
	if n := rollups(janStart); n != 0 {
		t.Errorf("January's rollup rows: %v, want none", n)
	}
	if got := p.ids(t, keeper); !slices.Equal(got, []uuid.UUID{kept}) {
		t.Errorf("the keeper's events: %v", got)
	}

	// February left detached by a pass: the next attaches it again, for
	// the keeper's event.
	if err := p.db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2031_02"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.DropExpiredPartitions(ctx, p.now); err != nil {
		t.Fatal(err)
	}
	if got := p.ids(t, keeper); !slices.Equal(got, []uuid.UUID{kept}) {
		t.Errorf("the keeper's events after a pass met February detached: %v", got)
	}

	// February detached, then an event of the keeper for it: attached
	// again with what it held.
	if err := p.db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2031_02"); err != nil {
		t.Fatal(err)
	}
	later := gatehouse.NewID()
	if !p.ingest(t, keeper, keeperDoor, later, feb.Add(time.Hour)) {
		t.Fatal("not stored")
	}
	if got := p.ids(t, keeper); !slices.Equal(got, []uuid.UUID{later, kept}) {
		t.Errorf("the keeper's events after February came back: %v", got)
	}
}

// TestPartitionMigration: migration 0029 turns a populated events table
// into the partition of everything before next month, without losing
// an event, a feed position or a duplicate: the ids received in the last
// 7 days are recent ids, and the feed goes on after the last event.
func TestPartitionMigration(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 28); err != nil {
		t.Fatal(err)
	}
	// The migration reads the database's own clock.
	now := time.Now().UTC().Truncate(time.Millisecond)
	db.Now = func() time.Time { return now }
	p := &partitioned{db: db, now: now}
	p.org, p.door = p.place(t, "Acme")
	store := func(id uuid.UUID, at time.Time) {
		t.Helper()
		res, err := db.IngestBeforePartitionsForTest(ctx, p.org.ID, []gatehouse.NewEvent{{ID: id, Type: gatehouse.EventAccessGranted,
			AccessPointID: p.door.ID, OccurredAt: at}})
		if err != nil || res.Accepted != 1 {
			t.Fatalf("storing before the migration: %+v, %v", res, err)
		}
	}
	recent, old, ahead := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	store(old, now.AddDate(0, -2, 0))
	store(recent, now.Add(-time.Hour))
	store(ahead, now.Add(59*time.Minute)) // ingest takes up to an hour ahead

	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.partitions(t)["events_legacy"]; !ok {
		t.Errorf("partitions after migrating: %v, want the old table as the legacy one", p.partitions(t))
	}
	if got := p.ids(t, p.org); !slices.Equal(got, []uuid.UUID{ahead, recent, old}) {
		t.Errorf("events after the migration: %v, want %v", got, []uuid.UUID{ahead, recent, old})
	}
	if p.ingest(t, p.org, p.door, recent, now.Add(-2*time.Hour)) {
		t.Error("an id of the last 7 days again with another occurredAt: stored, want a duplicate")
	}
	if p.ingest(t, p.org, p.door, old, now.AddDate(0, -2, 0)) {
		t.Error("an old id again with its occurredAt: stored, want a duplicate")
	}
	next := gatehouse.NewID()
	// The first month the legacy partition does not hold: the month after
	// both the last event and tomorrow (0029), so on a month's last day
	// the one after next.
	tomorrow := now.AddDate(0, 0, 1)
	nextMonth := time.Date(tomorrow.Year(), tomorrow.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	p.now = nextMonth.Add(time.Hour)
	if !p.ingest(t, p.org, p.door, next, nextMonth) {
		t.Fatal("an event of next month was not stored")
	}
	if _, ok := p.partitions(t)["events_"+nextMonth.Format("2006_01")]; !ok {
		t.Errorf("partitions: %v, want next month's", p.partitions(t))
	}
	// The feed holds them all, the new one last, and its seq is past the
	// old table's (the identity goes on from there).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		page, err := db.ReadFeed(ctx, p.org.ID, gatehouse.EventFilter{Limit: 10}, gatehouse.FeedPosition{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Events) == 4 {
			if page.Events[3].ID != next {
				t.Errorf("the feed's last event: %s, want the one stored after the migration", page.Events[3].ID)
			}
			break
		}
		if time.Now().After(deadline) { // PostgreSQL holds events back while an older transaction runs
			t.Fatalf("the feed holds %d events after 20 s, want 4", len(page.Events))
		}
	}
	if after, err := db.FloatForTest(ctx, "SELECT (SELECT seq FROM events WHERE id = $1) - (SELECT max(seq) FROM events WHERE id <> $1)", next); err != nil || after < 1 {
		t.Errorf("the new event's seq is %v past the last before the migration (%v), want it after", after, err)
	}
}
