package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// storeGroups are the groupings a store counts; day and hour of the week
// are folded from hours by the service.
var storeGroups = []gatehouse.InsightGroup{gatehouse.GroupAccessPoint, gatehouse.GroupLocation,
	gatehouse.GroupReason, gatehouse.GroupType, gatehouse.GroupPlatformUser, gatehouse.GroupHour}

// wantInsights is the reference count: the oracle's filter over the
// world's events, grouped in plain Go.
func (w oracleWorld) wantInsights(flt gatehouse.EventFilter, by gatehouse.InsightGroup) []gatehouse.InsightCount {
	groups := map[string]*gatehouse.InsightCount{}
	for _, e := range w.events {
		if !w.matches(e, flt) {
			continue
		}
		var c gatehouse.InsightCount
		switch by {
		case gatehouse.GroupAccessPoint:
			c.Key = e.AccessPointID.String()
		case gatehouse.GroupLocation:
			c.Key = w.locOf[e.AccessPointID].ID.String()
		case gatehouse.GroupReason:
			if e.Reason == nil {
				continue
			}
			c.Key = *e.Reason
		case gatehouse.GroupType:
			c.Key = string(e.Type)
		case gatehouse.GroupPlatformUser:
			if e.PlatformUserID == nil {
				continue
			}
			c.Key = *e.PlatformUserID
		case gatehouse.GroupHour:
			c.Hour = e.OccurredAt.UTC().Truncate(time.Hour)
			c.Key = c.Hour.Format(time.RFC3339)
		}
		g := groups[c.Key]
		if g == nil {
			g = &c
			groups[c.Key] = g
		}
		g.Add(e.Type, 1)
	}
	var out []gatehouse.InsightCount
	for _, g := range groups {
		out = append(out, *g)
	}
	if by == gatehouse.GroupHour {
		slices.SortFunc(out, func(a, b gatehouse.InsightCount) int { return a.Hour.Compare(b.Hour) })
		for i := range out {
			out[i].Key = ""
		}
	} else {
		gatehouse.SortInsights(out)
	}
	return out
}

// checkInsights compares the store's insights of flt (without q and id,
// which insights do not take; over a window, which they need) by every
// grouping with the reference, all groups and the first two.
func checkInsights(t *testing.T, f *fixture, w oracleWorld, flt gatehouse.EventFilter, rng *rand.Rand) {
	t.Helper()
	flt.Q, flt.ID, flt.After, flt.Limit = "", nil, nil, 0
	if flt.From == nil || rng.IntN(2) == 0 {
		// Whole hours, days or months (the rollups alone), or not (their
		// edges too), up to a hundred days back.
		from := f.now.Add(-time.Duration(rng.IntN(100*24*60)) * time.Minute)
		switch rng.IntN(4) {
		case 0:
			from = from.Truncate(time.Hour)
		case 1:
			from = from.Truncate(24 * time.Hour)
		case 2:
			from = time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
		}
		flt.From = &from
	}
	if flt.To == nil || rng.IntN(2) == 0 {
		to := f.now.Add(time.Duration(rng.IntN(90)-30) * time.Minute)
		if rng.IntN(2) == 0 {
			to = to.Truncate(time.Hour)
		}
		flt.To = &to
	}
	if flt.To.Before(*flt.From) {
		flt.From, flt.To = flt.To, flt.From
	}
	for _, by := range storeGroups {
		want := w.wantInsights(flt, by)
		got, err := f.s.CountInsights(ctx, w.org.ID, flt, by, 0)
		must(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("insights of %s from %v to %v by %s (-want +got):\n%s", describe(flt), flt.From, flt.To, by, diff)
		}
		if by == gatehouse.GroupHour {
			continue
		}
		got, err = f.s.CountInsights(ctx, w.org.ID, flt, by, 2)
		must(t, err)
		if diff := cmp.Diff(want[:min(2, len(want))], got); diff != "" {
			t.Fatalf("the first two insights of %s by %s (-want +got):\n%s", describe(flt), by, diff)
		}
	}
}

// testInsights: the rollups count every event stored, exactly, after
// ingest over days, duplicates, a bulk load, erasure and retention, for
// every grouping and filter (the oracle's random filters), and never
// another organization's.
func testInsights(t *testing.T, f *fixture) {
	rng := rand.New(rand.NewPCG(31, 4))
	w := newOracleWorld(rng, f, "Insights")
	other := newOracleWorld(rng, f, "Other")
	// Events over three days and, fewer, three months: the hours, days
	// and months of a real log.
	var more []gatehouse.NewEvent
	for i := range 200 {
		ap := w.aps[rng.IntN(len(w.aps))]
		ago := rng.IntN(3 * 24 * 60)
		if i%4 == 0 {
			ago = rng.IntN(90 * 24 * 60)
		}
		ev := f.attempt(ap, gatehouse.EventTypes[rng.IntN(3)], ago)
		switch ev.Type {
		case gatehouse.EventAccessDenied:
			ev.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "BANNED"}[rng.IntN(2)])
		case gatehouse.EventRemoteUnlock:
			ev.Allowed, ev.Scope = nil, ptr(gatehouse.ScopePlayer)
		}
		if i%5 > 0 || ev.Scope != nil {
			ev.PlatformUserID = ptr(fmt.Sprint("p", rng.IntN(6)))
		}
		more = append(more, ev)
	}
	if bulk, ok := f.s.(gatehouse.BulkIngester); ok {
		b, err := bulk.BeginBulkIngest(ctx, w.org.ID)
		must(t, err)
		_, err = b.IngestEvents(ctx, more[:75])
		must(t, err)
		_, err = b.IngestEvents(ctx, more[:80]) // 75 duplicates in one transaction
		must(t, err)
		must(t, b.Commit())
		for _, e := range more[:80] {
			w.shown[e.ID] = shownNames{w.apName(e.AccessPointID), w.locOf[e.AccessPointID].Name}
		}
		w.record(f, more[80:])
	} else {
		w.record(f, more)
	}
	w.events = append(w.events, more...)
	check := func(stage string) {
		t.Helper()
		for range 25 {
			flt, _ := randomFilter(rng, f, w, []oracleWorld{w, other})
			checkInsights(t, f, w, flt, rng)
		}
		from, to := f.now.AddDate(0, 0, -100), f.now.Add(time.Hour)
		whole := gatehouse.EventFilter{From: &from, To: &to}
		got, err := f.s.CountInsights(ctx, w.org.ID, whole, gatehouse.GroupPlatformUser, 0)
		must(t, err)
		if diff := cmp.Diff(w.wantInsights(whole, gatehouse.GroupPlatformUser), got); diff != "" {
			t.Fatalf("%s: the players of 100 days (-want +got):\n%s", stage, diff)
		}
		got, err = f.s.CountInsights(ctx, w.org.ID, whole, gatehouse.GroupType, 0)
		must(t, err)
		total := 0
		for _, c := range got {
			total += c.Total()
		}
		if total != len(w.events) {
			t.Fatalf("%s: the insights count %d events, the store holds %d", stage, total, len(w.events))
		}
	}
	check("after ingest")
	// The player rollup is folded behind ingest: exact before, between
	// and after folds.
	// Each fold a minute later: an organization just folded waits.
	rolls := 0
	roll := func() {
		t.Helper()
		rolls++
		must(t, f.s.RollInsights(ctx, f.now.Add(time.Duration(rolls)*time.Minute)))
	}
	roll()
	check("after ingest, rolled up")

	// Duplicates count nothing, however they come.
	w.record(f, w.events[:40])
	res := f.ingest(w.org.ID, w.events[40:60]...)
	if res.Duplicates != 20 {
		t.Fatalf("re-ingested 20 events, %d duplicates", res.Duplicates)
	}
	check("after duplicates")

	// Erasure of one player, some of whose events are folded and some
	// not yet.
	victim := "p3"
	late := f.attempt(w.aps[0], gatehouse.EventAccessDenied, 5)
	late.Reason, late.PlatformUserID = ptr("BANNED"), ptr(victim)
	w.record(f, []gatehouse.NewEvent{late})
	w.events = append(w.events, late)
	if n, _ := f.erasePlayer(w.org.ID, victim, 7); n == 0 {
		t.Fatal("the random data gave the victim no events")
	}
	w.events = slices.DeleteFunc(w.events, func(e gatehouse.NewEvent) bool {
		return e.PlatformUserID != nil && *e.PlatformUserID == victim
	})
	check("after erasure")
	roll()
	check("after erasure, rolled up")

	// Retention of everything older than a day and a half, in batches,
	// some of it folded and some not: the rollup loses only what it holds
	// (a row that holds a newer event of the same month too keeps it).
	cutoff := f.now.Add(-36 * time.Hour)
	kept := func(minutesAgo int) gatehouse.NewEvent {
		ev := f.attempt(w.aps[0], gatehouse.EventAccessDenied, minutesAgo)
		ev.Reason, ev.PlatformUserID = ptr("BANNED"), ptr("p5")
		return ev
	}
	folded := []gatehouse.NewEvent{kept(37 * 60), kept(35 * 60)}
	w.record(f, folded)
	roll()
	pending := kept(37*60 + 1)
	w.record(f, []gatehouse.NewEvent{pending})
	w.events = append(w.events, append(folded, pending)...)
	for {
		n, err := f.s.DeleteEventsBefore(ctx, w.org.ID, cutoff, 13)
		must(t, err)
		if n < 13 {
			break
		}
	}
	w.events = slices.DeleteFunc(w.events, func(e gatehouse.NewEvent) bool { return e.OccurredAt.Before(cutoff) })
	check("after retention")
	roll()
	check("after retention, rolled up")

	// The other organization's counts never moved.
	flt := gatehouse.EventFilter{From: ptr(f.now.AddDate(0, 0, -1)), To: ptr(f.now.Add(time.Hour))}
	for _, by := range storeGroups {
		got, err := f.s.CountInsights(ctx, other.org.ID, flt, by, 0)
		must(t, err)
		if diff := cmp.Diff(other.wantInsights(flt, by), got); diff != "" {
			t.Fatalf("the other organization's insights by %s (-want +got):\n%s", by, diff)
		}
	}
	// An unknown organization has none; a day's grouping is not a store's.
	if got, err := f.s.CountInsights(ctx, uuid.New(), flt, gatehouse.GroupType, 0); err != nil || len(got) != 0 {
		t.Errorf("an unknown organization's insights: %v, %v", got, err)
	}
	_, err := f.s.CountInsights(ctx, w.org.ID, flt, gatehouse.GroupDay, 0)
	wantErr(t, "by day", err, gatehouse.ErrInvalid)
}

// testInsightsCountUnlocks: a remote unlock the service issues is stored
// with its REMOTE_UNLOCK event by CreateCommand, a path of its own: the
// rollups count it, by player too.
func testInsightsCountUnlocks(t *testing.T, f *fixture) {
	p := f.unlockPlace("Acme")
	f.create(f.command(p, gatehouse.ScopeUniverse))
	f.create(f.command(p, gatehouse.ScopePlayer, "job-1"))
	from, to := f.now.Add(-time.Hour), f.now.Add(time.Hour)
	flt := gatehouse.EventFilter{From: &from, To: &to}
	got, err := f.s.CountInsights(ctx, p.org.ID, flt, gatehouse.GroupAccessPoint, 0)
	must(t, err)
	if len(got) != 1 || got[0].Key != p.door.ID.String() || got[0].RemoteUnlocks != 2 {
		t.Errorf("unlocks by door = %+v", got)
	}
	// A window of whole days reads the players' rollup alone.
	from, to = f.now.Truncate(24*time.Hour), f.now.Truncate(24*time.Hour).Add(24*time.Hour)
	got, err = f.s.CountInsights(ctx, p.org.ID, flt, gatehouse.GroupPlatformUser, 0)
	must(t, err)
	if len(got) != 1 || got[0].Key != "7" || got[0].RemoteUnlocks != 1 {
		t.Errorf("unlocks by player = %+v", got)
	}
}
