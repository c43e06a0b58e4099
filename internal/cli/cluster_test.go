package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// instance is one "gatehouse serve" process.
type instance struct {
	base string
	cmd  *exec.Cmd
}

// startServe runs gatehouse serve with args and waits for it to listen.
// It is stopped with SIGTERM when t ends.
func startServe(t *testing.T, args ...string) *instance {
	t.Helper()
	cmd := exec.Command(gatehouseBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	select {
	case a := <-listeningAddr(stderr):
		return &instance{base: "http://" + a, cmd: cmd}
	case <-time.After(20 * time.Second):
		t.Fatal("gatehouse serve did not start")
	}
	return nil
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (in *instance) get(t *testing.T, path, key string) reply {
	t.Helper()
	return in.do(t, "GET", path, key, "")
}

func (in *instance) do(t *testing.T, method, path, key, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(method, in.base+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(b)}
}

// seedCluster creates an organization with events and returns its id,
// an access point id and a function that creates events:read keys.
func seedCluster(t *testing.T, g *gh) (org string, newKey func() record) {
	t.Helper()
	var o, loc, ap record
	g.json(&o, "org", "create", "--name", "Cluster")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Door")
	var lines []string
	for i := range 5 {
		lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_GRANTED","occurredAt":"`+eventDay+`T00:00:0%dZ","accessPointId":%q}`, i, ap.ID))
	}
	var sum summary
	out, _, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", o.ID, "-", "--json")
	if err != nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Imported != 5 {
		t.Fatalf("import: %v %s", err, out)
	}
	return o.ID, func() record {
		var k record
		g.json(&k, "key", "create", "--org", o.ID, "--name", "k", "--scopes", "events:read")
		return k
	}
}

// TestTwoInstancesActAsOne runs two serve processes on one PostgreSQL and
// one Redis: a key's rate limit holds across both, a revocation reaches
// both within a second, and a cursor from one works on the other.
func TestTwoInstancesActAsOne(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	redisURL := testenv.RedisURL(t)
	_, newKey := seedCluster(t, g)
	args := []string{"--db", g.db, "--redis", redisURL, "--rate-limit", "1/m", "--rate-burst", "10"}
	a, b := startServe(t, args...), startServe(t, args...)

	// A cursor issued by one instance is accepted by the other.
	k := newKey()
	var page struct {
		Data       []struct{ ID string }
		NextCursor string
	}
	r := a.get(t, "/api/consumer/v1/events?limit=2", k.Key)
	json.Unmarshal([]byte(r.body), &page)
	first := page.Data
	r = b.get(t, "/api/consumer/v1/events?limit=2&cursor="+url.QueryEscape(page.NextCursor), k.Key)
	json.Unmarshal([]byte(r.body), &page)
	if r.status != 200 || len(page.Data) != 2 || page.Data[0].ID == first[1].ID {
		t.Fatalf("cursor from A on B: %d %s", r.status, r.body)
	}

	// A burst split between the instances is limited as one.
	k = newKey()
	statuses := map[int]int{}
	for i := range 30 {
		in := a
		if i%2 == 1 {
			in = b
		}
		r := in.get(t, "/api/consumer/v1/events?limit=1", k.Key)
		statuses[r.status]++
		if r.status == 429 && r.header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
	if statuses[200] != 10 || statuses[429] != 20 {
		t.Fatalf("30 requests over two instances with burst 10: %v", statuses)
	}

	// A key revoked through the CLI is refused by both within a second.
	k = newKey()
	for _, in := range []*instance{a, b} {
		if r := in.get(t, "/api/consumer/v1/events?limit=1", k.Key); r.status != 200 {
			t.Fatalf("fresh key: %d", r.status)
		}
	}
	var revoked record
	g.json(&revoked, "key", "revoke", k.ID)
	revokedAt := time.Now()
	for _, in := range []*instance{a, b} {
		for {
			r := in.get(t, "/api/consumer/v1/events?limit=1", k.Key)
			if r.status == 401 {
				break
			}
			if time.Since(revokedAt) > time.Second {
				t.Fatalf("%s still accepts a key revoked %v ago (%d)", in.base, time.Since(revokedAt), r.status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestRateChangeReachesEveryInstance: a key's rate changed through the
// CLI, then through the API of one instance, applies on both within a
// second, as a revocation does.
func TestRateChangeReachesEveryInstance(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	redisURL := testenv.RedisURL(t)
	orgID, newKey := seedCluster(t, g)
	args := []string{"--db", g.db, "--redis", redisURL, "--rate-limit", "1/m", "--rate-burst", "2"}
	a, b := startServe(t, args...), startServe(t, args...)
	var manager record
	g.json(&manager, "key", "create", "--org", orgID, "--name", "keys", "--scopes", "keys:write")
	k := newKey()
	for _, in := range []*instance{a, b} {
		in.get(t, "/api/consumer/v1/events?limit=1", k.Key)
	}
	if r := a.get(t, "/api/consumer/v1/events?limit=1", k.Key); r.status != 429 {
		t.Fatalf("past the shared burst of 2: %d", r.status)
	}
	// within polls every instance until each answers as want says.
	within := func(what string, want func(reply) bool) {
		t.Helper()
		changed := time.Now()
		for _, in := range []*instance{a, b} {
			for {
				r := in.get(t, "/api/consumer/v1/events?limit=1", k.Key)
				if want(r) {
					break
				}
				if time.Since(changed) > time.Second {
					t.Fatalf("%s: %s still answers %d, RateLimit-Policy %q, %v after the change", what, in.base, r.status, r.header.Get("RateLimit-Policy"), time.Since(changed))
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	var changed record
	g.json(&changed, "key", "set-rate", k.ID, "--rate-limit", "100/s")
	within("raised through the CLI", func(r reply) bool {
		return r.status == 200 && r.header.Get("RateLimit-Policy") == `"default";q=200;w=2`
	})
	if r := a.do(t, "PATCH", "/api/consumer/v1/keys/"+k.ID, manager.Key, `{"rateLimit":"1/m"}`); r.status != 200 {
		t.Fatalf("PATCH through A: %d %s", r.status, r.body)
	}
	within("lowered through A's API", func(r reply) bool {
		return r.header.Get("RateLimit-Policy") == `"default";q=2;w=120`
	})
}

// TestRedisDownStillServes points an instance at a Redis that is not
// there: requests are answered with per-process limits, never a 5xx.
func TestRedisDownStillServes(t *testing.T) {
	g := newGH(t)
	testenv.RedisURL(t) // a Redis-backed test: skip or fail with the others
	_, newKey := seedCluster(t, g)
	k := newKey()
	// One request a minute after the burst: on a loaded machine the ten
	// requests may take longer than the 50 ms in which the default 20/s
	// would give one more back.
	in := startServe(t, "--db", g.db, "--redis", "redis://127.0.0.1:1/0", "--rate-burst", "5", "--rate-limit", "1/m")
	statuses := map[int]int{}
	for range 10 {
		statuses[in.get(t, "/api/consumer/v1/events?limit=1", k.Key).status]++
	}
	if statuses[200] != 5 || statuses[429] != 5 {
		t.Fatalf("with Redis down: %v, want the per-process burst of 5 then 429s", statuses)
	}
}

// TestPostgresOutage cuts the database away from a running instance:
// readiness fails, API calls get a JSON 503 quickly, and service returns
// by itself when the database is back.
func TestPostgresOutage(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	_, newKey := seedCluster(t, g)
	k := newKey()
	u, _ := url.Parse(g.db)
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	in := startServe(t, "--db", u.String())
	if r := in.get(t, "/api/consumer/v1/events", k.Key); r.status != 200 {
		t.Fatalf("before the outage: %d", r.status)
	}

	proxy.Cut()
	time.Sleep(600 * time.Millisecond) // past the key cache, so the lookup needs the database
	start := time.Now()
	if r := in.get(t, "/readyz", ""); r.status != 503 || !strings.Contains(r.body, `"unavailable"`) {
		t.Errorf("readyz during the outage: %d %s", r.status, r.body)
	}
	r := in.get(t, "/api/consumer/v1/events", k.Key)
	if r.status != 503 || !strings.Contains(r.body, `"code":"unavailable"`) {
		t.Errorf("API during the outage: %d %s", r.status, r.body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("outage answers took %v", d)
	}

	proxy.Restore(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if in.get(t, "/readyz", "").status == 200 && in.get(t, "/api/consumer/v1/events", k.Key).status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the instance did not recover after the database came back")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// writerOnPostgres makes an organization with one access point on a
// fresh PostgreSQL database, and a key that reads and writes events.
func writerOnPostgres(t *testing.T) (g *gh, ap, key record) {
	t.Helper()
	g = newGH(t)
	g.db = testenv.PostgresDSN(t)
	var o, loc record
	g.json(&o, "org", "create", "--name", "Writer")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Door")
	g.json(&key, "key", "create", "--org", o.ID, "--name", "k", "--scopes", "events:read,events:write")
	return g, ap, key
}

// TestIngestSurvivesAnOutage cuts the database while a batch of 1,000
// events is being stored: the batch is then stored whole or not at all,
// the service recovers by itself, and retrying the batch (its events have
// ids) never stores an event twice.
func TestIngestSurvivesAnOutage(t *testing.T) {
	g, ap, k := writerOnPostgres(t)
	u, _ := url.Parse(g.db)
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	in := startServe(t, "--db", u.String(), "--rate-burst", "1000")

	var events []string
	for i := range 1000 {
		events = append(events, fmt.Sprintf(`{"id":%q,"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"`+eventDay+`T00:%02d:%02dZ","accessPointId":%q,"platformUserId":"%d"}`,
			uuid.NewString(), i/60, i%60, ap.ID, i))
	}
	batch := `{"events":[` + strings.Join(events, ",") + `]}`
	type result struct{ Accepted, Duplicates int }
	post := func() (reply, result) {
		r := in.do(t, "POST", "/api/consumer/v1/events", k.Key, batch)
		var res result
		if r.status == 200 {
			json.Unmarshal([]byte(r.body), &res)
		}
		return r, res
	}

	done := make(chan reply, 1)
	go func() { r, _ := post(); done <- r }()
	time.Sleep(5 * time.Millisecond) // the batch is on its way to the database
	proxy.Cut()
	first := <-done
	if first.status != 200 && first.status != 503 {
		t.Fatalf("the batch cut off: %d %s", first.status, first.body)
	}
	proxy.Restore(t)

	var retry result
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r, res := post()
		if r.status == 200 {
			retry = res
			break
		}
		if r.status != 503 || time.Now().After(deadline) {
			t.Fatalf("retrying after the outage: %d %s", r.status, r.body)
		}
	}
	if retry.Accepted+retry.Duplicates != 1000 || (retry.Accepted != 0 && retry.Accepted != 1000) {
		t.Fatalf("first attempt %d, retry %+v: a batch is stored whole or not at all", first.status, retry)
	}
	if _, again := post(); again != (result{Accepted: 0, Duplicates: 1000}) {
		t.Errorf("a second retry: %+v", again)
	}
	stored := 0
	for cursor := ""; ; {
		r := in.get(t, "/api/consumer/v1/events?limit=500&cursor="+url.QueryEscape(cursor), k.Key)
		var page struct {
			Data       []json.RawMessage
			NextCursor *string
		}
		if r.status != 200 || json.Unmarshal([]byte(r.body), &page) != nil {
			t.Fatalf("listing: %d %s", r.status, r.body)
		}
		stored += len(page.Data)
		if page.NextCursor == nil {
			break
		}
		cursor = *page.NextCursor
	}
	if stored != 1000 {
		t.Errorf("%d events stored, want exactly the batch's 1000", stored)
	}
	t.Logf("first attempt answered %d; the retry stored %d and counted %d duplicates", first.status, retry.Accepted, retry.Duplicates)
}

// TestSlowDatabaseTimesOut holds a lock on the events table, so every
// query on it waits: requests answer 503 within the statement timeout
// instead of hanging, a write waiting on it stores nothing, and the
// service is whole again as soon as the lock goes.
func TestSlowDatabaseTimesOut(t *testing.T) {
	g, ap, k := writerOnPostgres(t)
	u, _ := url.Parse(g.db)
	q := u.Query()
	q.Set("statement_timeout", "500")
	u.RawQuery = q.Encode()
	in := startServe(t, "--db", u.String())
	event := fmt.Sprintf(`{"events":[{"id":%q,"type":"ACCESS_GRANTED","occurredAt":"`+eventDay+`T00:00:00Z","accessPointId":%q}]}`, uuid.NewString(), ap.ID)
	if r := in.get(t, "/api/consumer/v1/events", k.Key); r.status != 200 {
		t.Fatalf("before: %d %s", r.status, r.body)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, g.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE events IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, body string }{{"GET", ""}, {"POST", event}} {
		start := time.Now()
		r := in.do(t, c.method, "/api/consumer/v1/events", k.Key, c.body)
		if took := time.Since(start); r.status != 503 || r.header.Get("Retry-After") == "" || took > 5*time.Second {
			t.Errorf("%s while the table is locked: %d after %v, Retry-After %q: %s", c.method, r.status, took, r.header.Get("Retry-After"), r.body)
		}
	}
	tx.Rollback(ctx)

	if r := in.get(t, "/api/consumer/v1/events", k.Key); r.status != 200 || strings.Contains(r.body, "ACCESS_GRANTED") {
		t.Errorf("after the lock: %d %s (the timed-out write must not be stored)", r.status, r.body)
	}
	if r := in.do(t, "POST", "/api/consumer/v1/events", k.Key, event); r.status != 200 || !strings.Contains(r.body, `"accepted":1`) {
		t.Errorf("the write again: %d %s", r.status, r.body)
	}
}
