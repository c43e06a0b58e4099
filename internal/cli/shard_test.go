package cli_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestShards runs the commands and a server on three primaries
// (GATEHOUSE_SHARDS): organizations are placed on the shards, `shard
// list` says where, a command without the shards is refused rather than
// act on the wrong database, and a shard that goes down fails its
// organization's requests with a 503 while the other's are served.
func TestShards(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	others := testenv.ShardDSNs(t)
	u, err := url.Parse(others[0])
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	shardList := u.String() + "," + others[1]
	g.env["GATEHOUSE_SHARDS"] = shardList

	down, newDownKey := seedCluster(t, g)
	up, newUpKey := seedCluster(t, g)
	downKey, upKey := newDownKey(), newUpKey()

	var list []struct {
		ID            string
		Main          bool
		Organizations int
		Up            bool
	}
	g.json(&list, "shard", "list")
	if len(list) != 3 || !list[0].Main || list[0].Organizations != 0 || list[1].Organizations != 1 || list[2].Organizations != 1 || !list[1].Up {
		t.Errorf("shard list: %+v; want --db empty and one organization on each shard", list)
	}

	delete(g.env, "GATEHOUSE_SHARDS")
	if _, _, err := g.run(nil, "org", "list"); !errors.Is(err, app.ErrShardsNeeded) {
		t.Errorf("org list without --shards: %v, want it refused", err)
	}
	g.env["GATEHOUSE_SHARDS"] = shardList
	var orgs []record
	g.json(&orgs, "org", "list")
	if len(orgs) != 2 || orgs[0].ID != down || orgs[1].ID != up {
		t.Errorf("org list: %+v", orgs)
	}

	in := startServe(t, "--db", g.db, "--shards", shardList)
	for _, k := range []string{downKey.Key, upKey.Key} {
		if r := in.get(t, "/api/consumer/v1/events", k); r.status != 200 || !strings.Contains(r.body, `"data"`) {
			t.Fatalf("before the outage: %d %s", r.status, r.body)
		}
	}
	proxy.Cut()
	time.Sleep(600 * time.Millisecond) // past the key cache, so the lookup needs the shard
	if r := in.get(t, "/api/consumer/v1/events", downKey.Key); r.status != 503 || !strings.Contains(r.body, `"code":"unavailable"`) {
		t.Errorf("the down shard's organization: %d %s, want a 503", r.status, r.body)
	}
	if r := in.get(t, "/api/consumer/v1/events", upKey.Key); r.status != 200 {
		t.Errorf("the other organization during the outage: %d %s", r.status, r.body)
	}
	if r := in.get(t, "/readyz", ""); r.status != 200 {
		t.Errorf("readyz with one shard down: %d %s; the instance serves the others", r.status, r.body)
	}
	proxy.Restore(t)
	deadline := time.Now().Add(10 * time.Second)
	for r := in.get(t, "/api/consumer/v1/events", downKey.Key); r.status != 200; r = in.get(t, "/api/consumer/v1/events", downKey.Key) {
		if time.Now().After(deadline) {
			t.Fatalf("the shard is back, its organization still gets %d %s", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// shard move, while serve runs: the instance follows the directory,
	// and the organization's key reads its events from the other shard.
	out, _, err := g.run(nil, "shard", "move", down, list[2].ID)
	if err != nil || !strings.Contains(out, "moved organization "+down) {
		t.Fatalf("shard move: %v\n%s", err, out)
	}
	g.json(&list, "shard", "list")
	if list[1].Organizations != 0 || list[2].Organizations != 2 {
		t.Errorf("shard list after the move: %+v; want both organizations on the second shard", list)
	}
	if r := in.get(t, "/api/consumer/v1/events", downKey.Key); r.status != 200 || !strings.Contains(r.body, `"data"`) {
		t.Errorf("the moved organization, served: %d %s", r.status, r.body)
	}
	if _, _, err := g.run(nil, "shard", "move", down, "not-an-id"); err == nil {
		t.Error("shard move to a shard that is not an id: no error")
	}
}

// TestUsageHidesPasswords: the usage a mistyped flag prints shows the
// databases of the environment without their passwords.
func TestUsageHidesPasswords(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_DB"] = "postgres://gh:dbsecret@db0.internal/gatehouse"
	g.env["GATEHOUSE_SHARDS"] = "postgres://gh:shardsecret@db1.internal/gatehouse,postgres://gh:othersecret@db2.internal/gatehouse"
	out, stderr, err := g.run(nil, "shard", "list", "--bogus")
	if err == nil {
		t.Fatal("a mistyped flag was accepted")
	}
	for _, secret := range []string{"dbsecret", "shardsecret", "othersecret"} {
		if strings.Contains(out+stderr, secret) {
			t.Errorf("the usage shows a password (%s):\n%s", secret, stderr)
		}
	}
	if !strings.Contains(stderr, "db1.internal") {
		t.Errorf("the usage does not show the shards' addresses:\n%s", stderr)
	}
}
