package cli

import (
	"context"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/bench"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// runBenchWebhooks measures the lag of webhook deliveries: it creates an
// organization on --db with an access point and a key, then POSTs events
// at --rate to the server at --url (run with --webhooks-allow-private)
// and receives them on one endpoint of its own. With --attack, another
// organization's endpoints, whose receivers hang or answer late, are
// sent tests all the while.
func runBenchWebhooks(ctx context.Context, e *env) error {
	f := newFlags(e, "bench webhooks")
	base := f.String("url", "http://localhost:8080", "the running server on --db, with --webhooks-allow-private")
	rate := f.Float64("rate", 1000, "events a second")
	duration := f.duration("duration", 30*time.Second, "how long to send")
	every := f.duration("batch-every", 100*time.Millisecond, "how often a batch is sent (rate × this events each)")
	listen := f.String("listen", "127.0.0.1:0", "the receiver's address, reachable by the server")
	wait := f.duration("wait", time.Minute, "how long to wait for the last deliveries once the events are sent")
	attack := f.String("attack", "", "also run another organization's attack, `hang|slow`: endpoints whose receivers hang until the sender gives up, or answer 200 after 9.5 s")
	endpoints := f.Int("attack-endpoints", gatehouse.MaxWebhooks, "the attack's endpoints")
	testEvery := f.duration("attack-test-every", 4*time.Second, "how often the attack sends each of its endpoints a test")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		if *rate <= 0 || *duration <= 0 || *every <= 0 || *wait <= 0 {
			return usagef("--rate, --duration, --batch-every and --wait must be positive")
		}
		if *attack != "" && *attack != bench.AttackHang && *attack != bench.AttackSlow {
			return usagef("--attack must be hang or slow, got %q", *attack)
		}
		if *attack != "" && (*endpoints < 1 || *endpoints > gatehouse.MaxWebhooks || *testEvery <= 0) {
			return usagef("--attack-endpoints must be from 1 to %d and --attack-test-every positive", gatehouse.MaxWebhooks)
		}
		stamp := e.now().Format(time.RFC3339)
		org, ap, err := benchDoor(ctx, svc, "Bench webhooks "+stamp)
		if err != nil {
			return err
		}
		key, err := benchWebhooksKey(ctx, svc, org.ID)
		if err != nil {
			return err
		}
		cfg := bench.WebhooksConfig{URL: strings.TrimRight(*base, "/"), Key: key, AccessPointID: ap.ID.String(),
			Rate: *rate, Duration: *duration, BatchEvery: *every, Listen: *listen, Wait: *wait,
			Attack: *attack, AttackEndpoints: *endpoints, AttackTestEvery: *testEvery}
		if *attack != "" {
			attacker, err := svc.CreateOrganization(ctx, "Bench webhooks attack "+stamp)
			if err != nil {
				return err
			}
			if cfg.AttackKey, err = benchWebhooksKey(ctx, svc, attacker.ID); err != nil {
				return err
			}
		}
		st, err := bench.RunWebhooks(ctx, cfg)
		if err != nil {
			return err
		}
		during := ""
		if *attack != "" {
			during = " beside the attack (" + *attack + ")"
		}
		return f.print(st, "%d of %d events delivered (%d repeats, %d unverified) at %g a second%s: lag p50 %.0f ms, p95 %.0f ms, p99 %.0f ms, max %.0f ms",
			st.Delivered, st.Sent, st.Repeats, st.Unverified, *rate, during, st.P50, st.P95, st.P99, st.Max)
	})
}

// benchWebhooksKey makes a key of the organization's that writes events
// and endpoints, with a rate limit the benchmark does not reach.
func benchWebhooksKey(ctx context.Context, svc *service.Service, org uuid.UUID) (string, error) {
	_, key, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org, Name: "bench webhooks",
		Scopes:    []gatehouse.Scope{gatehouse.ScopeEventsWrite, gatehouse.ScopeEventsRead, gatehouse.ScopeWebhooksWrite},
		RateLimit: &gatehouse.Rate{Count: 1_000_000, Per: time.Second}})
	return key, err
}
