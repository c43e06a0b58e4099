package shards_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/shards"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// openRouter opens a Router on a schema of its own on the --db server and
// on each shard's (GATEHOUSE_TEST_SHARDS); it is closed when t ends.
func openRouter(t testing.TB) (*shards.Router, string, []string) {
	t.Helper()
	main, others := testenv.PostgresDSN(t), testenv.ShardDSNs(t)
	r, _ := openRouterOn(t, main, others)
	return r, main, others
}

// openRouterOn opens a Router on main and others; it is closed when t
// ends.
func openRouterOn(t testing.TB, main string, others []string) (*shards.Router, error) {
	t.Helper()
	r, err := shards.Open(context.Background(), main, others)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, nil
}

// TestStore: the store suite on three primaries. Organizations are placed
// on the shards, so every method of one runs away from --db.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (gatehouse.Store, *func() time.Time) {
		r, _, _ := openRouter(t)
		return r, &r.Now
	})
}
