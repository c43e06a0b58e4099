package auth_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

// countingStore is the real store, counting the calls auth makes.
type countingStore struct {
	gatehouse.Store
	lookups, writes atomic.Int32
}

func (s *countingStore) FindAPIKeyByHash(ctx context.Context, h gatehouse.KeyHash) (gatehouse.APIKey, error) {
	s.lookups.Add(1)
	return s.Store.FindAPIKeyByHash(ctx, h)
}

func (s *countingStore) MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) error {
	s.writes.Add(1)
	return s.Store.MarkAPIKeysUsed(ctx, used)
}

type fixture struct {
	store *countingStore
	db    *sqlite.DB
	now   time.Time
	auth  *auth.Authenticator
	org   gatehouse.Organization
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "auth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: &countingStore{Store: db}, db: db, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	db.Now = func() time.Time { return f.now }
	f.auth = auth.New(f.store, func() time.Time { return f.now })
	if f.org, err = db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) key(t *testing.T, edit func(*gatehouse.APIKey)) (string, gatehouse.APIKey) {
	t.Helper()
	raw, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: f.org.ID, Name: "k", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: f.now}
	if edit != nil {
		edit(&k)
	}
	if err := f.db.CreateAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
		t.Fatal(err)
	}
	return raw, k
}

func reason(err error) string {
	var f *auth.Failure
	if errors.As(err, &f) {
		return f.Reason
	}
	return "not a failure: " + err.Error()
}

func TestMalformedTokensNeverReachTheStore(t *testing.T) {
	f := newFixture(t)
	raw, _ := f.key(t, nil)
	for name, header := range map[string]string{
		"missing":        "",
		"basic":          "Basic " + raw,
		"no token":       "Bearer",
		"bad prefix":     "Bearer xk_" + raw[3:],
		"bad checksum":   "Bearer " + otherLast(raw),
		"short":          "Bearer " + raw[:20],
		"trailing words": "Bearer " + raw + " extra",
	} {
		_, err := f.auth.Authenticate(context.Background(), header, nil)
		want := "malformed"
		if header == "" {
			want = "missing"
		}
		if got := reason(err); got != want {
			t.Errorf("%s: reason %q, want %q", name, got, want)
		}
		if strings.Contains(err.Error(), raw) {
			t.Errorf("%s: the error contains the token", name)
		}
	}
	if n := f.store.lookups.Load(); n != 0 {
		t.Errorf("%d store lookups for malformed tokens", n)
	}
}

func TestAuthenticate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, k := f.key(t, nil)
	for _, h := range []string{"Bearer " + raw, "bearer " + raw, "BEARER   " + raw} {
		got, err := f.auth.Authenticate(ctx, h, nil)
		if err != nil || got.ID != k.ID || got.OrgID != f.org.ID {
			t.Fatalf("%q: %v %v", h, got.ID, err)
		}
	}
	if n := f.store.lookups.Load(); n != 1 {
		t.Errorf("%d lookups for three uses within the cache TTL, want 1", n)
	}
	unknown, _, _ := gatehouse.GenerateKey()
	if _, err := f.auth.Authenticate(ctx, "Bearer "+unknown, nil); reason(err) != "unknown" {
		t.Errorf("unknown key: %v", err)
	}
}

func TestRevocationAndExpiryApplyWithinTheCacheTTL(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, k := f.key(t, nil)
	expiring, _ := f.key(t, func(k *gatehouse.APIKey) { exp := f.now.Add(time.Second); k.ExpiresAt = &exp })
	for _, r := range []string{raw, expiring} {
		if _, err := f.auth.Authenticate(ctx, "Bearer "+r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.db.RevokeAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyRevoked), k.OrgID, k.ID, f.now); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(auth.CacheTTL)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+raw, nil); reason(err) != "revoked" {
		t.Errorf("revoked key after the cache TTL: %v", err)
	}
	f.now = f.now.Add(time.Second)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+expiring, nil); reason(err) != "expired" {
		t.Errorf("expired key, even cached: %v", err)
	}
}

func TestLastUsedIsWrittenInBatchesAtMostOnceAMinute(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	raw, k := f.key(t, nil)
	raw2, k2 := f.key(t, nil)
	for range 50 {
		f.auth.Authenticate(ctx, "Bearer "+raw, nil)
		f.auth.Authenticate(ctx, "Bearer "+raw2, nil)
	}
	if err := f.auth.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := f.store.writes.Load(); n != 1 {
		t.Fatalf("%d writes for 100 uses of two keys, want 1", n)
	}
	lastUsed := func(id uuid.UUID) *time.Time {
		keys, _ := f.db.ListAPIKeys(ctx, f.org.ID)
		for _, k := range keys {
			if k.ID == id {
				return k.LastUsedAt
			}
		}
		return nil
	}
	if got := lastUsed(k.ID); got == nil || !got.Equal(f.now) {
		t.Errorf("lastUsedAt = %v", got)
	}
	// Used again 30 s later: not written before a minute has passed.
	f.now = f.now.Add(30 * time.Second)
	f.auth.Authenticate(ctx, "Bearer "+raw, nil)
	f.auth.Flush(ctx)
	if n := f.store.writes.Load(); n != 1 {
		t.Errorf("written again within a minute (%d writes)", n)
	}
	f.now = f.now.Add(31 * time.Second)
	f.auth.Flush(ctx)
	if got := lastUsed(k.ID); f.store.writes.Load() != 2 || got == nil || !got.Equal(f.now.Add(-31*time.Second)) {
		t.Errorf("after a minute: %d writes, lastUsedAt %v", f.store.writes.Load(), got)
	}
	if got := lastUsed(k2.ID); got == nil {
		t.Error("second key never written")
	}
}

func BenchmarkAuthenticateCached(b *testing.B) {
	ctx := context.Background()
	db, _ := sqlite.Open(ctx, filepath.Join(b.TempDir(), "auth.db"))
	defer db.Close()
	db.Migrate(ctx)
	org, _ := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	raw, prefix, hash := gatehouse.GenerateKey()
	db.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: org.ID, Name: "k", Prefix: prefix, Hash: hash,
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: time.Now()})
	a := auth.New(db, time.Now)
	for b.Loop() {
		if _, err := a.Authenticate(ctx, "Bearer "+raw, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// otherLast changes a key's last checksum character, so the checksum fails.
func otherLast(raw string) string {
	if raw[40] == 'A' {
		return raw[:40] + "B"
	}
	return raw[:40] + "A"
}
