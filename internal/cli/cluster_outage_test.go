package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

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
