package shards_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// BenchmarkRouting: what the router adds to a request. Each pair runs the
// same store method on the organization's own primary directly and
// through the router (three primaries; the directory cached as it is on a
// serving instance):
//
//	go test -run '^$' -bench Routing -benchtime 2000x ./internal/shards
func BenchmarkRouting(b *testing.B) {
	r, _, others := openRouter(b)
	org := createOrg(b, r, "Acme")
	loc, err := r.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		b.Fatal(err)
	}
	k := gatehouse.APIKey{ID: uuid.New(), OrgID: org.ID, Name: "k", Prefix: "gk_bench", Hash: gatehouse.KeyHash{7},
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: time.Now()}
	if err := r.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
		b.Fatal(err)
	}
	direct := openDB(b, others[0]) // the first shard, where Acme was placed
	for _, s := range []struct {
		name  string
		store gatehouse.Store
	}{{"direct", direct}, {"router", r}} {
		b.Run("FindLocation/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.store.FindLocation(ctx, org.ID, loc.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A key not in the service's cache: the router asks every primary.
		b.Run("FindAPIKeyByHash/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.store.FindAPIKeyByHash(ctx, k.Hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMove: a shard move of an organization that holds N events
// (GATEHOUSE_BENCH_MOVE_EVENTS, 100,000 unless set; docs/performance.md
// records 1,000,000) while it ingests 1,000 events a second through the
// router, 20 batches of 50, as a client that tries a 503 again after
// 100 ms does. It reports the move's bulk copy and freeze, and the
// ingest's latency during the move, from each batch's first attempt to
// its success; every event acknowledged is in the feed once after it.
//
//	GATEHOUSE_BENCH_MOVE_EVENTS=1000000 go test -run '^$' -bench Move -benchtime 1x -timeout 30m ./internal/shards
func BenchmarkMove(b *testing.B) {
	n := 100_000
	if s := os.Getenv("GATEHOUSE_BENCH_MOVE_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		r, _, _ := openRouter(b)
		org, _, ap := createGate(b, r, "Big")
		batch := func(size int, spread time.Duration) []gatehouse.NewEvent {
			granted := gatehouse.Granted
			events := make([]gatehouse.NewEvent, size)
			for i := range events {
				player := strconv.Itoa(rand.IntN(10_000))
				events[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted, AccessPointID: ap.ID,
					PlatformUserID: &player, OccurredAt: time.Now().Add(-time.Duration(rand.Int64N(int64(spread))))}
			}
			return events
		}
		b.StopTimer()
		var seed sync.WaitGroup
		for w := range 4 {
			seed.Go(func() {
				for i := w * 1000; i < n; i += 4 * 1000 {
					if _, err := r.IngestEvents(ctx, org.ID, batch(min(1000, n-i), 30*24*time.Hour)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		seed.Wait()
		b.StartTimer()

		type sample struct {
			at      time.Time
			latency time.Duration
		}
		var (
			mu      sync.Mutex
			samples []sample
			acked   int
			stop    = make(chan struct{})
			ingest  sync.WaitGroup
		)
		ingest.Go(func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case at := <-tick.C:
					ingest.Go(func() {
						events := batch(50, time.Minute)
						for {
							_, err := r.IngestEvents(ctx, org.ID, events)
							if errors.Is(err, gatehouse.ErrUnavailable) {
								time.Sleep(100 * time.Millisecond)
								continue
							}
							if err != nil {
								b.Error(err)
								return
							}
							break
						}
						mu.Lock()
						samples = append(samples, sample{at, time.Since(at)})
						acked += len(events)
						mu.Unlock()
					})
				}
			}
		})
		time.Sleep(time.Second)
		began := time.Now()
		rep, err := r.Move(ctx, org.ID, r.Shards()[2].ID, b.Logf)
		ended := time.Now()
		time.Sleep(time.Second)
		close(stop)
		ingest.Wait()
		if err != nil {
			b.Fatal(err)
		}
		var during []time.Duration
		for _, s := range samples {
			if !s.at.Before(began) && s.at.Before(ended) {
				during = append(during, s.latency)
			}
		}
		slices.Sort(during)
		pct := func(p float64) float64 { return float64(during[int(p*float64(len(during)-1))].Microseconds()) / 1000 }
		b.ReportMetric(rep.Bulk.Seconds(), "bulk_s")
		b.ReportMetric(rep.Freeze.Seconds(), "freeze_s")
		b.ReportMetric(pct(0.5), "ingest_p50_ms")
		b.ReportMetric(pct(0.99), "ingest_p99_ms")
		b.ReportMetric(pct(1), "ingest_max_ms")
		total, err := r.CountFeed(ctx, org.ID, gatehouse.EventFilter{}, gatehouse.FeedPosition{})
		if err != nil || total != int64(n+acked) {
			b.Fatalf("the feed after the move: %d events, %v; want %d", total, err, n+acked)
		}
		b.Logf("%d events moved in %s (bulk) + %s (calls held); %d batches during the move", rep.Events, rep.Bulk, rep.Freeze, len(during))
	}
}
