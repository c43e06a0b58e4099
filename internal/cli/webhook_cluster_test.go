package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// slowReceiver is a webhook endpoint that takes a while over each
// delivery and notes any two that overlap.
type slowReceiver struct {
	mu       sync.Mutex
	inFlight int
	overlaps int
	got      []string // event ids, in the order received
}

func (s *slowReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	if s.inFlight > 1 {
		s.overlaps++
	}
	s.mu.Unlock()
	time.Sleep(15 * time.Millisecond)
	var m struct{ Data struct{ ID string } }
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &m)
	s.mu.Lock()
	s.inFlight--
	s.got = append(s.got, m.Data.ID)
	s.mu.Unlock()
}

// firsts returns the distinct ids received, in the order first received.
func (s *slowReceiver) firsts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	seen := map[string]bool{}
	for _, id := range s.got {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// TestWebhooksAcrossInstances: an instance killed (SIGKILL) with
// deliveries in flight loses none: another takes the endpoint over when
// its lease ends; two instances delivering to one endpoint never send
// at once; the receiver gets every event, first in feed order.
func TestWebhooksAcrossInstances(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	recv := &slowReceiver{}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	var o, loc, ap, hook, key record
	g.json(&o, "org", "create", "--name", "Hooks")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Door")
	g.json(&hook, "webhook", "create", "--org", o.ID, "--url", srv.URL+"/hook", "--webhooks-allow-private")
	g.json(&key, "key", "create", "--org", o.ID, "--name", "reader", "--scopes", "events:read")
	importEvents := func(n, from int) {
		t.Helper()
		var lines []string
		for i := range n {
			lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_GRANTED","occurredAt":"`+eventDay+`T00:%02d:%02dZ","accessPointId":%q}`, (from+i)/60, (from+i)%60, ap.ID))
		}
		if out, stderr, err := g.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", o.ID, "-"); err != nil {
			t.Fatalf("import: %v %s %s", err, out, stderr)
		}
	}
	args := []string{"--db", g.db, "--webhooks-allow-private", "--webhooks-lease", "3s"}
	wait := func(n int, what string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for len(recv.firsts()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d events delivered after 60 s", what, len(recv.firsts()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	a := startServe(t, args...)
	importEvents(150, 0)
	wait(30, "before the kill")
	if err := a.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, the lease stays
		t.Fatal(err)
	}
	a.cmd.Wait()
	killedAt := len(recv.firsts())
	b, c := startServe(t, args...), startServe(t, args...)
	wait(150, "after the kill")
	importEvents(150, 150)
	wait(300, "with two instances")

	// The feed's order, read from one of them.
	var want []string
	cursor := ""
	for {
		var page struct {
			Data       []struct{ ID string }
			NextCursor string
		}
		r := b.get(t, "/api/consumer/v1/events/feed?limit=500&after="+cursor, key.Key)
		if err := json.Unmarshal([]byte(r.body), &page); err != nil || r.status != 200 {
			t.Fatalf("feed: %d %s", r.status, r.body)
		}
		for _, e := range page.Data {
			want = append(want, e.ID)
		}
		if len(page.Data) == 0 {
			break
		}
		cursor = page.NextCursor
	}
	if got := recv.firsts(); !slices.Equal(got, want) {
		t.Errorf("first deliveries are not the feed's %d events in order (%d delivered)", len(want), len(got))
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if recv.overlaps != 0 {
		t.Errorf("%d deliveries overlapped another", recv.overlaps)
	}
	t.Logf("killed after %d events; %d requests for %d events (repeats after the kill: %d)", killedAt, len(recv.got), len(want), len(recv.got)-len(want))
	_ = c
}

// TestBenchWebhooks: the lag benchmark creates its endpoint on a running
// server, and every event it sends arrives verified.
func TestBenchWebhooks(t *testing.T) {
	g := newGH(t)
	g.json(&record{}, "org", "create", "--name", "Migrated")
	in := startServe(t, "--db", g.db, "--webhooks-allow-private", "--webhooks-lease", "3s")
	var st struct{ Sent, Delivered, Repeats, Unverified int }
	g.json(&st, "bench", "webhooks", "--url", in.base, "--rate", "200", "--duration", "1s")
	if st.Sent != 200 || st.Delivered != st.Sent || st.Unverified != 0 {
		t.Errorf("bench webhooks = %+v, want 200 sent, all delivered and verified", st)
	}
	// Beside an attack: its endpoints are made, sent tests, and hang.
	var at struct{ Sent, Delivered, Unverified, AttackTests, AttackRequests int }
	g.json(&at, "bench", "webhooks", "--url", in.base, "--rate", "50", "--duration", "1s", "--wait", "20s",
		"--attack", "hang", "--attack-endpoints", "2", "--attack-test-every", "200ms")
	if at.Sent != 50 || at.Delivered != at.Sent || at.Unverified != 0 || at.AttackTests < 2 || at.AttackRequests < 1 {
		t.Errorf("bench webhooks --attack hang = %+v, want 50 sent, all delivered and verified, tests sent and hanging", at)
	}
}
