package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestCompactRowMigration: migrations 0033 and 0034 rewrite a populated
// events table into the compact row, every month of it and a month
// retention detached, without changing what an event reads as (its place
// and its names as recorded, a door renamed in between, its type,
// outcome, scope, reason, player and job), its position in the feed, or
// the rollups; the identity goes on after the last seq, the values are
// keyed once per organization, and the months attached and detached keep
// their marks, and take the index of jobs as they are attached.
func TestCompactRowMigration(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.MigrateThroughForTest(ctx, 32); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	p := &partitioned{db: db, now: now}
	db.Now = func() time.Time { return p.now }
	acme, door := p.place(t, "Acme")
	globex, other := p.place(t, "Globex")
	jan := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	if err := db.ExecForTest(ctx, "SELECT events_add_months($1)", []time.Time{jan, jan.AddDate(0, 1, 0), now}); err != nil {
		t.Fatal(err)
	}
	store := func(org gatehouse.Organization, evs ...gatehouse.NewEvent) {
		t.Helper()
		res, err := db.IngestBeforePartitionsForTest(ctx, org.ID, evs)
		if err != nil || res.Accepted != len(evs) {
			t.Fatalf("storing in the row before 0033: %+v, %v", res, err)
		}
	}
	denied, granted := gatehouse.Denied, gatehouse.Granted
	scope := gatehouse.ScopeServer
	store(acme,
		gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &denied, AccessPointID: door.ID,
			OccurredAt: jan, PlatformUserID: new("42"), Reason: new("OUTSIDE_SCHEDULE"), ServerJobID: new("job-1")},
		gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted, AccessPointID: door.ID,
			OccurredAt: jan.AddDate(0, 1, 0), PlatformUserID: new("43"), PlatformUserName: new("Ana")})
	if _, err := db.RenameAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointRenamed), acme.ID, door.ID, "Front gate"); err != nil {
		t.Fatal(err)
	}
	store(acme, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventRemoteUnlock, AccessPointID: door.ID,
		OccurredAt: now.Add(-time.Hour), Scope: &scope, ServerJobID: new("job-2")})
	store(globex, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
		AccessPointID: other.ID, OccurredAt: now.Add(-2 * time.Hour)})
	if err := db.ExecForTest(ctx, "ALTER TABLE events DETACH PARTITION events_2026_02"); err != nil {
		t.Fatal(err)
	}

	// What each event reads as, from the wide row, and the rollups.
	wide := `SELECT e.id || ' ' || e.type || ' ' || coalesce(e.allowed, '-') || ' ' || coalesce(e.scope, '-') || ' ' ||
			e.access_point_id || ' ' || e.access_point_name || ' ' || e.location_id || ' ' || e.location_name || ' ' ||
			coalesce(e.reason, '-') || ' ' || coalesce(e.platform_user_id, '-') || ' ' || coalesce(e.platform_user_name, '-') || ' ' ||
			coalesce(e.server_job_id, '-') || ' ' || e.occurred_at || ' ' || e.xid || ' ' || e.seq
		FROM (SELECT * FROM events UNION ALL SELECT * FROM events_2026_02) e ORDER BY e.seq`
	before, err := db.StringsForTest(ctx, wide)
	if err != nil {
		t.Fatal(err)
	}
	rollups := `SELECT string_agg(t::text, '; ' ORDER BY t::text) FROM (
		SELECT r::text AS t FROM insight_door_days r UNION ALL SELECT r::text FROM insight_hours r
		UNION ALL SELECT r::text FROM insight_hour_totals r) u`
	rolledBefore, err := db.StringForTest(ctx, rollups)
	if err != nil {
		t.Fatal(err)
	}
	lastSeq, err := db.FloatForTest(ctx, "SELECT max(seq) FROM events")
	if err != nil {
		t.Fatal(err)
	}

	if err := db.MigrateThroughForTest(ctx, 33); err != nil {
		t.Fatal(err)
	}
	// At 0033: January as rebuilt (compact.go), February detached as
	// rebuilt, March not.
	for month, mark := range map[string]string{"events_2026_01": "'rebuilt'", "events_2026_02": "'rebuilt'", "events_2026_03": "NULL"} {
		if err := db.ExecForTest(ctx, "COMMENT ON TABLE "+month+" IS "+mark); err != nil {
			t.Fatal(err)
		}
	}
	markedBefore := []string{"events_2026_01", "events_2026_02"}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	compact := `SELECT e.id || ' ' || event_type_name(e.type) || ' ' || coalesce(event_allowed(e.type), '-') || ' ' ||
			coalesce(event_scope_name(e.scope), '-') || ' ' || a.value || ' ' || n.value || ' ' || l.value || ' ' || n.value2 || ' ' ||
			coalesce(e.reason, '-') || ' ' || coalesce(e.platform_user_id, '-') || ' ' || coalesce(e.platform_user_name, '-') || ' ' ||
			coalesce(j.value, '-') || ' ' || e.occurred_at || ' ' || e.xid || ' ' || e.seq
		FROM (SELECT * FROM events UNION ALL SELECT * FROM events_2026_02) e
		JOIN event_values a ON a.org = e.org AND a.key = e.access_point AND a.kind = 'a'
		JOIN event_values l ON l.org = e.org AND l.key = e.location AND l.kind = 'l'
		JOIN event_values n ON n.org = e.org AND n.key = e.names AND n.kind = 'n'
		LEFT JOIN event_values j ON j.org = e.org AND j.key = e.server_job_id AND j.kind = 'j' ORDER BY e.seq`
	after, err := db.StringsForTest(ctx, compact)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after, before) {
		t.Errorf("events after the migration:\n%s\nwant:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	if rolled, err := db.StringForTest(ctx, rollups); err != nil || rolled != rolledBefore {
		t.Errorf("rollups after the migration: %s (%v)\nwant: %s", rolled, err, rolledBefore)
	}
	// Acme's values: its door, its location, and the door's two pairs of
	// names; Globex's three of its own.
	values, err := db.StringsForTest(ctx, `SELECT o.name || ' ' || v.kind::text || ' ' || v.value2 || ' ' || count(*) FROM event_values v
		JOIN organizations o ON o.seq = v.org GROUP BY o.name, v.kind, v.value2 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Acme a  1", "Acme j  2", "Acme l  1", "Acme n HQ 2", "Globex a  1", "Globex l  1", "Globex n HQ 1"}
	if !slices.Equal(values, want) {
		t.Errorf("event values by organization and kind: %q, want %q", values, want)
	}

	// Read through the store: the page of Acme's events shows each as
	// recorded, the renamed door under its old name before the rename.
	page, err := db.ListEvents(ctx, acme.ID, gatehouse.EventFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range page.Events {
		got = append(got, fmt.Sprintf("%s %s %s %v %s", ev.Type, ev.AccessPoint.Name, ev.Location.Name, ev.AccessPoint.ID == door.ID,
			deref(ev.ServerJobID)))
	}
	if want := []string{"REMOTE_UNLOCK Front gate HQ true job-2", "ACCESS_DENIED Door HQ true job-1"}; !slices.Equal(got, want) {
		t.Errorf("Acme's events (February's detached): %q, want %q", got, want)
	}
	// An event of job-2 after the migration takes the job's key, and a
	// search for the job finds both of its events by that key; Globex,
	// which has no such job, none.
	if res, err := db.IngestEvents(ctx, acme.ID, []gatehouse.NewEvent{{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted,
		AccessPointID: door.ID, OccurredAt: now, ServerJobID: new("job-2")}}); err != nil || res.Accepted != 1 {
		t.Fatalf("an event of job-2 after the migration: %+v, %v", res, err)
	}
	for org, want := range map[gatehouse.Organization]int{acme: 2, globex: 0} {
		page, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 10, Q: "job-2"})
		if err != nil || len(page.Events) != want {
			t.Errorf("%s's events of job-2: %d (%v), want %d", org.Name, len(page.Events), err, want)
		}
	}
	// February, attached again, takes the index of jobs; the months keep
	// their marks of a rebuild.
	if err := db.ExecForTest(ctx, "ALTER TABLE events ATTACH PARTITION events_2026_02 FOR VALUES FROM ('2026-02-01') TO ('2026-03-01')"); err != nil {
		t.Fatal(err)
	}
	indexed, err := db.StringsForTest(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_class x ON x.oid = i.indexrelid WHERE x.relname ~ '^events_2026_0[1-3]_.*server_job_id' ORDER BY 1`)
	if want := []string{"events_2026_01", "events_2026_02", "events_2026_03"}; err != nil || !slices.Equal(indexed, want) {
		t.Errorf("months with an index of jobs: %q (%v), want %q", indexed, err, want)
	}
	if marked, err := db.StringsForTest(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relname LIKE 'events_2026_%' AND obj_description(c.oid, 'pg_class') IS NOT NULL ORDER BY 1`); err != nil || !slices.Equal(marked, markedBefore) {
		t.Errorf("months marked as rebuilt: %q (%v), want %q", marked, err, markedBefore)
	}
	// The identity goes on after the last seq.
	if !p.ingest(t, acme, door, gatehouse.NewID(), now) {
		t.Fatal("an event after the migration was not stored")
	}
	if seq, err := db.FloatForTest(ctx, "SELECT max(seq) FROM events"); err != nil || seq <= lastSeq {
		t.Errorf("the new event's seq %v, want past %v (%v)", seq, lastSeq, err)
	}
}

// TestRetriedCommandRemembersItsOwnKeys: a remote unlock takes the keys
// of its place and server job in its transaction; when that transaction
// is rolled back and tried again (here: its month's partition was
// dropped behind the instance's back) after ingests took the same key
// numbers for other values, the keys the first attempt took and lost are
// not remembered. They would make the instance read another door's and
// job's events as this door's and job's, and store this door's as
// another's.
func TestRetriedCommandRemembersItsOwnKeys(t *testing.T) {
	ctx := context.Background()
	db := open(t, testenv.PostgresDSN(t))
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	p := &partitioned{db: db, now: now}
	org, back := p.place(t, "Acme")
	var doors []gatehouse.AccessPoint
	for _, name := range []string{"Front", "Side"} {
		door, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, back.LocationID, name)
		if err != nil {
			t.Fatal(err)
		}
		doors = append(doors, door)
	}
	front, side := doors[0], doors[1]
	// The instance has seen the command's month made; the month is gone
	// (another instance's retention), and making it again is slow: the
	// command's first attempt fails and waits, while an ingest takes the
	// next keys for the side door and another job.
	issued := time.Date(2031, 5, 1, 12, 0, 0, 0, time.UTC)
	p.ingest(t, org, back, gatehouse.NewID(), issued)
	if err := db.ExecForTest(ctx, `DROP TABLE events_2031_05;
		ALTER FUNCTION events_add_months(timestamptz[]) RENAME TO events_add_months_now;
		CREATE FUNCTION events_add_months(instants timestamptz[]) RETURNS integer LANGUAGE plpgsql AS $$
		BEGIN
			PERFORM pg_sleep(1);
			RETURN events_add_months_now(instants);
		END $$`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.CreateCommand(ctx, gatehouse.SystemEntry(gatehouse.AuditCommandIssued), gatehouse.IssuedCommand{Command: gatehouse.Command{
			ID: gatehouse.NewID(), OrgID: org.ID, Type: gatehouse.CommandUnlock, Status: gatehouse.CommandPending,
			Scope: gatehouse.ScopeServer, ServerJobID: new("job-x"),
			AccessPoint: gatehouse.NamedRef{ID: front.ID, Name: front.Name}, Location: gatehouse.NamedRef{ID: back.LocationID, Name: "HQ"},
			DurationSeconds: 30, IssuedAt: gatehouse.Time(issued), ExpiresAt: gatehouse.Time(issued.Add(time.Minute)), StatusAt: gatehouse.Time(issued),
		}})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond) // the first attempt took its keys and failed
	if res, err := db.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted,
		AccessPointID: side.ID, OccurredAt: now, ServerJobID: new("job-y")}}); err != nil || res.Accepted != 1 {
		t.Fatalf("the side door's event: %+v, %v", res, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	page, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := map[gatehouse.EventType]string{gatehouse.EventRemoteUnlock: "Front job-x", gatehouse.EventAccessGranted: "Side job-y"}
	for _, ev := range page.Events {
		if w, ok := want[ev.Type]; ok && ev.AccessPoint.Name+" "+deref(ev.ServerJobID) != w {
			t.Errorf("the %s event reads as at %s, job %s; want %s", ev.Type, ev.AccessPoint.Name, deref(ev.ServerJobID), w)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
