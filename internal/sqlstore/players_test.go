package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	gocmp "github.com/google/go-cmp/cmp"
)

// memoryPlayers is a PlayerReader over rows in memory, counting what a
// ranking reads.
type memoryPlayers struct {
	events map[string]Outcomes
	lists  []PlayerList
	rows   map[PlayerList][]PlayerRow // most first, then by player
	read   int
}

func (m *memoryPlayers) Events(context.Context) (map[string]Outcomes, error) { return m.events, nil }
func (m *memoryPlayers) Lists(context.Context) ([]PlayerList, error)         { return m.lists, nil }

func (m *memoryPlayers) Top(_ context.Context, lists []PlayerList, offset, n int) ([][]PlayerRow, error) {
	out := make([][]PlayerRow, len(lists))
	for i, l := range lists {
		rows := m.rows[l]
		out[i] = rows[min(offset, len(rows)):min(offset+n, len(rows))]
		m.read += len(out[i])
	}
	return out, nil
}

func (m *memoryPlayers) Rolled(_ context.Context, players []string) (map[string]Outcomes, error) {
	out, want := map[string]Outcomes{}, map[string]bool{}
	for _, p := range players {
		want[p] = true
	}
	for _, l := range m.lists {
		for _, r := range m.rows[l] {
			if want[r.Player] {
				o := out[r.Player]
				o.Add(l.Type, r.N)
				out[r.Player] = o
				m.read++
			}
		}
	}
	return out, nil
}

// TestRankPlayers: the threshold ranking gives exactly the ranking of
// every player counted whole, for every limit, on logs skewed and flat,
// with events added and taken out at the window's ends; on a skewed log
// it reads a small part of the rollup.
func TestRankPlayers(t *testing.T) {
	kinds := []PlayerList{{Type: "ACCESS_GRANTED"}, {Type: "ACCESS_DENIED", Reason: "BANNED"},
		{Type: "ACCESS_DENIED", Reason: "OUTSIDE_SCHEDULE"}, {Type: "REMOTE_UNLOCK", Scope: "PLAYER"}}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		players := 1 + rng.IntN(3000)
		var pick func() int
		skewed := seed%2 == 0
		if skewed {
			z := rand.NewZipf(rng, 1.1, 1, uint64(players-1))
			pick = func() int { return int(z.Uint64()) }
		} else {
			pick = func() int { return rng.IntN(players) }
		}
		m := &memoryPlayers{events: map[string]Outcomes{}, rows: map[PlayerList][]PlayerRow{}}
		whole := map[string]Outcomes{}
		months := 1 + rng.IntN(13)
		for mo := range months {
			for _, k := range kinds {
				k.Month = time.Date(2026, time.Month(1+mo), 1, 0, 0, 0, 0, time.UTC)
				counts := map[string]int{}
				for range rng.IntN(4000) {
					counts[fmt.Sprint("p", pick())]++
				}
				if len(counts) == 0 && rng.IntN(2) == 0 {
					continue
				}
				m.lists = append(m.lists, k)
				for p, n := range counts {
					m.rows[k] = append(m.rows[k], PlayerRow{p, n})
					o := whole[p]
					o.Add(k.Type, n)
					whole[p] = o
				}
				slices.SortFunc(m.rows[k], func(a, b PlayerRow) int { return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Player, b.Player)) })
			}
		}
		// The ends of the window: added, and taken out of a month read
		// whole (never more than the month holds).
		for range rng.IntN(2000) {
			p := fmt.Sprint("p", pick())
			o := m.events[p]
			o.Add(kinds[rng.IntN(len(kinds))].Type, 1)
			m.events[p] = o
		}
		for p, w := range whole {
			if rng.IntN(10) == 0 {
				e := m.events[p]
				e[0] -= w[0] / 2
				m.events[p] = e
			}
		}
		var want []gatehouse.InsightCount
		for p := range mergeKeys(whole, m.events) {
			o := whole[p]
			for i, n := range m.events[p] {
				o[i] += n
			}
			if o.Total() > 0 {
				want = append(want, gatehouse.InsightCount{Key: p, Granted: o[0], Denied: o[1], RemoteUnlocks: o[2]})
			}
		}
		gatehouse.SortInsights(want)
		for _, limit := range []int{0, 1, 2, 51, 501} {
			m.read = 0
			got, err := RankPlayers(context.Background(), m, limit)
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if limit > 0 {
				w = want[:min(limit, len(want))]
			}
			if diff := gocmp.Diff(w, got); diff != "" {
				t.Fatalf("seed %d (skewed %v, %d players, %d months), limit %d (-want +got):\n%s", seed, skewed, players, months, limit, diff)
			}
			if skewed && limit == 51 {
				t.Logf("skewed, %d players, %d months: read %d of %d rows", players, months, m.read, rowsOf(m))
			}
		}
	}
}

func mergeKeys(a, b map[string]Outcomes) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func rowsOf(m *memoryPlayers) int {
	n := 0
	for _, rows := range m.rows {
		n += len(rows)
	}
	return n
}
