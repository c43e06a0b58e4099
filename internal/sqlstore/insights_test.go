package sqlstore_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// TestPlanInsightsCoversWindow checks that the parts of a plan, added and
// taken out by their signs, count every instant of the window once and
// none outside it, whatever the window and grouping.
func TestPlanInsightsCoversWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	groups := []gatehouse.InsightGroup{gatehouse.GroupAccessPoint, gatehouse.GroupType, gatehouse.GroupPlatformUser, gatehouse.GroupHour}
	for range 300 {
		from := base.Add(time.Duration(rng.Int64N(int64(400 * 24 * time.Hour))))
		to := from.Add(time.Duration(rng.Int64N(int64(366 * 24 * time.Hour))))
		if rng.IntN(4) == 0 {
			from = from.Truncate(24 * time.Hour)
		}
		f := gatehouse.EventFilter{From: &from, To: &to}
		by := groups[rng.IntN(len(groups))]
		parts := sqlstore.PlanInsights(f, by)
		for _, p := range parts {
			if p.Sign != 1 && p.Sign != -1 || !p.From.Before(p.To) {
				t.Fatalf("%v–%v by %s: part %+v", from, to, by, p)
			}
		}
		lo, hi := sqlstore.MonthOf(from).AddDate(0, -1, 0), sqlstore.MonthOf(to).AddDate(0, 2, 0)
		for range 200 {
			at := lo.Add(time.Duration(rng.Int64N(int64(hi.Sub(lo)))))
			if rng.IntN(8) == 0 {
				at = []time.Time{from, to, from.Add(-1), to.Add(-1)}[rng.IntN(4)]
			}
			n := 0
			for _, p := range parts {
				if !at.Before(p.From) && at.Before(p.To) {
					n += p.Sign
				}
			}
			want := 0
			if !at.Before(from) && at.Before(to) {
				want = 1
			}
			if n != want {
				t.Fatalf("%v–%v by %s: %v counted %d times, want %d; parts %+v", from, to, by, at, n, want, parts)
			}
		}
	}
}
