package bench

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// DecisionsConfig says what RunDecisions drives: POST /decisions on a
// running server, from Concurrency workers for Duration (each asking again
// as soon as it is answered, or together at Rate), as game servers ask (a few thousand players, half of them staff of a group with varied
// ranks).
type DecisionsConfig struct {
	URL           string // the server, e.g. http://localhost:8080
	Key           string // a server key of the organization
	AccessPointID string
	Concurrency   int
	Duration      time.Duration
	Record        bool    // store each decision as an event
	Rate          float64 // decisions a second on a fixed schedule (RunConfig.Rate); 0: as fast as answered
}

// RunDecisions measures decisions per second and their latency.
func RunDecisions(ctx context.Context, cfg DecisionsConfig) (Stats, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency * 2}, Timeout: 30 * time.Second}
	d := &driver{cfg: RunConfig{URL: cfg.URL, Key: cfg.Key, Concurrency: cfg.Concurrency, Duration: cfg.Duration, Rate: cfg.Rate}, client: client}
	ask := func(ctx context.Context) error {
		user := rand.IntN(5000) + 1
		body := fmt.Appendf(nil, `{"accessPointId": %q, "platformUserId": "%d", "serverJobId": "bench-%d",
 "attributes": {"groups": {"456": %d}, "gamepasses": [], "badges": [], "premium": false}, "record": %t}`,
			cfg.AccessPointID, user, user%50, user%256, cfg.Record)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.cfg.URL+"/api/consumer/v1/decisions", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		return d.do(req, nil)
	}
	// One decision first: a server that cannot answer fails the run, not
	// every sample of it.
	if err := ask(ctx); err != nil {
		return Stats{}, err
	}
	return d.load(ctx, ask), nil
}
