package bench

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// load runs fn from Concurrency workers for Duration and summarises it.
func (d *driver) load(ctx context.Context, fn func(context.Context) error) Stats {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      int
		worst     time.Duration
		worstAt   time.Duration
		wg        sync.WaitGroup
		next      atomic.Int64 // the next request of the schedule (Rate)
	)
	start := time.Now()
	// due returns when the worker's next request should start, false when
	// the run is over.
	due := func() (time.Time, bool) {
		if d.cfg.Rate <= 0 {
			return time.Now(), time.Since(start) < d.cfg.Duration
		}
		at := start.Add(time.Duration(float64(next.Add(1)-1) / d.cfg.Rate * float64(time.Second)))
		if at.Sub(start) >= d.cfg.Duration {
			return at, false
		}
		time.Sleep(time.Until(at))
		return at, true
	}
	for range d.cfg.Concurrency {
		wg.Go(func() {
			var mine []time.Duration
			var slowest, slowestAt time.Duration
			bad := 0
			for ctx.Err() == nil {
				t, ok := due()
				if !ok {
					break
				}
				if err := fn(ctx); err != nil {
					bad++
					continue
				}
				took := time.Since(t)
				if took > slowest {
					slowest, slowestAt = took, t.Sub(start)
				}
				mine = append(mine, took)
			}
			mu.Lock()
			latencies, errs = append(latencies, mine...), errs+bad
			if slowest > worst {
				worst, worstAt = slowest, slowestAt
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	s := summarise(latencies, errs, time.Since(start))
	s.MaxAt = worstAt.Seconds()
	return s
}

func summarise(lat []time.Duration, errs int, elapsed time.Duration) Stats {
	s := Stats{Requests: len(lat), Errors: errs, RPS: float64(len(lat)) / elapsed.Seconds()}
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	s.P50, s.P95, s.P99 = pct(0.50), pct(0.95), pct(0.99)
	s.Max = float64(lat[len(lat)-1].Microseconds()) / 1000
	return s
}
