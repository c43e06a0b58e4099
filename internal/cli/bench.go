package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/bench"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// seedOutput is what bench seed prints.
type seedOutput struct {
	Orgs            []bench.SeededOrg `json:"orgs"`
	Key             string            `json:"key"`
	Seconds         float64           `json:"seconds"`
	EventsPerSecond float64           `json:"eventsPerSecond"`
}

func runBenchSeed(ctx context.Context, e *env) error {
	f := newFlags(e, "bench seed")
	events := f.Int("events", 100_000, "events in all")
	orgs := f.Int("orgs", 4, "organizations; the first holds half the events")
	seed := f.Uint64("seed", 1, "random seed: the same seed gives the same log")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		start := time.Now()
		imp := func(ctx context.Context, org uuid.UUID, in io.Reader) error {
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
		seeded, err := bench.Seed(ctx, svc, imp, bench.SeedConfig{Events: *events, Orgs: *orgs, Seed: *seed, Now: e.now()})
		if err != nil {
			return err
		}
		elapsed := time.Since(start)
		// A key for the first organization that the benchmark, not the
		// rate limit, decides the pace of.
		_, raw, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: seeded[0].ID, Name: "bench",
			Scopes:    []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeEventsWrite, gatehouse.ScopeLocationsRead},
			RateLimit: &gatehouse.Rate{Count: 1_000_000, Per: time.Second}})
		if err != nil {
			return err
		}
		out := seedOutput{Orgs: seeded, Key: raw, Seconds: elapsed.Seconds(), EventsPerSecond: float64(*events) / elapsed.Seconds()}
		var b strings.Builder
		for _, o := range seeded {
			fmt.Fprintf(&b, "\n  %s  %-16s %d events", o.ID, o.Name, o.Events)
		}
		return f.print(out, "seeded %d events in %.1f s (%.0f events/s):%s\n\nbench key for %s:\n\n  %s",
			*events, out.Seconds, out.EventsPerSecond, b.String(), seeded[0].Name, raw)
	})
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
		db, err := app.Open(ctx, *f.db)
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
