package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
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
