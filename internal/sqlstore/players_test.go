package sqlstore

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	gocmp "github.com/google/go-cmp/cmp"
)

// memoryPlayers is a PlayerReader over rows in memory, counting the
// players whose counts a ranking reads.
type memoryPlayers struct {
	events map[string]Outcomes
	lists  []PlayerList
	rows   map[PlayerList]map[string]int
	read   int
}

func (m *memoryPlayers) Events(context.Context) (map[string]Outcomes, error) { return m.events, nil }
func (m *memoryPlayers) Lists(context.Context) ([]PlayerList, error)         { return m.lists, nil }

func (m *memoryPlayers) TopLevel(_ context.Context, lists []PlayerList) (int, error) {
	top := 0
	for _, l := range lists {
		for _, n := range m.rows[l] {
			top = max(top, bits.Len(uint(n))-1)
		}
	}
	return top, nil
}

func (m *memoryPlayers) Level(_ context.Context, lists []PlayerList, k int) ([]string, error) {
	var players []string
	for _, l := range lists {
		for p, n := range m.rows[l] {
			if n >= 1<<k {
				players = append(players, p)
			}
		}
	}
	return players, nil
}

func (m *memoryPlayers) Rolled(_ context.Context, players []string) (map[string]Outcomes, error) {
	want := map[string]bool{}
	for _, p := range players {
		want[p] = true
	}
	out := map[string]Outcomes{}
	for _, l := range m.lists {
		for p, n := range m.rows[l] {
			if players == nil || want[p] {
				o := out[p]
				o.Add(l.Type, n)
				out[p] = o
			}
		}
	}
	m.read += len(out)
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
		m := &memoryPlayers{events: map[string]Outcomes{}, rows: map[PlayerList]map[string]int{}}
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
				m.rows[k] = counts
				for p, n := range counts {
					o := whole[p]
					o.Add(k.Type, n)
					whole[p] = o
				}
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
				t.Logf("skewed, %d players, %d months: counted %d of %d players", players, months, m.read, len(whole))
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
