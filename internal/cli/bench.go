package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/bench"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// seedOutput is what bench seed prints.
type seedOutput struct {
	Orgs            []bench.SeededOrg `json:"orgs"`
	Key             string            `json:"key"`
	Out             string            `json:"out,omitempty"`
	Seconds         float64           `json:"seconds"`
	EventsPerSecond float64           `json:"eventsPerSecond"`
}

func runBenchSeed(ctx context.Context, e *env) error {
	defer limitImportHeap(e)()
	f := newFlags(e, "bench seed")
	var cfg bench.SeedConfig
	f.IntVar(&cfg.Events, "events", 100_000, "events in all")
	f.IntVar(&cfg.Orgs, "orgs", 4, "organizations; the first holds half the events")
	f.Uint64Var(&cfg.Seed, "seed", 1, "random seed: the same seed gives the same log")
	f.Var(&cfg.IDs, "ids", "event ids, `v7|v4`: v7 (the default) in time order, v4 random as clients that call GenerateGUID send them")
	f.Var(&cfg.Order, "order", "event order, `time|shuffled`: time (the default), or the same events out of time order as a merged backfill arrives")
	f.IntVar(&cfg.Jobs, "jobs", 5_000, "server job ids per organization")
	out := f.String("out", "", "write the first organization's NDJSON to this file (- for stdout) instead of importing it")
	return withNewService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		if cfg.Jobs < 1 {
			return usagef("--jobs must be positive")
		}
		cfg.Now = e.now()
		start := time.Now()
		var seeded []bench.SeededOrg
		var err error
		if *out != "" {
			seeded, err = seedFile(ctx, e, svc, *out, cfg)
		} else {
			seeded, err = bench.Seed(ctx, svc, benchImporter(svc, e), cfg)
		}
		if err != nil {
			return err
		}
		elapsed := time.Since(start)
		// A key for the first organization that the benchmark, not the
		// rate limit, decides the pace of: after --out, for bench run
		// once the file is imported.
		_, raw, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: seeded[0].ID, Name: "bench",
			Scopes:    []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeEventsWrite, gatehouse.ScopeLocationsRead},
			RateLimit: &gatehouse.Rate{Count: 1_000_000, Per: time.Second}})
		if err != nil {
			return err
		}
		var total int
		var b strings.Builder
		for _, o := range seeded {
			total += o.Events
			fmt.Fprintf(&b, "\n  %s  %-16s %d events", o.ID, o.Name, o.Events)
		}
		res := seedOutput{Orgs: seeded, Key: raw, Out: *out, Seconds: elapsed.Seconds(), EventsPerSecond: float64(total) / elapsed.Seconds()}
		if *out == "" {
			return f.print(res, "seeded %d events in %.1f s (%.0f events/s):%s\n\nbench key for %s:\n\n  %s",
				total, res.Seconds, res.EventsPerSecond, b.String(), seeded[0].Name, raw)
		}
		db := *f.db
		if strings.Contains(db, "://") {
			db = "…" // a URL may hold a password
		}
		return f.print(res, "wrote %d events of %s to %s in %.1f s (%.0f events/s); the database holds the organizations and their places, no events:%s\n\n"+
			"import them with:\n\n  gatehouse event import --db %s --org %s %s\n\nbench key for %s, once imported:\n\n  %s",
			seeded[0].Events, seeded[0].Name, *out, res.Seconds, res.EventsPerSecond, b.String(),
			db, seeded[0].ID, *out, seeded[0].Name, raw)
	})
}

// seedFile is bench seed --out: the first organization's log goes to the
// file, or to stdout for "-", in which case the summary and the key go to
// stderr so that stdout holds nothing but NDJSON.
func seedFile(ctx context.Context, e *env, svc *service.Service, path string, cfg bench.SeedConfig) ([]bench.SeededOrg, error) {
	if path == "-" {
		w := bufio.NewWriterSize(e.stdout, 1<<16)
		e.stdout = e.stderr
		seeded, err := bench.SeedFile(ctx, svc, w, cfg)
		if err == nil {
			err = w.Flush()
		}
		return seeded, err
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(file, 1<<16)
	seeded, err := bench.SeedFile(ctx, svc, w, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	return seeded, err
}

// benchImporter stores each organization's log through event import's
// own path, and fails if the importer rejects anything the generator
// wrote.
func benchImporter(svc *service.Service, e *env) bench.Importer {
	return func(ctx context.Context, org uuid.UUID, in io.Reader) error {
		im, err := newImporter(ctx, svc, org, e.now)
		if err != nil {
			return err
		}
		if out, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(out.Fd())) {
			im.progress = out
		}
		sum, err := im.run(ctx, in)
		if err == nil && sum.Rejected > 0 {
			err = fmt.Errorf("the generator wrote %d events the importer rejected: %v", sum.Rejected, sum.Errors[0])
		}
		return err
	}
}

// runBenchFeed measures a consumer catching up on the feed: it reads a
// running server's feed from its start until a page is short.
func runBenchFeed(ctx context.Context, e *env) error {
	f := newFlags(e, "bench feed")
	base := f.String("url", "http://localhost:8080", "the running server")
	key := f.setting("key", "GATEHOUSE_BENCH_KEY", "", "an events:read key (bench seed prints one)")
	limit := f.Int("limit", gatehouse.MaxLimit, "events a page")
	if _, err := f.parse(0); err != nil {
		return err
	}
	if err := required("key", *key); err != nil {
		return err
	}
	if *limit < 1 || *limit > gatehouse.MaxLimit {
		return usagef("--limit must be from 1 to %d", gatehouse.MaxLimit)
	}
	st, err := bench.RunFeed(ctx, bench.FeedConfig{URL: strings.TrimRight(*base, "/"), Key: *key, Limit: *limit})
	if err != nil {
		return err
	}
	return f.print(st, "read %d events in %d pages of up to %d in %.1f s: %.0f events/s; a page p50 %.2f ms, p95 %.2f ms, p99 %.2f ms",
		st.Events, st.Pages, *limit, st.Seconds, st.EventsPerSec, st.P50, st.P95, st.P99)
}

func runBenchRun(ctx context.Context, e *env) error {
	f := newFlags(e, "bench run")
	base := f.String("url", "http://localhost:8080", "the running server")
	key := f.setting("key", "GATEHOUSE_BENCH_KEY", "", "the key bench seed printed")
	concurrency := f.Int("concurrency", 1, "requests in flight")
	duration := f.duration("duration", 5*time.Second, "time per query class")
	classes := f.String("classes", "", "comma-separated classes to run (default: all)")
	org := f.String("org", "", "also run each query straight through the store (--db) for this organization: the ceiling")
	if _, err := f.parse(0); err != nil {
		return err
	}
	if err := required("key", *key); err != nil {
		return err
	}
	if *concurrency < 1 || *duration <= 0 {
		return usagef("--concurrency and --duration must be positive")
	}
	cfg := bench.RunConfig{URL: strings.TrimRight(*base, "/"), Key: *key, Concurrency: *concurrency, Duration: *duration, Now: e.now}
	if *classes != "" {
		cfg.Classes = strings.Split(*classes, ",")
	}
	if *org != "" {
		id, err := parseID("org", *org)
		if err != nil {
			return err
		}
		db, err := openFound(ctx, *f.db, f.shardList()...)
		if err != nil {
			return err
		}
		defer db.Close()
		cfg.Service, cfg.Org = db.Service(e.now), id
	}
	results, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *f.json {
		return json.NewEncoder(e.stdout).Encode(struct {
			Concurrency int            `json:"concurrency"`
			DurationS   float64        `json:"durationPerClassSeconds"`
			Results     []bench.Result `json:"results"`
		}{*concurrency, duration.Seconds(), results})
	}
	bench.WriteTable(e.stdout, results)
	return nil
}
