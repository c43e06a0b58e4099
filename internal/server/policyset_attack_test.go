package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
)

// TestPolicySetAttack measures GET /policies under the attack of issue
// 28: one organization fills a universe with up to 100 access points of
// the largest valid policy (as many as the store takes), then one server
// key sends 16 requests, 8 at a time, while another organization reads
// its first page of events. It reports the answer's size, the process's
// peak RSS before and after, and the other tenant's slowest page; it
// asserts nothing about speed. Run it alone, it is slow and large:
//
//	GATEHOUSE_ATTACK_POLICIES=1 go test -count=1 -run TestPolicySetAttack -v ./internal/server
func TestPolicySetAttack(t *testing.T) {
	if os.Getenv("GATEHOUSE_ATTACK_POLICIES") == "" {
		t.Skip("set GATEHOUSE_ATTACK_POLICIES=1 to run the attack")
	}
	ctx := context.Background()
	// A deadline long enough that every request is served, whatever it
	// costs: the attack is measured by what it takes, not by what is cut.
	e := newEnv(t, func(s *app.Settings) { s.QueryTimeout = 5 * time.Minute })
	o := e.newPolicyOrg("Acme")
	other := e.newOrg("Beta")
	p, err := largestPolicy().Check()
	must(t, err)
	stored := 0
	for i := range 100 {
		ap := o.accessPoints[0]
		if i > 0 {
			ap, err = e.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), o.ID, o.locations[0].ID, fmt.Sprintf("Door %d", i))
			if err != nil {
				t.Logf("access point %d refused: %v", i+1, err)
				break
			}
		}
		if _, err := e.store.PutPolicy(ctx, gatehouse.SystemEntry(gatehouse.AuditPolicyChanged), o.ID, ap.ID, p, nil, e.clock.Now()); err != nil {
			t.Logf("policy %d refused: %v", i+1, err)
			break
		}
		stored++
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 8}}
	get := func(path, key string) (int, int64, time.Duration) {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return 0, 0, 0
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, n, time.Since(start)
	}
	before := vmHWM()
	var (
		wg        sync.WaitGroup
		slots     = make(chan struct{}, 8)
		done      = make(chan struct{})
		size      int64
		statuses  = map[int]int{}
		mu        sync.Mutex
		slowest   time.Duration
		pages     int
		attackDur time.Duration
	)
	go func() {
		defer close(done)
		for {
			status, _, d := get("/api/consumer/v1/events?limit=50", other.readKey)
			mu.Lock()
			pages++
			statuses[1000+status]++ // the other tenant's, apart
			slowest = max(slowest, d)
			finished := attackDur != 0
			mu.Unlock()
			if finished {
				return
			}
			time.Sleep(50 * time.Millisecond) // a person paging, not a flood

		}
	}()
	start := time.Now()
	for range 16 {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			status, n, _ := get("/api/consumer/v1/policies?universeId=42", o.serverKey)
			mu.Lock()
			statuses[status]++
			size = max(size, n)
			mu.Unlock()
		})
	}
	wg.Wait()
	mu.Lock()
	attackDur = time.Since(start)
	mu.Unlock()
	<-done
	t.Logf("%d access points with the largest policy; answer %d bytes; statuses %v (1xxx: the other tenant's); 16 requests in %v", stored, size, statuses, attackDur.Round(time.Millisecond))
	t.Logf("before the attack: %s; after: %s", before, vmHWM())
	t.Logf("the other tenant's first page of events: %d pages, slowest %v", pages, slowest.Round(time.Millisecond))
}
