package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// syncResult is the body of a sync as a game server reads it.
type syncResult struct {
	Commands      []gatehouse.Command `json:"commands"`
	Cursor        string              `json:"cursor"`
	PolicyVersion string              `json:"policyVersion"`
	RejectedAcks  []string            `json:"rejectedAcks"`
	Grants        []gatehouse.Grant   `json:"grants"`
}

// TestUniverseUnlockReachesEveryServer: three game servers long-poll in
// parallel; a UNIVERSE unlock reaches all three waits, two acknowledge it
// EXECUTED and one FAILED, and the command is FAILED by 1 of 3 with each
// server's answer in its delivery.
func TestUniverseUnlockReachesEveryServer(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	jobs := []string{"job-a", "job-b", "job-c"}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  = map[string]syncResult{}
		took = map[string]time.Duration{}
	)
	for _, job := range jobs {
		wg.Go(func() {
			start := time.Now()
			r := e.syncNow(o.serverKey, job, `{"universeId": "42", "players": ["156"], "cursor": null, "waitSeconds": 20}`)
			var res syncResult
			if r.status == 200 {
				r.decode(t, &res)
			} else {
				t.Errorf("long poll of %s: %d %s", job, r.status, r.body)
			}
			mu.Lock()
			got[job], took[job] = res, time.Since(start)
			mu.Unlock()
		})
	}
	e.waitLive(o, len(jobs)) // each sync's heartbeat comes before its wait
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE", "durationSeconds": 30}`, o.accessPoints[0].ID))
	wg.Wait()
	if c.Targets.Live != 3 {
		t.Fatalf("issued with %d live targets, want 3", c.Targets.Live)
	}
	for _, job := range jobs {
		res := got[job]
		if len(res.Commands) != 1 || res.Commands[0].ID != c.ID || res.Commands[0].RemainingSeconds == nil ||
			*res.Commands[0].RemainingSeconds != 30 {
			t.Fatalf("%s received %+v", job, res.Commands)
		}
		if took[job] > 10*time.Second {
			t.Errorf("%s waited %v for the unlock", job, took[job])
		}
	}
	answers := map[string]string{"job-a": `"result": "EXECUTED"`, "job-b": `"result": "EXECUTED"`, "job-c": `"result": "FAILED", "detail": "door jammed"`}
	for _, job := range jobs {
		body := fmt.Sprintf(`{"universeId": "42", "cursor": %q, "waitSeconds": 0, "acks": [{"commandId": %q, %s}]}`, got[job].Cursor, c.ID, answers[job])
		r := e.syncNow(o.serverKey, job, body)
		var res syncResult
		r.decode(t, &res)
		if r.status != 200 || len(res.RejectedAcks) != 0 || len(res.Commands) != 0 {
			t.Fatalf("ack of %s: %d %s", job, r.status, r.body)
		}
	}
	var final gatehouse.Command
	e.get("/api/consumer/v1/commands/"+c.ID.String(), o.cmdKey).decode(t, &final)
	want := gatehouse.CommandTargets{Live: 3, Delivered: 3, Executed: 2, Failed: 1}
	if final.Status != gatehouse.CommandFailed || final.Targets != want || len(final.Deliveries) != 3 ||
		final.FailureReason == nil || !strings.Contains(*final.FailureReason, "1 of 3") {
		t.Errorf("after two EXECUTED and one FAILED: %s (%v) %+v, %d deliveries", final.Status, final.FailureReason, final.Targets, len(final.Deliveries))
	}
	for _, d := range final.Deliveries {
		wantResult := gatehouse.AckExecuted
		if d.ServerJobID == "job-c" {
			wantResult = gatehouse.AckFailed
			if d.Detail == nil || *d.Detail != "door jammed" {
				t.Errorf("job-c's delivery lost its detail: %+v", d)
			}
		}
		if d.Result == nil || *d.Result != wantResult || d.AckedAt == nil || !d.Target {
			t.Errorf("delivery %+v, want result %s", d, wantResult)
		}
	}
	// An ack of a command this server never received changes nothing.
	stray := gatehouse.NewID()
	r := e.syncNow(o.serverKey, "job-a", fmt.Sprintf(`{"universeId": "42", "waitSeconds": 0, "acks": [{"commandId": %q, "result": "FAILED", "detail": "no door"}]}`, stray))
	var res syncResult
	r.decode(t, &res)
	if len(res.RejectedAcks) != 1 || res.RejectedAcks[0] != stray.String() {
		t.Errorf("stray ack: %s", r.body)
	}
}

// TestSyncWaitEndsWithNothing: a sync that finds nothing answers after
// its wait, with no commands.
func TestSyncWaitEndsWithNothing(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	start := time.Now()
	r := e.syncNow(o.serverKey, "job-1", `{"universeId": "42", "waitSeconds": 1}`)
	if r.status != 200 || time.Since(start) < time.Second {
		t.Fatalf("%d after %v: %s", r.status, time.Since(start), r.body)
	}
	var res syncResult
	r.decode(t, &res)
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(res.PolicyVersion) {
		t.Errorf("policyVersion %q is not a policy set's version", res.PolicyVersion)
	}
	body := bytes.Replace(r.body, []byte(res.PolicyVersion), []byte("v"), 1)
	sameJSON(t, "sync", body, `{"commands": [], "cursor": "0", "policyVersion": "v", "rejectedAcks": [], "grants": []}`)
}

// TestSyncOfAnUnknownUniverseIs404: a sync for a universe none of the
// organization's locations names (another organization's included) is a
// 404 universe_not_found that says what to fix, and the server is not
// live: an unlock of it fails at issue.
func TestSyncOfAnUnknownUniverseIs404(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	rival := e.newUnlockOrg("Rival")
	_, err := e.store.SetLocationUniverse(context.Background(), gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet),
		rival.ID, rival.locations[0].ID, "77")
	must(t, err)
	for _, universe := range []string{"43", "77"} {
		r := e.syncNow(o.serverKey, "job-1", `{"universeId": "`+universe+`", "waitSeconds": 0}`)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), `"code":"universe_not_found"`) ||
			!strings.Contains(string(r.body), "universeId of a location") {
			t.Errorf("sync of universe %s: %d %s", universe, r.status, r.body)
		}
	}
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "job-1"}`, o.accessPoints[0].ID))
	if c.Status != gatehouse.CommandFailed {
		t.Errorf("a server refused its sync is live: its unlock is %s", c.Status)
	}
}

// TestSyncOutlastsTheQueryTimeout: a long poll's deadlines are its wait
// plus the query timeout, not the server's write timeout nor the query
// timeout of ordinary requests.
func TestSyncOutlastsTheQueryTimeout(t *testing.T) {
	e := newEnv(t, func(s *app.Settings) { s.QueryTimeout = 500 * time.Millisecond })
	o := e.newUnlockOrg("Acme")
	srv := httptest.NewUnstartedServer(e.handler)
	srv.Config.WriteTimeout = time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	e.url = srv.URL
	e.client = srv.Client()
	e.client.Transport = apitest.Document(t).Transport(t, e.client.Transport)
	r := e.syncNow(o.serverKey, "job-1", `{"universeId": "42", "waitSeconds": 2}`)
	if r.status != 200 {
		t.Fatalf("a 2 s wait with a 0.5 s query timeout and a 1 s write timeout: %d %s", r.status, r.body)
	}
}

// TestSyncEndsWhenTheClientLeaves: the wait of a server that goes away
// ends with its request (logged as 499), not at waitSeconds.
func TestSyncEndsWhenTheClientLeaves(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/api/consumer/v1/servers/job-1/sync",
		strings.NewReader(`{"universeId": "42", "waitSeconds": 30}`))
	req.Header.Set("Authorization", "Bearer "+o.serverKey)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the request did not end with its context")
	}
	for !strings.Contains(e.logs.String(), `"status":499`) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the server still waits 10 s after the client left; log:\n%s", e.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSyncHoldsNoReadSlot: with every event-read slot of the
// organization taken, syncs are still served; they read no events.
func TestSyncHoldsNoReadSlot(t *testing.T) {
	slots := service.NewReadSlots(1, 0)
	e := newEnv(t, func(s *app.Settings) { s.ReadSlots = slots })
	o := e.newUnlockOrg("Acme")
	release, err := slots.Acquire(context.Background(), o.ID)
	must(t, err)
	defer release()
	if r := e.get("/api/consumer/v1/events", o.readKey); r.status != http.StatusTooManyRequests {
		t.Fatalf("events with the slot taken: %d", r.status)
	}
	if r := e.syncNow(o.serverKey, "job-1", `{"universeId": "42", "waitSeconds": 1}`); r.status != 200 {
		t.Fatalf("sync with the slot taken: %d %s", r.status, r.body)
	}
}

// TestSyncWokenByAnotherInstance: a command issued on one instance
// reaches a sync long-polling on another within about a second, through
// the database (LISTEN/NOTIFY, or SQLite's wakes table).
func TestSyncWokenByAnotherInstance(t *testing.T) {
	e := newEnv(t)
	o := e.newUnlockOrg("Acme")
	second, err := app.New(context.Background(), app.Settings{DB: app.Use(e.store), Now: e.clock.Now})
	must(t, err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { second.Background(ctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	other := httptest.NewServer(second.Handler)
	t.Cleanup(other.Close)

	polled := make(chan response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, other.URL+"/api/consumer/v1/servers/job-1/sync",
			strings.NewReader(`{"universeId": "42", "waitSeconds": 20}`))
		req.Header.Set("Authorization", "Bearer "+o.serverKey)
		req.Header.Set("Content-Type", "application/json")
		r := response{}
		if got, err := e.client.Do(req); err == nil {
			r = response{status: got.StatusCode, header: got.Header, body: readAll(t, got)}
		}
		polled <- r
	}()
	e.waitLive(o, 1) // the sync's heartbeat comes before its wait
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "job-1"}`, o.accessPoints[0].ID))
	issued := time.Now()
	r := <-polled
	var got syncResult
	if r.status == 200 {
		r.decode(t, &got)
	}
	if len(got.Commands) != 1 || got.Commands[0].ID != c.ID {
		t.Fatalf("the other instance's long poll: %d %s", r.status, r.body)
	}
	// Within a second, as promised; five, on a loaded test machine.
	if d := time.Since(issued); d > 5*time.Second {
		t.Errorf("the unlock reached the other instance after %v", d)
	}
}

// waitLive returns once n servers of universe 42 are live: a sync records
// its heartbeat just before it waits, so the long polls that made them
// live are waiting (or about to read what is due).
func (e *env) waitLive(o unlockOrg, n int) {
	e.t.Helper()
	for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
		live, err := e.store.LiveServers(context.Background(), o.ID, "42", e.clock.Now().Add(-time.Minute), nil)
		must(e.t, err)
		if len(live) >= n {
			return
		}
		if time.Since(start) > 10*time.Second {
			e.t.Fatalf("%d of %d servers live after 10 s", len(live), n)
		}
	}
}

// syncTake is one sync of job in universe 42 hosting players, that does
// not wait, and its answer.
func (e *env) syncTake(key, job string, players ...string) syncResult {
	e.t.Helper()
	list := "[]"
	if len(players) > 0 {
		list = `["` + strings.Join(players, `","`) + `"]`
	}
	r := e.syncNow(key, job, fmt.Sprintf(`{"universeId": "42", "players": %s, "waitSeconds": 0}`, list))
	var res syncResult
	if r.status != 200 {
		e.t.Fatalf("sync of %s: %d %s", job, r.status, r.body)
	}
	r.decode(e.t, &res)
	return res
}

// TestUnlockScopesOverHTTP: a PLAYER unlock finds the server hosting the
// player and no other; a server that starts during a UNIVERSE unlock
// receives it with the time that remains; a command nobody executes
// expires when the sweep runs; another organization's server with the
// same job id never receives a command and cannot acknowledge it.
func TestUnlockScopesOverHTTP(t *testing.T) {
	e := newEnv(t)
	o, rival := e.newUnlockOrg("Acme"), e.newUnlockOrg("Rival")
	door := o.accessPoints[0].ID
	e.syncTake(o.serverKey, "job-a", "111")
	e.syncTake(o.serverKey, "job-b", "777")
	e.syncTake(rival.serverKey, "job-b", "777")

	player, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "PLAYER", "platformUserId": "777"}`, door))
	if player.Status != gatehouse.CommandPending || player.Targets.Live != 1 {
		t.Fatalf("PLAYER unlock issued %s with %+v", player.Status, player.Targets)
	}
	if got := e.syncTake(o.serverKey, "job-a", "111"); len(got.Commands) != 0 {
		t.Errorf("job-a, not hosting 777, received %v", got.Commands)
	}
	if got := e.syncTake(rival.serverKey, "job-b", "777"); len(got.Commands) != 0 {
		t.Errorf("Rival's job-b received Acme's command: %v", got.Commands)
	}
	if got := e.syncTake(o.serverKey, "job-b", "777"); len(got.Commands) != 1 || got.Commands[0].ID != player.ID {
		t.Fatalf("job-b, hosting 777, received %v", got.Commands)
	}
	r := e.syncNow(rival.serverKey, "job-b", fmt.Sprintf(`{"universeId": "42", "waitSeconds": 0, "acks": [{"commandId": %q, "result": "EXECUTED"}]}`, player.ID))
	var res syncResult
	r.decode(t, &res)
	if len(res.RejectedAcks) != 1 || res.RejectedAcks[0] != player.ID.String() {
		t.Errorf("Rival's ack of Acme's command: %s", r.body)
	}

	// A UNIVERSE unlock of 30 s starts at its first delivery; a server
	// that starts 12 s later gets the 18 s that remain.
	universe, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "UNIVERSE", "durationSeconds": 30}`, door))
	if got := e.syncTake(o.serverKey, "job-a", "111"); len(got.Commands) != 1 || *got.Commands[0].RemainingSeconds != 30 {
		t.Fatalf("job-a took %+v", got.Commands)
	}
	e.clock.Advance(12 * time.Second)
	late := e.syncTake(o.serverKey, "job-new")
	if len(late.Commands) != 1 || late.Commands[0].ID != universe.ID || *late.Commands[0].RemainingSeconds != 18 {
		t.Fatalf("a server that started 12 s into the unlock took %+v", late.Commands)
	}
	var shown gatehouse.Command
	e.get("/api/consumer/v1/commands/"+universe.ID.String(), o.cmdKey).decode(t, &shown)
	if shown.Targets.Joined != 1 || shown.Targets.Live != 2 {
		t.Errorf("after a server joined: %+v", shown.Targets)
	}

	// Nobody answers: past ttlSeconds (60) the sweep expires both.
	e.clock.Advance(60 * time.Second)
	if err := e.svc.SweepCommands(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{player.ID.String(), universe.ID.String()} {
		e.get("/api/consumer/v1/commands/"+id, o.cmdKey).decode(t, &shown)
		if shown.Status != gatehouse.CommandExpired {
			t.Errorf("command %s after its ttl and a sweep: %s", id, shown.Status)
		}
	}
}

// TestNewServersPastTheCapAre409: a new server's first sync while the
// organization holds as many servers as its caps allow is a 409
// too_many_servers that names the caps, and records nothing; a server
// already held syncs on, and another organization is not held back.
func TestNewServersPastTheCapAre409(t *testing.T) {
	saved := gatehouse.OrgServerCaps
	gatehouse.OrgServerCaps = gatehouse.ServerCaps{Servers: 2, Players: 100}
	t.Cleanup(func() { gatehouse.OrgServerCaps = saved })
	e := newEnv(t)
	o, rival := e.newUnlockOrg("Acme"), e.newUnlockOrg("Rival")
	for _, job := range []string{"job-1", "job-2"} {
		if r := e.syncNow(o.serverKey, job, ""); r.status != 200 {
			t.Fatalf("sync of %s: %d %s", job, r.status, r.body)
		}
	}
	r := e.syncNow(o.serverKey, "job-3", "")
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), `"code":"too_many_servers"`) ||
		!strings.Contains(string(r.body), "10000 game servers, or 250000 players") {
		t.Errorf("a third server: %d %s", r.status, r.body)
	}
	if r := e.syncNow(o.serverKey, "job-1", ""); r.status != 200 {
		t.Errorf("a held server at the cap: %d %s", r.status, r.body)
	}
	if r := e.syncNow(rival.serverKey, "job-3", ""); r.status != 200 {
		t.Errorf("another organization's server: %d %s", r.status, r.body)
	}
	c, _ := e.issue(o.cmdKey, fmt.Sprintf(`{"accessPointId": %q, "scope": "SERVER", "serverJobId": "job-3"}`, o.accessPoints[0].ID))
	if c.Status != gatehouse.CommandFailed {
		t.Errorf("a refused server is live: its unlock is %s", c.Status)
	}
}
