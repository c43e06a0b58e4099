package apitest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

// Clock is a settable time shared by a test API's store, limiter and server.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads t until advanced.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// API is a real Gatehouse server on a fresh SQLite file, listening on
// loopback, with one organization, one location (in universe 42), one
// access point and a key with every scope. It is for tests of clients.
type API struct {
	URL           string
	Key           string // every scope
	OrgID         uuid.UUID
	AccessPointID uuid.UUID
	Store         *sqlite.DB
	Clock         *Clock
	// Client sends to the API. The server checks every exchange against
	// the OpenAPI document, whoever the client is, and fails the test on
	// any mismatch.
	Client *http.Client
	// Requests counts the requests the server received.
	Requests atomic.Int64
}

// Start starts an API whose keys are limited by keyLimit.
func Start(t testing.TB, keyLimit ratelimit.Limit) *API {
	t.Helper()
	ctx := context.Background()
	a := &API{Clock: NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))}
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now, a.Store = a.Clock.Now, db
	must(t, db.Migrate(ctx))
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	must(t, err)
	loc, err := db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org.ID, "HQ")
	must(t, err)
	// The location lives in universe 42, so that its door can be unlocked.
	_, err = db.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org.ID, loc.ID, "42")
	must(t, err)
	ap, err := db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org.ID, loc.ID, "Front door")
	must(t, err)
	a.OrgID, a.AccessPointID = org.ID, ap.ID
	a.Key = a.NewKey(t, gatehouse.Scopes...)
	built, err := app.New(ctx, app.Settings{
		DB:              app.Use(db),
		KeyLimit:        keyLimit,
		FailedAuthLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 100, Per: time.Second}, Burst: 100},
		ReadSlots:       service.NewReadSlots(1000, time.Second), // clients' tests measure the API, not the read bound
		Now:             a.Clock.Now,
	})
	must(t, err)
	checked := Document(t).Handler(t, built.Handler)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Requests.Add(1)
		checked.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	a.URL, a.Client = srv.URL, srv.Client()
	return a
}

// NewKey stores a key of the organization with scopes and returns it raw.
func (a *API) NewKey(t testing.TB, scopes ...gatehouse.Scope) string {
	t.Helper()
	raw, prefix, hash := gatehouse.GenerateKey()
	must(t, a.Store.CreateAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: a.OrgID,
		Name: "test", Prefix: prefix, Hash: hash, Scopes: scopes, CreatedAt: a.Clock.Now()}))
	return raw
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
