package sqlstore

import (
	"cmp"
	"context"
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
// and kind of event (type, reason and scope), most events first. A player
// has at most one row in it.
type PlayerList struct {
	Month               time.Time
	Type, Reason, Scope string
}

// PlayerRow is one row of a list.
type PlayerRow struct {
	Player string
	N      int
}

// PlayerReader reads, in one snapshot, what a ranking of players over a
// window needs ([PlanInsights]'s parts for [gatehouse.GroupPlatformUser]).
type PlayerReader interface {
	// Events counts by player, signed, the parts read from the events and
	// the events of the rollup parts that the roller has not folded yet.
	Events(ctx context.Context) (map[string]Outcomes, error)
	// Lists are the rollup's lists of the rollup parts that the filter
	// keeps: each month and each kind of event counted in it.
	Lists(ctx context.Context) ([]PlayerList, error)
	// Top reads rows [offset, offset+n) of each list, most first, then by
	// player.
	Top(ctx context.Context, lists []PlayerList, offset, n int) ([][]PlayerRow, error)
	// Rolled counts by player what the rollup parts hold of players.
	Rolled(ctx context.Context, players []string) (map[string]Outcomes, error)
}

// firstRead is how many rows of each list a ranking reads first; each
// round reads four times as many as the one before.
const firstRead = 64

// RankPlayers returns the limit players (0: all) with the most events, as
// [gatehouse.SortInsights] orders them, reading no more of the rollup
// than it must. It is the threshold algorithm: it reads each list most
// first, counts every player it meets exactly (rollup and events), and
// stops once the last place counts more than any player not met could:
// such a player has in each list at most the count of the last row read
// there, and from the events at most what the first player not met of
// the events has. On a log where a few players make most of the events,
// as on every game, a year's ranking reads a few hundred rows of each
// month; where every player counts alike it reads them all.
func RankPlayers(ctx context.Context, r PlayerReader, limit int) ([]gatehouse.InsightCount, error) {
	events, err := r.Events(ctx)
	if err != nil {
		return nil, err
	}
	lists, err := r.Lists(ctx)
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
	var (
		met      = map[string]Outcomes{}
		frontier = make([]int, len(lists))
		open     = lists
		openAt   = make([]int, len(lists)) // open[i] is lists[openAt[i]]
		offset   int
		read     = firstRead
		nextEv   int
		best     []gatehouse.InsightCount
	)
	for i := range openAt {
		openAt[i] = i
	}
	for {
		var fresh []string
		seen := map[string]bool{}
		add := func(p string) {
			if _, ok := met[p]; !ok && !seen[p] {
				seen[p] = true
				fresh = append(fresh, p)
			}
		}
		if len(open) > 0 {
			rows, err := r.Top(ctx, open, offset, read)
			if err != nil {
				return nil, err
			}
			var stillOpen []PlayerList
			var stillAt []int
			for i, rs := range rows {
				for _, row := range rs {
					add(row.Player)
				}
				if len(rs) < read {
					frontier[openAt[i]] = 0
					continue
				}
				frontier[openAt[i]] = rs[len(rs)-1].N
				stillOpen, stillAt = append(stillOpen, open[i]), append(stillAt, openAt[i])
			}
			open, openAt, offset = stillOpen, stillAt, offset+read
		}
		for n := 0; nextEv < len(byEvents) && n < read; nextEv++ {
			if _, ok := met[byEvents[nextEv]]; !ok {
				add(byEvents[nextEv])
				n++
			}
		}
		read *= 4
		if len(fresh) > 0 {
			rolled, err := r.Rolled(ctx, fresh)
			if err != nil {
				return nil, err
			}
			for _, p := range fresh {
				o := rolled[p]
				for i, n := range events[p] {
					o[i] += n
				}
				met[p] = o
				if o.Total() > 0 {
					best = append(best, gatehouse.InsightCount{Key: p, Granted: o[0], Denied: o[1], RemoteUnlocks: o[2]})
				}
			}
			gatehouse.SortInsights(best)
			if limit > 0 && len(best) > limit {
				best = best[:limit]
			}
		}
		// What a player not met yet may count at most.
		var bound int
		for _, i := range openAt {
			bound += frontier[i]
		}
		for ; nextEv < len(byEvents); nextEv++ {
			if _, ok := met[byEvents[nextEv]]; !ok {
				bound += positive(events[byEvents[nextEv]])
				break
			}
		}
		if bound == 0 || limit > 0 && len(best) == limit && best[limit-1].Total() > bound {
			return best, nil
		}
	}
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
// (player, type, month, reason, scope), so that a store writes its B-tree
// in order.
func (d PlayerDeltas) Sorted() []InsightKey {
	keys := make([]InsightKey, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b InsightKey) int {
		return cmp.Or(strings.Compare(a.Player, b.Player), strings.Compare(a.Type, b.Type), a.Start.Compare(b.Start),
			strings.Compare(a.Reason, b.Reason), strings.Compare(a.Scope, b.Scope))
	})
	return keys
}
