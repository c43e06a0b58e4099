package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/bench"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runBenchPolls measures long polls: it creates an organization with a
// location in a universe of its own on --db, then runs bench.RunPolls
// against the server(s) at --url (and --issue-url) on that database.
func runBenchPolls(ctx context.Context, e *env) error {
	f := newFlags(e, "bench polls")
	base := f.String("url", "http://localhost:8080", "the running server the game servers poll")
	issueURL := f.String("issue-url", "", "where commands are issued (default: --url); another instance on the same database measures the cross-instance wake")
	servers := f.Int("servers", 1000, "simulated game servers long-polling")
	commands := f.Int("commands", 20, "UNIVERSE unlocks to time, one per --interval")
	interval := f.duration("interval", time.Second, "time between the timed unlocks")
	issueFor := f.duration("issue-for", 5*time.Second, "then issue SERVER unlocks this long, as fast as answered (0: skip)")
	concurrency := f.Int("concurrency", 8, "issuing workers of that phase")
	lockdown := f.Bool("lockdown", false, "time lockdowns of the location instead (start → its LOCKDOWN command at every server), each released half an --interval later")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		if *servers < 1 || *commands < 0 || *interval <= 0 {
			return usagef("--servers must be positive, --commands not negative, --interval positive")
		}
		now := e.now()
		universe := fmt.Sprint(now.UnixNano()%1_000_000_000 + 1)
		org, err := svc.CreateOrganization(ctx, "Bench polls "+now.Format(time.RFC3339))
		if err != nil {
			return err
		}
		loc, err := svc.CreateLocation(ctx, org.ID, "Bench")
		if err == nil {
			_, err = svc.SetLocationUniverse(ctx, org.ID, loc.ID, universe)
		}
		if err != nil {
			return err
		}
		ap, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Bench door")
		if err != nil {
			return err
		}
		// Keys that the benchmark, not the rate limits, decides the pace of.
		unlimited := &gatehouse.Rate{Count: 1_000_000, Per: time.Second}
		_, serverKey, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "bench servers",
			Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer}, RateLimit: unlimited})
		if err != nil {
			return err
		}
		_, commandKey, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "bench commands",
			Scopes: []gatehouse.Scope{gatehouse.ScopeCommandsWrite}, RateLimit: unlimited})
		if err != nil {
			return err
		}
		res, err := bench.RunPolls(ctx, bench.PollsConfig{
			URL: strings.TrimRight(*base, "/"), IssueURL: strings.TrimRight(*issueURL, "/"),
			ServerKey: serverKey, CommandKey: commandKey, AccessPointID: ap.ID, UniverseID: universe,
			Servers: *servers, Commands: *commands, Interval: *interval, IssueFor: *issueFor,
			Concurrency: *concurrency, Progress: e.stderr, Lockdown: *lockdown, LocationID: loc.ID,
		})
		if err != nil {
			return err
		}
		if *f.json {
			return json.NewEncoder(e.stdout).Encode(res)
		}
		fmt.Fprintf(e.stdout, "%d servers long-polling\n", res.Servers)
		fmt.Fprintf(e.stdout, "  idle:    %d goroutines, %.1f MiB RSS, %.1f MiB heap, %d fds\n", res.Idle.Goroutines, res.Idle.RSSMiB, res.Idle.HeapMiB, res.Idle.OpenFDs)
		fmt.Fprintf(e.stdout, "  waiting: %d goroutines, %.1f MiB RSS, %.1f MiB heap, %d fds\n", res.Waiting.Goroutines, res.Waiting.RSSMiB, res.Waiting.HeapMiB, res.Waiting.OpenFDs)
		what := "issue"
		if *lockdown {
			what = "lockdown start"
		}
		fmt.Fprintf(e.stdout, "%s to delivery over %d deliveries (%d missing): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n",
			what, res.Deliveries, res.Missing, res.P50Ms, res.P90Ms, res.P99Ms, res.MaxMs)
		if *issueFor > 0 {
			fmt.Fprintf(e.stdout, "SERVER unlocks issued: %.0f per second (%d errors)\n", res.IssuedPerSec, res.IssueErrors)
		}
		fmt.Fprintf(e.stdout, "sync errors: %d\n", res.SyncErrors)
		return nil
	})
}
