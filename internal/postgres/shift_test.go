package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/google/uuid"
)

// shift is the offset the tests give an organization, as a move would
// (migration 0031): far more transactions than a test makes.
const shift = 10_000_000

// TestShiftedPositions: once an organization has an xid_shift, every
// position written for it is past every one before by at least the
// shift, and every reader (the feed, its count, command and lockdown
// changes, the player rollup's fold, the webhook and alert heads) goes on
// from a position handed out before, each new row exactly once and
// nothing old again. A cursor past the shifted next transaction is
// still refused. Another organization of the database keeps this
// database's transaction ids, and the organization's own ceiling for
// cursors of the first form replaces the database's.
func TestShiftedPositions(t *testing.T) {
	ctx := context.Background()
	d := newDoor(t)
	annex, err := d.db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), d.org.ID, "Annex")
	must(t, err)
	other, err := d.db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Beta")
	must(t, err)
	otherLoc, err := d.db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), other.ID, "HQ")
	must(t, err)
	otherDoor, err := d.db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), other.ID, otherLoc.ID, "Gate")
	must(t, err)

	// Before the shift: everything is read to the end.
	want := storeRows(t, d, annex)
	otherWant := ids(mustIngest(t, d.db, other.ID, attempts(otherDoor, "b1", 1)...))
	var old positions
	old.feed = followFeed(t, d.db, d.org.ID, old.feed, want.events).end
	old.commands = followCommands(t, d.db, d.org.ID, old.commands, want.commands).end
	old.lockdowns = followLockdowns(t, d.db, d.org.ID, old.lockdowns, want.lockdowns).end
	otherOld := followFeed(t, d.db, other.ID, gatehouse.FeedPosition{}, otherWant).end
	rollUntil(t, d.db, d.org.ID, 3)

	must(t, d.db.ExecForTest(ctx, "UPDATE organizations SET xid_shift = $2 WHERE id = $1", d.org.ID, shift))

	// (a, b) After it: the new rows, and only they, follow the old
	// positions, past them by more than the shift.
	want = storeRows(t, d, annex)
	otherWant = ids(mustIngest(t, d.db, other.ID, attempts(otherDoor, "b1", 1)...))
	feed := followFeed(t, d.db, d.org.ID, old.feed, want.events)
	commands := followCommands(t, d.db, d.org.ID, old.commands, want.commands)
	lockdowns := followLockdowns(t, d.db, d.org.ID, old.lockdowns, want.lockdowns)
	for _, f := range []struct {
		what string
		old  gatehouse.FeedPosition
		read followed
	}{{"event", old.feed, feed}, {"command change", old.commands, commands}, {"lockdown change", old.lockdowns, lockdowns}} {
		for _, p := range f.read.positions {
			if p.Txn <= f.old.Txn+shift {
				t.Errorf("a new %s at %+v: not past the last before the shift, %+v, by the shift", f.what, p, f.old)
			}
		}
	}
	for _, c := range []struct {
		after gatehouse.FeedPosition
		want  int64
	}{{old.feed, int64(len(want.events))}, {gatehouse.FeedPosition{}, 2 * int64(len(want.events))}, {feed.end, 0}} {
		if n, err := d.db.CountFeed(ctx, d.org.ID, gatehouse.EventFilter{}, c.after); err != nil || n != c.want {
			t.Errorf("CountFeed after %+v: %d, %v; want %d", c.after, n, err, c.want)
		}
	}

	// (c) A cursor is checked against the shifted next transaction.
	next, err := d.db.FloatForTest(ctx, "SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint + $1)::float8", shift)
	must(t, err)
	below, past := gatehouse.FeedPosition{Txn: uint64(next) - 1}, gatehouse.FeedPosition{Txn: uint64(next) + 1<<30}
	if _, err := d.db.ReadFeed(ctx, d.org.ID, gatehouse.EventFilter{Limit: 10}, below); err != nil {
		t.Errorf("ReadFeed just below the shifted next transaction: %v", err)
	}
	if _, err := d.db.CountFeed(ctx, d.org.ID, gatehouse.EventFilter{}, below); err != nil {
		t.Errorf("CountFeed just below the shifted next transaction: %v", err)
	}
	if _, err := d.db.ReadFeed(ctx, d.org.ID, gatehouse.EventFilter{Limit: 10}, past); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("ReadFeed past the shifted next transaction: %v, want ErrInvalid", err)
	}
	if _, err := d.db.CountFeed(ctx, d.org.ID, gatehouse.EventFilter{}, past); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("CountFeed past the shifted next transaction: %v, want ErrInvalid", err)
	}

	// (d) The other organization's positions are this database's own.
	otherNew := followFeed(t, d.db, other.ID, otherOld, otherWant)
	xmax, err := d.db.FloatForTest(ctx, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::float8")
	must(t, err)
	if p := otherNew.positions[0]; float64(p.Txn) >= xmax {
		t.Errorf("another organization's event at %+v: shifted (this database's next transaction is %v)", p, xmax)
	}

	// (e) The organization's own ceiling for cursors of the first form,
	// when it has one, replaces the database's.
	table, err := d.db.FloatForTest(ctx, "SELECT xid::text::float8 FROM feed_cursor_ceiling")
	must(t, err)
	checkCeiling(t, d.db, d.org.ID, uint64(table))
	must(t, d.db.ExecForTest(ctx, "UPDATE organizations SET cursor_ceiling = '123456789' WHERE id = $1", d.org.ID))
	checkCeiling(t, d.db, d.org.ID, 123456789)
	checkCeiling(t, d.db, other.ID, uint64(table))

	// (f) The player rollup folds the new events too, to a shifted
	// position.
	rollUntil(t, d.db, d.org.ID, 6)
	folded, err := d.db.FloatForTest(ctx, `SELECT c.txn::text::float8 FROM insight_player_cursors c
		JOIN organizations o ON o.seq = c.org WHERE o.id = $1`, d.org.ID)
	must(t, err)
	if folded < shift {
		t.Errorf("the player rollup's position %v: not shifted", folded)
	}

	// The heads an endpoint and a rule start at are past every new row.
	w, err := d.db.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
		gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: d.org.ID, URL: "https://hooks.example/a",
			Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}, CreatedAt: gatehouse.Time(time.Now())}, "", []byte("sealed"))
	must(t, err)
	r, err := d.db.CreateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleCreated), gatehouse.AlertRule{
		ID: gatehouse.NewID(), OrgID: d.org.ID, Name: "denied", CooldownSeconds: 300,
		Condition: gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, GroupBy: gatehouse.AlertByPlatformUser, Threshold: 5,
			WindowSeconds: 60, Filters: map[string]string{"type": "ACCESS_DENIED"}},
		Destination: gatehouse.AlertDestination{Format: gatehouse.AlertDiscord, URL: "https://discord.example/denied"},
		CreatedAt:   gatehouse.Time(time.Now()), UpdatedAt: gatehouse.Time(time.Now())}, []byte("sealed"))
	must(t, err)
	for _, h := range []struct {
		what       string
		head, last gatehouse.FeedPosition
	}{{"webhook events", w.EventsAfter, feed.end}, {"webhook commands", w.CommandsAfter, commands.end},
		{"webhook lockdowns", w.LockdownsAfter, lockdowns.end}, {"alert rule events", r.EventsAfter, feed.end}} {
		if !h.last.Less(h.head) {
			t.Errorf("the %s head %+v: not past the last new row, %+v", h.what, h.head, h.last)
		}
	}
}

// positions are a reader's positions in each of an organization's feeds.
type positions struct{ feed, commands, lockdowns gatehouse.FeedPosition }

// stored are the rows of one round of storeRows, as each feed names
// them.
type stored struct{ events, commands, lockdowns []string }

// storeRows stores a round of rows of each feed of d's organization:
// three events of player p1, two commands (their REMOTE_UNLOCK events),
// the second cancelled (a change of the command, as its issue is one),
// and a lockdown of annex, which no command covers, started
// then released.
func storeRows(t *testing.T, d door, annex gatehouse.Location) stored {
	t.Helper()
	ctx := context.Background()
	s := stored{events: ids(mustIngest(t, d.db, d.org.ID, attempts(d.ap, "p1", 3)...))}
	pending, cancelled := d.issue(t, time.Now().UTC()), d.issue(t, time.Now().UTC())
	_, err := d.db.CancelCommand(ctx, gatehouse.SystemEntry(gatehouse.AuditCommandCancelled), d.org.ID, cancelled.ID, time.Now().UTC())
	must(t, err)
	s.events = append(s.events, pending.ID.String(), cancelled.ID.String())
	// A command is in its feed at its last change.
	s.commands = []string{changeOf(pending.ID, gatehouse.CommandPending), changeOf(cancelled.ID, gatehouse.CommandCancelled)}
	l := gatehouse.Lockdown{ID: gatehouse.NewID(), OrgID: d.org.ID, Scope: gatehouse.LockdownLocation, Reason: "Drill",
		StartedAt: gatehouse.Time(time.Now().UTC()), Active: true,
		LocationID: &annex.ID, Location: &gatehouse.NamedRef{ID: annex.ID, Name: annex.Name}}
	_, err = d.db.CreateLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownStarted), gatehouse.NewLockdown{Lockdown: l, RequestedByUser: &d.user.ID})
	must(t, err)
	_, released, err := d.db.ReleaseLockdown(ctx, gatehouse.SystemEntry(gatehouse.AuditLockdownReleased), d.org.ID, l.ID,
		gatehouse.LockdownRelease{At: time.Now().UTC()})
	must(t, err)
	if !released {
		t.Fatal("the lockdown was not released")
	}
	s.lockdowns = []string{lockdownOf(l.ID, false), lockdownOf(l.ID, true)}
	return s
}

func changeOf(id uuid.UUID, s gatehouse.CommandStatus) string { return id.String() + " " + string(s) }

func lockdownOf(id uuid.UUID, released bool) string {
	return fmt.Sprintf("%s released=%t", id, released)
}

// attempts are n granted attempts at ap by player.
func attempts(ap gatehouse.AccessPoint, player string, n int) []gatehouse.NewEvent {
	granted := gatehouse.Granted
	evs := make([]gatehouse.NewEvent, n)
	for i := range evs {
		evs[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			AccessPointID: ap.ID, PlatformUserID: &player, OccurredAt: time.Now().UTC().Add(-time.Duration(i) * time.Second)}
	}
	return evs
}

func mustIngest(t *testing.T, db *postgres.DB, org uuid.UUID, evs ...gatehouse.NewEvent) gatehouse.IngestResult {
	t.Helper()
	res, err := db.IngestEvents(context.Background(), org, evs)
	must(t, err)
	if res.Accepted != len(evs) {
		t.Fatalf("ingest: %d of %d events accepted", res.Accepted, len(evs))
	}
	return res
}

// ids names the events an ingest stored.
func ids(res gatehouse.IngestResult) []string {
	var out []string
	for _, id := range res.IDs {
		out = append(out, id.String())
	}
	return out
}

// followed is what a reader read of a feed: its rows, named as stored
// names them, their positions, and the position it ended at.
type followed struct {
	rows      []string
	positions []gatehouse.FeedPosition
	end       gatehouse.FeedPosition
}

// follow reads a feed from after, two rows a page, until it has read as
// many rows as want names (the horizon waits for every transaction of the
// cluster, other tests' too), and checks that it read want, each once,
// in increasing positions past after, and that nothing follows.
func follow(t *testing.T, what string, after gatehouse.FeedPosition, want []string,
	read func(after gatehouse.FeedPosition) ([]string, []gatehouse.FeedPosition, error)) followed {
	t.Helper()
	f := followed{end: after}
	for deadline := time.Now().Add(20 * time.Second); len(f.rows) < len(want); time.Sleep(20 * time.Millisecond) {
		rows, ps, err := read(f.end)
		must(t, err)
		for _, p := range ps {
			if !f.end.Less(p) {
				t.Fatalf("%s: position %+v after %+v", what, p, f.end)
			}
			f.end = p
		}
		f.rows, f.positions = append(f.rows, rows...), append(f.positions, ps...)
		if len(rows) == 0 && time.Now().After(deadline) {
			t.Fatalf("%s after %+v: %d of %d rows after 20 s", what, after, len(f.rows), len(want))
		}
	}
	if rows, _, err := read(f.end); err != nil || len(rows) != 0 {
		t.Errorf("%s: %d more rows past the end (%v)", what, len(rows), err)
	}
	if got, w := slices.Sorted(slices.Values(f.rows)), slices.Sorted(slices.Values(want)); !slices.Equal(got, w) {
		t.Errorf("%s after %+v: read %v, want %v", what, after, got, w)
	}
	return f
}

func followFeed(t *testing.T, db *postgres.DB, org uuid.UUID, after gatehouse.FeedPosition, want []string) followed {
	t.Helper()
	return follow(t, "the feed", after, want, func(after gatehouse.FeedPosition) ([]string, []gatehouse.FeedPosition, error) {
		page, err := db.ReadFeed(context.Background(), org, gatehouse.EventFilter{Limit: 2}, after)
		var rows []string
		for _, ev := range page.Events {
			rows = append(rows, ev.ID.String())
		}
		return rows, page.Positions, err
	})
}

func followCommands(t *testing.T, db *postgres.DB, org uuid.UUID, after gatehouse.FeedPosition, want []string) followed {
	t.Helper()
	return follow(t, "the command changes", after, want, func(after gatehouse.FeedPosition) ([]string, []gatehouse.FeedPosition, error) {
		changes, _, err := db.ReadCommandChanges(context.Background(), org, after, 2)
		rows, ps := rowsOf(changes, func(c gatehouse.CommandChange) (string, gatehouse.FeedPosition) {
			return changeOf(c.ID, c.Status), c.Position
		})
		return rows, ps, err
	})
}

func followLockdowns(t *testing.T, db *postgres.DB, org uuid.UUID, after gatehouse.FeedPosition, want []string) followed {
	t.Helper()
	return follow(t, "the lockdown changes", after, want, func(after gatehouse.FeedPosition) ([]string, []gatehouse.FeedPosition, error) {
		changes, err := db.ReadLockdownChanges(context.Background(), org, after, 2)
		rows, ps := rowsOf(changes, func(c gatehouse.LockdownChange) (string, gatehouse.FeedPosition) {
			return lockdownOf(c.ID, c.Released), c.Position
		})
		return rows, ps, err
	})
}

// rollUntil rolls the player rollup, at a later instant each time, until
// the organization's rows count n events.
func rollUntil(t *testing.T, db *postgres.DB, org uuid.UUID, n float64) {
	t.Helper()
	ctx := context.Background()
	at := time.Now()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		at = at.Add(time.Minute)
		must(t, db.RollInsights(ctx, at))
		got, err := db.FloatForTest(ctx, `SELECT coalesce(sum(m.n), 0)::float8 FROM insight_player_months m
			JOIN organizations o ON o.seq = m.org WHERE o.id = $1`, org)
		must(t, err)
		if got == n {
			return
		}
		if got > n || time.Now().After(deadline) {
			t.Fatalf("the player rollup counts %v events, want %v", got, n)
		}
	}
}

func checkCeiling(t *testing.T, db *postgres.DB, org uuid.UUID, want uint64) {
	t.Helper()
	got, err := db.FeedCursorCeiling(context.Background(), org)
	if err != nil || got != (gatehouse.FeedPosition{Txn: want}) {
		t.Errorf("FeedCursorCeiling: %+v, %v; want %d", got, err, want)
	}
}

// rowsOf is each change's row and position, as follow reads them.
func rowsOf[C any](changes []C, row func(C) (string, gatehouse.FeedPosition)) (rows []string, ps []gatehouse.FeedPosition) {
	for _, c := range changes {
		r, p := row(c)
		rows, ps = append(rows, r), append(ps, p)
	}
	return rows, ps
}
