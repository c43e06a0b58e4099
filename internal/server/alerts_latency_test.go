package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/teststore"
)

// TestAlertLatency measures, on the real clock and the production
// defaults of the alert loops (every instance polls 4 times a second, a
// caught-up rule is evaluated again after 1 s), how long an alert takes
// from the event that crosses its threshold to a Discord-shaped receiver,
// with two instances running the loops on one database. Each of 50
// players crosses a threshold of 1 in turn, 100 ms apart. It logs the
// percentiles (docs/performance.md, "Alert latency") and checks only that
// each alert arrived, once.
func TestAlertLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 6 s")
	}
	ctx, stop := context.WithCancel(context.Background())
	db := teststore.Open(t, time.Now)
	var (
		mu      sync.Mutex
		arrived = map[string]time.Time{}
		repeats int
	)
	recv := newChatReceiver(t, func(body []byte) error {
		if err := checkDiscord(body); err != nil {
			return err
		}
		var m struct {
			Embeds []struct {
				Fields []struct{ Name, Value string }
			}
		}
		json.Unmarshal(body, &m)
		for _, f := range m.Embeds[0].Fields {
			if f.Name == "Group (platformUserId)" {
				mu.Lock()
				if _, ok := arrived[f.Value]; ok {
					repeats++
				}
				arrived[f.Value] = time.Now()
				mu.Unlock()
			}
		}
		return nil
	}, http.StatusNoContent)
	var instances []*app.App
	for range 2 {
		a, err := app.New(ctx, app.Settings{DB: app.Use(db), Now: time.Now, WebhooksAllowPrivate: true})
		if err != nil {
			t.Fatal(err)
		}
		instances = append(instances, a)
	}
	svc := instances[0].Service
	org, err := svc.CreateOrganization(ctx, "Acme")
	must(t, err)
	loc, err := svc.CreateLocation(ctx, org.ID, "HQ")
	must(t, err)
	door, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Front door")
	must(t, err)
	_, _, err = svc.CreateAlertRule(ctx, org.ID, gatehouse.AlertRuleInput{Name: ptr("Any denial"),
		Condition: &gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, GroupBy: gatehouse.AlertByPlatformUser, Threshold: 1, WindowSeconds: 60,
			Filters: map[string]string{"type": "ACCESS_DENIED"}},
		Destination: &gatehouse.AlertDestination{Format: gatehouse.AlertDiscord, URL: recv.srv.URL}})
	must(t, err)
	var wg sync.WaitGroup
	for i, a := range instances {
		wg.Go(func() {
			a.Service.RunAlerts(ctx, "instance-"+strconv.Itoa(i), func(err error) { t.Errorf("alerts: %v", err) })
		})
	}
	defer func() { stop(); wg.Wait() }()

	const players = 50
	sent := map[string]time.Time{}
	for i := range players {
		player := strconv.Itoa(1000 + i)
		denied := gatehouse.Denied
		sent[player] = time.Now()
		_, err := svc.IngestEvents(ctx, org.ID, []gatehouse.NewEvent{{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied,
			OccurredAt: time.Now(), AccessPointID: door.ID, Allowed: &denied, PlatformUserID: &player}})
		must(t, err)
		time.Sleep(100 * time.Millisecond)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(arrived)
		mu.Unlock()
		if n == players {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d alerts arrived", n, players)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if repeats != 0 {
		t.Errorf("%d alerts arrived twice", repeats)
	}
	var took []time.Duration
	for p, at := range arrived {
		took = append(took, at.Sub(sent[p]))
	}
	slices.Sort(took)
	pct := func(p float64) time.Duration { return took[min(len(took)-1, int(p*float64(len(took))))] }
	t.Logf("alert latency, crossing event stored → receiver, %d alerts, 2 instances: p50 %v, p90 %v, p99 %v, max %v",
		len(took), pct(0.50).Round(time.Millisecond), pct(0.90).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
}
