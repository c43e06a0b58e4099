package cli

import (
	"context"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/bench"
)

// runBenchWebhooks measures the lag of webhook deliveries: it creates an
// organization on --db with an access point and a key, then POSTs events
// at --rate to the server at --url (run with --webhooks-allow-private)
// and receives them on one endpoint of its own.
func runBenchWebhooks(ctx context.Context, e *env) error {
	f := newFlags(e, "bench webhooks")
	base := f.String("url", "http://localhost:8080", "the running server on --db, with --webhooks-allow-private")
	rate := f.Float64("rate", 1000, "events a second")
	duration := f.duration("duration", 30*time.Second, "how long to send")
	every := f.duration("batch-every", 100*time.Millisecond, "how often a batch is sent (rate × this events each)")
	listen := f.String("listen", "127.0.0.1:0", "the receiver's address, reachable by the server")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		if *rate <= 0 || *duration <= 0 || *every <= 0 {
			return usagef("--rate, --duration and --batch-every must be positive")
		}
		org, ap, err := benchDoor(ctx, svc, "Bench webhooks "+e.now().Format(time.RFC3339))
		if err != nil {
			return err
		}
		_, key, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "bench webhooks",
			Scopes:    []gatehouse.Scope{gatehouse.ScopeEventsWrite, gatehouse.ScopeEventsRead, gatehouse.ScopeWebhooksWrite},
			RateLimit: &gatehouse.Rate{Count: 1_000_000, Per: time.Second}})
		if err != nil {
			return err
		}
		st, err := bench.RunWebhooks(ctx, bench.WebhooksConfig{URL: strings.TrimRight(*base, "/"), Key: key,
			AccessPointID: ap.ID.String(), Rate: *rate, Duration: *duration, BatchEvery: *every, Listen: *listen})
		if err != nil {
			return err
		}
		return f.print(st, "%d of %d events delivered (%d repeats, %d unverified) at %g a second: lag p50 %.0f ms, p95 %.0f ms, p99 %.0f ms, max %.0f ms",
			st.Delivered, st.Sent, st.Repeats, st.Unverified, *rate, st.P50, st.P95, st.P99, st.Max)
	})
}
