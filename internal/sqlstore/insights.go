package sqlstore

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Buckets of the insight rollups (migration 0021 of each store), each
// shaped for the questions it answers:
//   - insight_hour_totals: by UTC hour, the three outcomes in columns:
//     one row an hour for hour, day and hour of the week filtered by type
//     or outcome at most (a year is 8,784 rows);
//   - insight_hours and insight_days: by UTC hour or day, type, reason
//     and scope, no door: hour, day and hour of the week (hours), type
//     and reason (days, hours at the ends) without a door or location
//     filter;
//   - insight_door_days and insight_door_months: by UTC day or month,
//     door, location, type, reason and scope: the groupings and filters
//     by door or location;
//   - insight_player_months: by UTC month, player, type, reason and
//     scope, no door: the ranking of players.
const (
	InsightHour = time.Hour
	InsightDay  = 24 * time.Hour
)

// MonthOf is the start of t's UTC month.
func MonthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// grain is a size of bucket: the start of the bucket of t, and of the
// next one.
type grain struct {
	floor func(time.Time) time.Time
	next  func(time.Time) time.Time
}

func fixed(d time.Duration) grain {
	return grain{func(t time.Time) time.Time { return t.Truncate(d) }, func(t time.Time) time.Time { return t.Add(d) }}
}

var (
	hourly  = fixed(InsightHour)
	daily   = fixed(InsightDay)
	monthly = grain{MonthOf, func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }}
)

// The tables an insight part reads, and their bucket columns.
const (
	TableEvents       = "events"
	TableHourTotals   = "insight_hour_totals"
	TableHours        = "insight_hours"
	TableDays         = "insight_days"
	TableDoorDays     = "insight_door_days"
	TableDoorMonths   = "insight_door_months"
	TablePlayerMonths = "insight_player_months"
	bucketOfHours     = "hour"
	bucketOfDays      = "day"
	bucketOfMonths    = "month"
	bucketOfEvents    = "occurred_at"
)

// InsightPart is one range [From, To) of a window and the table that
// counts it: a rollup for whole buckets, the events for the rest.
type InsightPart struct {
	Table    string
	Bucket   string // the table's time column
	From, To time.Time
	// Sign is 1 for a part whose counts add, -1 for one whose counts are
	// taken out: a bucket that reaches past the window's end, less what
	// lies beyond it, when that is shorter than what lies within.
	Sign int
}

// Rollup reports whether the part reads a rollup (a count per row)
// rather than the events (one per row).
func (p InsightPart) Rollup() bool { return p.Table != TableEvents }

// PlanInsights splits the window of f (From and To set) grouped by by
// into the parts a store reads, so that the answer is exact and reads
// the fewest rows:
//   - filtered to a player: that player's events through their index;
//   - by player or by time with a door or location filter, or a reach
//     (Within): that door's or those locations' events through their
//     index (the player and hour rollups keep no door): the cost follows
//     their events;
//   - by player: whole UTC months from insight_player_months, the rest
//     (at most half a month at each end, see split) from the events; the
//     store ranks them with [RankPlayers];
//   - by door or location, or with a door or location filter or a
//     reach: whole months from insight_door_months, whole days of the
//     months cut from insight_door_days, the rest (at most two partial
//     days) from the events;
//   - by type or reason: whole days from insight_days, whole hours of the
//     days cut from insight_hours, the rest from the events;
//   - by time (hour; the service folds hours into days and hours of the
//     week): whole hours from insight_hour_totals, or with a reason or
//     scope filter from insight_hours, the rest from the events.
func PlanInsights(f gatehouse.EventFilter, by gatehouse.InsightGroup) []InsightPart {
	from, to := *f.From, *f.To
	// A reach is a filter by location: only the door rollups keep one.
	byDoor := f.AccessPointID != nil || f.LocationID != nil || f.Within != nil
	switch {
	case f.PlatformUserID != nil, byDoor && (by == gatehouse.GroupPlatformUser || by == gatehouse.GroupHour):
		return []InsightPart{{TableEvents, bucketOfEvents, from, to, 1}}
	case by == gatehouse.GroupPlatformUser:
		return split(from, to, []InsightPart{{Table: TablePlayerMonths, Bucket: bucketOfMonths}}, []grain{monthly}, 1)
	case byDoor || by == gatehouse.GroupAccessPoint || by == gatehouse.GroupLocation:
		return split(from, to, []InsightPart{{Table: TableDoorMonths, Bucket: bucketOfMonths},
			{Table: TableDoorDays, Bucket: bucketOfDays}}, []grain{monthly, daily}, 1)
	case by != gatehouse.GroupHour:
		return split(from, to, []InsightPart{{Table: TableDays, Bucket: bucketOfDays}, {Table: TableHours, Bucket: bucketOfHours}},
			[]grain{daily, hourly}, 1)
	case f.Reason == nil && f.Scope == nil:
		return split(from, to, []InsightPart{{Table: TableHourTotals, Bucket: bucketOfHours}}, []grain{hourly}, 1)
	}
	return split(from, to, []InsightPart{{Table: TableHours, Bucket: bucketOfHours}}, []grain{hourly}, 1)
}

// split covers [from, to) with the buckets of the first level's grain,
// then what remains at each end with the next level's, and the rest with
// events. At each end it takes whichever is shorter: the part of a bucket
// within the window, added from the next level, or the whole bucket less
// the part beyond the window, taken out at the next level. A window that
// ends now thus reads the current month whole and takes out the days
// after today, which hold no events, instead of adding today's month day
// by day.
func split(from, to time.Time, levels []InsightPart, grains []grain, sign int) []InsightPart {
	if !from.Before(to) {
		return nil
	}
	if len(levels) == 0 {
		return []InsightPart{{TableEvents, bucketOfEvents, from, to, sign}}
	}
	g := grains[0]
	start, end := g.floor(from), g.floor(to)
	if start.Before(from) && from.Sub(start) >= g.next(start).Sub(from) {
		start = g.next(start)
	}
	if end.Before(to) && g.next(end).Sub(to) < to.Sub(end) {
		end = g.next(end)
	}
	if !start.Before(end) {
		return split(from, to, levels[1:], grains[1:], sign)
	}
	part := levels[0]
	part.From, part.To, part.Sign = start, end, sign
	var parts []InsightPart
	if start.Before(from) {
		parts = split(start, from, levels[1:], grains[1:], -sign)
	} else {
		parts = split(from, start, levels[1:], grains[1:], sign)
	}
	parts = append(parts, part)
	if to.Before(end) {
		return append(parts, split(to, end, levels[1:], grains[1:], -sign)...)
	}
	return append(parts, split(end, to, levels[1:], grains[1:], sign)...)
}

// TotalColumns are the columns of insight_hour_totals that count granted
// attempts, denials and remote unlocks under f's type and outcome
// filters, "0" for those f leaves out.
func TotalColumns(f gatehouse.EventFilter) (granted, denied, remoteUnlocks string) {
	in := func(t gatehouse.EventType, column string) string {
		if len(f.Types) > 0 && !slices.Contains(f.Types, t) || f.Allowed != nil && f.Allowed.Type() != t {
			return "0"
		}
		return column
	}
	return in(gatehouse.EventAccessGranted, "granted"), in(gatehouse.EventAccessDenied, "denied"),
		in(gatehouse.EventRemoteUnlock, "remote_unlocks")
}

// InsightOutcomes returns, for a part of an insight query grouped by by,
// the columns g, d and r of the events counted by n (an expression, "1"
// for events) granted, denied and remote unlocks, and the clause that
// groups the part by its key k. A part counts its rows by key itself (a
// rollup's in key order), so that the union adds a few rows a key; by
// player nearly every row is a key of its own, and the part leaves the
// grouping to the union's.
func InsightOutcomes(by gatehouse.InsightGroup) (outcomes func(n string) string, groupBy string) {
	agg, groupBy := "sum", " GROUP BY 1"
	if by == gatehouse.GroupPlatformUser {
		agg, groupBy = "", ""
	}
	return func(n string) string {
		return agg + "(CASE WHEN e.type = 'ACCESS_GRANTED' THEN " + n + " ELSE 0 END) AS g, " +
			agg + "(CASE WHEN e.type = 'ACCESS_DENIED' THEN " + n + " ELSE 0 END) AS d, " +
			agg + "(CASE WHEN e.type IN ('ACCESS_GRANTED', 'ACCESS_DENIED') THEN 0 ELSE " + n + " END) AS r"
	}, groupBy
}

// RollupFilter is f without what a rollup's query puts itself (the
// window) or cannot have (a player, q, an id, a position). It keeps the
// reach (Within), which PlanInsights reads from the door rollups only,
// as it does a location filter.
func RollupFilter(f gatehouse.EventFilter) gatehouse.EventFilter {
	return gatehouse.EventFilter{AccessPointID: f.AccessPointID, LocationID: f.LocationID, Types: f.Types,
		Allowed: f.Allowed, Reason: f.Reason, Scope: f.Scope, Within: f.Within}
}

// EventsFilter is f over a part of the events.
func EventsFilter(f gatehouse.EventFilter, p InsightPart) gatehouse.EventFilter {
	f.Q, f.ID, f.After = "", nil, nil
	f.From, f.To = &p.From, &p.To
	return f
}

// InsightColumn is the column of the rollups and of events that holds the
// key of a grouping (the hour is computed differently in each), and the
// condition an event must meet to be in a group ("" for none).
func InsightColumn(by gatehouse.InsightGroup) (column, eventCond string) {
	switch by {
	case gatehouse.GroupAccessPoint:
		return "access_point_id", ""
	case gatehouse.GroupLocation:
		return "location_id", ""
	case gatehouse.GroupReason:
		return "reason", "e.reason IS NOT NULL"
	case gatehouse.GroupType:
		return "type", ""
	case gatehouse.GroupPlatformUser:
		return "platform_user_id", "e.platform_user_id IS NOT NULL"
	}
	return "", ""
}

// InsightKey is one row of a rollup: the bucket's start and the event's
// keys, absent reason and scope as "", and zero what the table does not
// keep (the door and location of insight_hours and the player rollups, the
// player of the others).
type InsightKey struct {
	Start       time.Time
	AccessPoint uuid.UUID
	Location    uuid.UUID
	Type        string
	Reason      string
	Scope       string
	Player      string
}

// InsightDeltas are the counts a batch of stored events adds to the
// rollups kept at ingest (all but the player rollup, which is rolled up
// behind it: players.go), one per row: a store that counts in its own code rather than
// in a trigger writes each row once per batch, not once per event.
type InsightDeltas struct {
	Hours, Days, DoorDays, DoorMonths map[InsightKey]int
	// HourTotals counts by hour (Start) and type (Type).
	HourTotals map[InsightKey]int
}

// Add counts one stored event at its place.
func (d *InsightDeltas) Add(ev gatehouse.NewEvent, p Place) {
	if d.Hours == nil {
		d.Hours, d.Days, d.DoorDays, d.DoorMonths = map[InsightKey]int{}, map[InsightKey]int{}, map[InsightKey]int{}, map[InsightKey]int{}
		d.HourTotals = map[InsightKey]int{}
	}
	day, month := ev.OccurredAt.UTC().Truncate(InsightDay), MonthOf(ev.OccurredAt)
	k := InsightKey{Start: ev.OccurredAt.UTC().Truncate(InsightHour), Type: string(ev.Type)}
	if ev.Reason != nil {
		k.Reason = *ev.Reason
	}
	if ev.Scope != nil {
		k.Scope = string(*ev.Scope)
	}
	d.Hours[k]++
	d.HourTotals[InsightKey{Start: k.Start, Type: k.Type}]++
	k.Start = day
	d.Days[k]++
	k.AccessPoint, k.Location = ev.AccessPointID, p.LocationID
	k.Start = month
	d.DoorMonths[k]++
	k.Start = day
	d.DoorDays[k]++
}

// Sorted returns the rows of counts in key order, so that a store writes
// its B-tree in order.
func Sorted(counts map[InsightKey]int) []InsightKey {
	keys := make([]InsightKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b InsightKey) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.Player, b.Player),
			bytes.Compare(a.AccessPoint[:], b.AccessPoint[:]), bytes.Compare(a.Location[:], b.Location[:]),
			strings.Compare(a.Type, b.Type), strings.Compare(a.Reason, b.Reason), strings.Compare(a.Scope, b.Scope))
	})
	return keys
}
