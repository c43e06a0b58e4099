package sqlstore

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// The player rollup (insight_player_months, migration 0025 of each store)
// is kept behind ingest: a roller folds the events after its position
// into it, in batches of up to RollBatch events, so that a player who
// passes many doors costs one row a batch of the roller rather than one a
// batch of ingest. A ranking reads the rollup and the events after the
// position in one snapshot ([PlayerReader]), so it is exact whatever the
// roller's lag.
const RollBatch = 50_000

// Outcomes are a player's granted attempts, denials and remote unlocks.
type Outcomes [3]int

// Add counts n events of type t.
func (o *Outcomes) Add(t string, n int) {
	switch gatehouse.EventType(t) {
	case gatehouse.EventAccessGranted:
		o[0] += n
	case gatehouse.EventAccessDenied:
		o[1] += n
	default:
		o[2] += n
	}
}

// Total is the number of events counted.
func (o Outcomes) Total() int { return o[0] + o[1] + o[2] }

// PlayerList is one list of the player rollup: the players of one month
// and kind of event (type, reason and scope), or of one month's totals
// (type, reason and scope ""). A player has at most one row in it.
type PlayerList struct {
	Month               time.Time
	Type, Reason, Scope string
}

// PlayerReader reads, in one snapshot, what a ranking of players over a
// window needs ([PlanInsights]'s parts for [gatehouse.GroupPlatformUser]).
type PlayerReader interface {
	// Events counts by player, signed, the parts read from the events and
	// the events of the rollup parts that the roller has not folded yet.
	Events(ctx context.Context) (map[string]Outcomes, error)
	// Lists are the rollup's lists of the rollup parts that the filter
	// keeps: each month and each kind of event counted in it, or each
	// month's totals when the filter keeps every kind ([TotalLists]).
	Lists(ctx context.Context) ([]PlayerList, error)
	// TopLevel is the highest level of a player in any of the lists, 0
	// when none has one.
	TopLevel(ctx context.Context, lists []PlayerList) (int, error)
	// Level returns the players at level k of any of the lists: those
	// whose count there reached 2^k since it was last zero.
	Level(ctx context.Context, lists []PlayerList, k int) ([]string, error)
	// Rolled counts by player what the rollup parts hold of players, or of
	// every player when players is nil.
	Rolled(ctx context.Context, players []string) (map[string]Outcomes, error)
}

// RollupParts are the parts of plan read from a rollup.
func RollupParts(plan []InsightPart) []InsightPart {
	var parts []InsightPart
	for _, p := range plan {
		if p.Rollup() {
			parts = append(parts, p)
		}
	}
	return parts
}

// TotalLists are, for a ranking that filters no kind of event (type,
// outcome, reason or scope), the lists of each month's totals (type,
// reason and scope "": migration 0026), one a month of the rollup parts
// rather than one a month and kind; ok is false for a ranking that
// filters, which reads the lists of its kinds.
func TotalLists(f gatehouse.EventFilter, plan []InsightPart) (lists []PlayerList, ok bool) {
	if len(f.Types) > 0 || f.Allowed != nil || f.Reason != nil || f.Scope != nil {
		return nil, false
	}
	for _, part := range RollupParts(plan) {
		for m := part.From; m.Before(part.To); m = m.AddDate(0, 1, 0) {
			lists = append(lists, PlayerList{Month: m})
		}
	}
	return lists, true
}

// LevelsCrossed yields the levels a count crosses from before to after:
// each k with before < 2^k <= after, k >= 1.
func LevelsCrossed(before, after int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := bits.Len(uint(max(before, 1))); 1<<k <= after; k++ {
			if !yield(k) {
				return
			}
		}
	}
}

// RankPlayers returns the limit players (0: all) with the most events, as
// [gatehouse.SortInsights] orders them, reading no more of the rollup
// than it must. The rollup keeps, for each month and kind of event, the
// players whose count reached 2, 4, 8… (levels 1, 2, 3…). The ranking
// reads the highest level first, counts every player it meets exactly
// (rollup and events), and goes down a level until the last place counts
// more than any player not met could: below level k a player has less
// than 2^k in each list, plus at most what the first player not met has
// among the events. At level 0 it counts every player. On a log where a
// few players make most of the events, as on every game, a year's top 50
// reads a few hundred players; where every player counts alike it reads
// them all.
func RankPlayers(ctx context.Context, r PlayerReader, limit int) ([]gatehouse.InsightCount, error) {
	events, err := r.Events(ctx)
	if err != nil {
		return nil, err
	}
	lists, err := r.Lists(ctx)
	if err != nil {
		return nil, err
	}
	top, err := r.TopLevel(ctx, lists)
	if err != nil {
		return nil, err
	}
	// The players of the events, by what they add at most.
	byEvents := make([]string, 0, len(events))
	for p, o := range events {
		if positive(o) > 0 {
			byEvents = append(byEvents, p)
		}
	}
	slices.SortFunc(byEvents, func(a, b string) int {
		return cmp.Or(cmp.Compare(positive(events[b]), positive(events[a])), strings.Compare(a, b))
	})
	if top == 0 {
		return rankAll(ctx, r, events, limit)
	}
	var (
		met    = map[string]bool{}
		best   []gatehouse.InsightCount
		nextEv int
	)
	for k := top; k > 0; k-- {
		players, err := r.Level(ctx, lists, k)
		if err != nil {
			return nil, err
		}
		// The players whose events alone could reach this level too.
		for ; nextEv < len(byEvents) && positive(events[byEvents[nextEv]]) >= 1<<k; nextEv++ {
			players = append(players, byEvents[nextEv])
		}
		var fresh []string
		for _, p := range players {
			if !met[p] {
				met[p] = true
				fresh = append(fresh, p)
			}
		}
		if len(fresh) > 0 {
			counts, err := r.Rolled(ctx, fresh)
			if err != nil {
				return nil, err
			}
			for _, p := range fresh {
				best = appendCount(best, p, counts[p], events[p])
			}
			gatehouse.SortInsights(best)
			if limit > 0 && len(best) > limit {
				best = best[:limit]
			}
		}
		// What a player not met yet may count at most.
		bound := len(lists) * (1<<k - 1)
		for ; nextEv < len(byEvents) && met[byEvents[nextEv]]; nextEv++ {
		}
		if nextEv < len(byEvents) {
			bound += positive(events[byEvents[nextEv]])
		}
		if limit > 0 && len(best) == limit && best[limit-1].Total() > bound {
			return best, nil
		}
	}
	return rankAll(ctx, r, events, limit)
}

// rankAll ranks every player of the rollup and the events.
func rankAll(ctx context.Context, r PlayerReader, events map[string]Outcomes, limit int) ([]gatehouse.InsightCount, error) {
	counts, err := r.Rolled(ctx, nil)
	if err != nil {
		return nil, err
	}
	var best []gatehouse.InsightCount
	for p, o := range counts {
		best = appendCount(best, p, o, events[p])
	}
	for p, e := range events {
		if _, ok := counts[p]; !ok {
			best = appendCount(best, p, Outcomes{}, e)
		}
	}
	gatehouse.SortInsights(best)
	if limit > 0 && len(best) > limit {
		best = best[:limit]
	}
	return best, nil
}

// appendCount appends the player's count, rolled plus events, when it
// counts anything.
func appendCount(best []gatehouse.InsightCount, p string, rolled, events Outcomes) []gatehouse.InsightCount {
	for i, n := range events {
		rolled[i] += n
	}
	if rolled.Total() <= 0 {
		return best
	}
	return append(best, gatehouse.InsightCount{Key: p, Granted: rolled[0], Denied: rolled[1], RemoteUnlocks: rolled[2]})
}

// positive is what o adds at most: its positive counts.
func positive(o Outcomes) int {
	var n int
	for _, c := range o {
		n += max(c, 0)
	}
	return n
}

// PlayerDeltas are the rows a fold adds to the player rollup.
type PlayerDeltas map[InsightKey]int

// Add counts one event of the player at occurredAt.
func (d PlayerDeltas) Add(player, typ string, reason, scope *string, occurredAt time.Time) {
	k := InsightKey{Start: MonthOf(occurredAt), Player: player, Type: typ}
	if reason != nil {
		k.Reason = *reason
	}
	if scope != nil {
		k.Scope = *scope
	}
	d[k]++
}

// Sorted returns the rows in the key order of insight_player_months
// (month, player, type, reason, scope), so that a store writes its B-tree
// in order.
func (d PlayerDeltas) Sorted() []InsightKey {
	keys := make([]InsightKey, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b InsightKey) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.Player, b.Player), strings.Compare(a.Type, b.Type),
			strings.Compare(a.Reason, b.Reason), strings.Compare(a.Scope, b.Scope))
	})
	return keys
}
