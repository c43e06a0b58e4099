package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/bench"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runBenchDecisions measures POST /decisions: it creates an organization
// on --db with an access point whose policy is office hours with a group
// allowlist, then drives the server at --url with --concurrency workers,
// as fast as it answers or at --rate.
func runBenchDecisions(ctx context.Context, e *env) error {
	f := newFlags(e, "bench decisions")
	base := f.String("url", "http://localhost:8080", "the running server on --db")
	concurrency := f.Int("concurrency", 32, "workers each asking for one decision at a time")
	duration := f.duration("duration", 10*time.Second, "how long to ask")
	record := f.Bool("record", true, "store every decision as an event (record: true)")
	rate := f.Float64("rate", 0, "decisions a second, started on a fixed schedule by the workers together, latency counted from each one's scheduled start (0: each worker asks again as soon as it is answered)")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		if *concurrency < 1 || *duration <= 0 || *rate < 0 {
			return usagef("--concurrency and --duration must be positive, --rate not negative")
		}
		org, ap, err := benchDoor(ctx, svc, "Bench decisions "+e.now().Format(time.RFC3339))
		if err != nil {
			return err
		}
		rank := 128
		all := []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}
		_, err = svc.SetPolicy(ctx, org.ID, ap.ID, gatehouse.Policy{Mode: gatehouse.ModeRules,
			Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin", Windows: []gatehouse.Window{{Days: all, From: "06:00", To: "02:00"}}},
			Allow:    []gatehouse.AllowRule{{GroupID: "456", MinRank: &rank}, {GamepassID: "789"}},
			Deny:     []gatehouse.DenyRule{{PlatformUserID: "13"}}}, nil)
		if err != nil {
			return err
		}
		unlimited := &gatehouse.Rate{Count: 1_000_000, Per: time.Second}
		_, key, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "bench decisions",
			Scopes: []gatehouse.Scope{gatehouse.ScopeGameServer}, RateLimit: unlimited})
		if err != nil {
			return err
		}
		st, err := bench.RunDecisions(ctx, bench.DecisionsConfig{URL: strings.TrimRight(*base, "/"), Key: key,
			AccessPointID: ap.ID.String(), Concurrency: *concurrency, Duration: *duration, Record: *record, Rate: *rate})
		if err != nil {
			return err
		}
		load := fmt.Sprintf("concurrency %d", *concurrency)
		if *rate > 0 {
			load += fmt.Sprintf(", %g a second scheduled", *rate)
		}
		return f.print(st, "%d decisions (record %t) at %s: %.0f per second, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (due at %.1f s), %d errors",
			st.Requests, *record, load, st.RPS, st.P50, st.P95, st.P99, st.Max, st.MaxAt, st.Errors)
	})
}

// benchDoor creates an organization named name with one location and
// one access point, for a benchmark to drive.
func benchDoor(ctx context.Context, svc *service.Service, name string) (gatehouse.Organization, gatehouse.AccessPoint, error) {
	org, err := svc.CreateOrganization(ctx, name)
	if err != nil {
		return org, gatehouse.AccessPoint{}, err
	}
	loc, err := svc.CreateLocation(ctx, org.ID, "Bench")
	if err != nil {
		return org, gatehouse.AccessPoint{}, err
	}
	ap, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Bench door")
	return org, ap, err
}
