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

// Buckets of the insight rollups: insight_hours counts by UTC hour,
// insight_player_days by player and UTC day.
const (
	InsightHour = time.Hour
	InsightDay  = 24 * time.Hour
)

// InsightPlan is how a store answers CountInsights exactly: the whole
// buckets of the window from a rollup, and the ends of the window that
// do not fill a bucket from the events themselves.
type InsightPlan struct {
	// Rollup says whether to read a rollup: ByPlayer's insight_player_days
	// when Grain is InsightDay, else insight_hours, from Lo to Hi.
	Rollup bool
	Grain  time.Duration
	Lo, Hi time.Time
	// Edges are the ranges [from, to) read from the events table: at most
	// a bucket less a millisecond each, or the whole window when a filter
	// no rollup keeps (a player) is set or the window fills no bucket.
	Edges [][2]time.Time
}

// PlanInsights plans f (From and To set) grouped by by. A filter on a
// player reads that player's events through their index: its cost follows
// one player's events, not the organization's.
func PlanInsights(f gatehouse.EventFilter, by gatehouse.InsightGroup) InsightPlan {
	from, to := *f.From, *f.To
	p := InsightPlan{Grain: InsightHour}
	if by == gatehouse.GroupPlatformUser {
		p.Grain = InsightDay
	}
	if f.PlatformUserID != nil {
		p.Edges = [][2]time.Time{{from, to}}
		return p
	}
	lo, hi := from.Truncate(p.Grain), to.Truncate(p.Grain)
	if lo.Before(from) {
		lo = lo.Add(p.Grain)
	}
	if !lo.Before(hi) {
		p.Edges = [][2]time.Time{{from, to}}
		return p
	}
	p.Rollup, p.Lo, p.Hi = true, lo, hi
	if from.Before(lo) {
		p.Edges = append(p.Edges, [2]time.Time{from, lo})
	}
	if hi.Before(to) {
		p.Edges = append(p.Edges, [2]time.Time{hi, to})
	}
	return p
}

// RollupFilter is f without what a rollup's query puts itself (the
// window) or cannot have (a player, q, an id, a position).
func RollupFilter(f gatehouse.EventFilter) gatehouse.EventFilter {
	return gatehouse.EventFilter{AccessPointID: f.AccessPointID, LocationID: f.LocationID, Types: f.Types,
		Allowed: f.Allowed, Reason: f.Reason, Scope: f.Scope}
}

// EdgeFilter is f over one edge of a plan.
func EdgeFilter(f gatehouse.EventFilter, edge [2]time.Time) gatehouse.EventFilter {
	f.Q, f.ID, f.After = "", nil, nil
	f.From, f.To = &edge[0], &edge[1]
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

// InsightKey is one row of insight_hours (Player empty) or of
// insight_player_days: the bucket's start and the event's keys, absent
// reason and scope as "".
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
// rollups, one per row: a store that counts in its own code rather than
// in a trigger writes each row once per batch, not once per event.
type InsightDeltas struct {
	Hours, Players map[InsightKey]int
}

// Add counts one stored event at its place.
func (d *InsightDeltas) Add(ev gatehouse.NewEvent, p Place) {
	if d.Hours == nil {
		d.Hours, d.Players = map[InsightKey]int{}, map[InsightKey]int{}
	}
	k := InsightKey{Start: ev.OccurredAt.UTC().Truncate(InsightHour), AccessPoint: ev.AccessPointID, Location: p.LocationID,
		Type: string(ev.Type)}
	if ev.Reason != nil {
		k.Reason = *ev.Reason
	}
	if ev.Scope != nil {
		k.Scope = string(*ev.Scope)
	}
	d.Hours[k]++
	if ev.PlatformUserID != nil {
		k.Start, k.Player = ev.OccurredAt.UTC().Truncate(InsightDay), *ev.PlatformUserID
		d.Players[k]++
	}
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
