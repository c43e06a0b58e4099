package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

func open(t *testing.T, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (gatehouse.Store, *func() time.Time) {
		db := open(t, testenv.PostgresDSN(t))
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return db, &db.Now
	})
}

// TestUnreadablePolicy: a policy body the store cannot decode, written
// behind its back, hurts only its own access point.
func TestUnreadablePolicy(t *testing.T) {
	open := func(t *testing.T) (gatehouse.Store, *func() time.Time) {
		db := open(t, testenv.PostgresDSN(t))
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return db, &db.Now
	}
	storetest.RunUnreadablePolicy(t, open, func(t *testing.T, s gatehouse.Store, ap uuid.UUID, body string) {
		err := s.(*postgres.DB).ExecForTest(context.Background(), `UPDATE policies SET body = $1
			WHERE access_point_id = $2 AND version = (SELECT policy_version FROM access_points WHERE id = $2)`, body, ap)
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestConcurrentMigrate(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		db := open(t, dsn)
		wg.Go(func() { errs[i] = db.Migrate(context.Background()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("concurrent migrate: %v", err)
		}
	}
	if err := open(t, dsn).Migrate(context.Background()); err != nil {
		t.Fatalf("migrating an up-to-date schema: %v", err)
	}
}

func TestUnreachableDatabaseIsUnavailableQuickly(t *testing.T) {
	testenv.PostgresURL(t) // only where PostgreSQL tests run
	start := time.Now()
	_, err := postgres.Open(context.Background(), "postgres://postgres@127.0.0.1:1/test?connect_timeout=2")
	if !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Fatalf("Open on a closed port: %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v to fail", d)
	}
}

func TestStatementTimeoutIsUnavailable(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	if err := open(t, dsn).Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	db := open(t, dsn+"&statement_timeout=50")
	err := db.SleepForTest(context.Background(), time.Second)
	if !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Fatalf("a statement over statement_timeout: %v, want ErrUnavailable", err)
	}
}

// TestJITIsOff: statements run without JIT unless the URL asks for it.
func TestJITIsOff(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	for _, c := range []struct{ dsn, want string }{{dsn, "off"}, {dsn + "&jit=on", "on"}} {
		v, err := open(t, c.dsn).StringForTest(context.Background(), "SHOW jit")
		if err != nil || v != c.want {
			t.Errorf("jit with %s: %q, %v; want %q", strings.TrimPrefix(c.dsn, dsn), v, err, c.want)
		}
	}
}

// TestMigrationsOutlastTheStatementTimeout: a migration runs as long as
// its data needs (a rollup built from every event of a large database):
// the requests' statement timeout does not cut it short. Under 20 ms,
// the first migration (every table) and the partitioning of events would
// be; 1 ms also cut the statement that lifts the timeout on a loaded
// machine.
func TestMigrationsOutlastTheStatementTimeout(t *testing.T) {
	db := open(t, testenv.PostgresDSN(t)+"&statement_timeout=20")
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrating under a 20 ms statement timeout: %v", err)
	}
}

// TestReplicaServesOnlyTheLists cuts the replica: the lists fail with
// ErrUnavailable while key lookups and writes, on the primary, go on.
func TestReplicaServesOnlyTheLists(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	db := open(t, dsn)
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(dsn)
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	if err := db.UseReplica(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 10}); err != nil {
		t.Fatalf("list through the replica: %v", err)
	}
	proxy.Cut()
	if _, err := db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 10}); !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("events with the replica gone: %v, want ErrUnavailable", err)
	}
	if _, _, err := db.ListLocations(ctx, org.ID, 10, nil, false, nil); !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("locations with the replica gone: %v, want ErrUnavailable", err)
	}
	if _, err := db.FindAPIKeyByHash(ctx, gatehouse.KeyHash{}); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("key lookup with the replica gone: %v, want the primary's ErrNotFound", err)
	}
	if _, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ"); err != nil {
		t.Errorf("write with the replica gone: %v", err)
	}
}
