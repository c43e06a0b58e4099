package cli_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestLockdownAcrossInstances runs two serve processes on one
// PostgreSQL: a game server long-polls instance B and a lockdown is
// started on A; B answers the waiting poll with its LOCKDOWN command and
// B's decisions answer LOCKDOWN (its cached decision context was dropped
// by the same wake); released on A, B decides by the policy again. A
// second lockdown with an until is released at that until once, by the
// system, though both instances run the loop that releases it.
func TestLockdownAcrossInstances(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	var o, loc, ap, key record
	g.json(&o, "org", "create", "--name", "Cluster")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ", "--universe-id", "4242")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Door")
	g.json(&key, "key", "create", "--org", o.ID, "--name", "game", "--scopes", "server,commands:write,audit:read")
	a, b := startServe(t, "--db", g.db), startServe(t, "--db", g.db)
	decide := func() string {
		t.Helper()
		r := b.do(t, "POST", "/api/consumer/v1/decisions", key.Key, fmt.Sprintf(`{"accessPointId":%q,"platformUserId":"77"}`, ap.ID))
		var d struct{ Reason string }
		if r.status != 200 || json.Unmarshal([]byte(r.body), &d) != nil {
			t.Fatalf("decide on B: %d %s", r.status, r.body)
		}
		return d.Reason
	}
	if got := decide(); got == "LOCKDOWN" {
		t.Fatalf("before any lockdown: %s", got)
	}

	cursor := syncOn(t, b, key.Key, "job-b", "", 0, "").Cursor
	polled := make(chan syncAnswer, 1)
	go func() { polled <- syncOn(t, b, key.Key, "job-b", cursor, 8, "") }()
	time.Sleep(300 * time.Millisecond) // let the poll start waiting
	r := a.do(t, "POST", "/api/consumer/v1/lockdowns", key.Key, fmt.Sprintf(`{"scope":"LOCATION","locationId":%q,"reason":"Raid"}`, loc.ID))
	var l struct{ ID string }
	if r.status != 201 || json.Unmarshal([]byte(r.body), &l) != nil {
		t.Fatalf("lockdown on A: %d %s", r.status, r.body)
	}
	var got syncAnswer
	select {
	case got = <-polled:
	case <-time.After(8 * time.Second):
		t.Fatal("the poll on B never answered")
	}
	if len(got.Commands) != 1 {
		t.Fatalf("B delivered %+v, want the LOCKDOWN command", got.Commands)
	}
	if reason := decide(); reason != "LOCKDOWN" {
		t.Errorf("B decides %s under the lockdown", reason)
	}
	if r := a.do(t, "POST", "/api/consumer/v1/lockdowns/"+l.ID+"/release", key.Key, ""); r.status != 200 {
		t.Fatalf("release on A: %d %s", r.status, r.body)
	}
	waitFor(t, "B to decide without the lockdown", func() bool { return decide() != "LOCKDOWN" })

	until := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	r = a.do(t, "POST", "/api/consumer/v1/lockdowns", key.Key, `{"scope":"ORGANIZATION","reason":"Drill","until":"`+until+`"}`)
	if r.status != 201 || json.Unmarshal([]byte(r.body), &l) != nil {
		t.Fatalf("second lockdown: %d %s", r.status, r.body)
	}
	waitFor(t, "the until to release it", func() bool {
		var shown struct{ Active bool }
		r := b.get(t, "/api/consumer/v1/lockdowns/"+l.ID, key.Key)
		return r.status == 200 && json.Unmarshal([]byte(r.body), &shown) == nil && !shown.Active &&
			strings.Contains(r.body, `"releasedBy":{"type":"system"}`)
	})
	time.Sleep(2 * time.Second) // both loops ran again
	var log struct{ Data []struct{ Action string } }
	r = a.get(t, "/api/consumer/v1/audit-log?action=lockdown.released&targetId="+l.ID, key.Key)
	if r.status != 200 || json.Unmarshal([]byte(r.body), &log) != nil || len(log.Data) != 1 {
		t.Errorf("lockdown.released entries of the until: %d %s", r.status, r.body)
	}
}

// waitFor polls done for up to 10 s.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for start := time.Now(); !done(); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}
