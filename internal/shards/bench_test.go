package shards_test

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// BenchmarkRouting: what the router adds to a request. Each pair runs the
// same store method on the organization's own primary directly and
// through the router (three primaries; the directory cached as it is on a
// serving instance):
//
//	go test -run '^$' -bench Routing -benchtime 2000x ./internal/shards
func BenchmarkRouting(b *testing.B) {
	r, _, others := openRouter(b)
	org := createOrg(b, r, "Acme")
	loc, err := r.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	if err != nil {
		b.Fatal(err)
	}
	k := gatehouse.APIKey{ID: uuid.New(), OrgID: org.ID, Name: "k", Prefix: "gk_bench", Hash: gatehouse.KeyHash{7},
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: time.Now()}
	if err := r.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
		b.Fatal(err)
	}
	direct := openDB(b, others[0]) // the first shard, where Acme was placed
	for _, s := range []struct {
		name  string
		store gatehouse.Store
	}{{"direct", direct}, {"router", r}} {
		b.Run("FindLocation/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.store.FindLocation(ctx, org.ID, loc.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A key not in the service's cache: the router asks every primary.
		b.Run("FindAPIKeyByHash/"+s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.store.FindAPIKeyByHash(ctx, k.Hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
