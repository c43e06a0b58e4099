package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// clock is a settable time shared by the store, the authenticator, the
// limiter and the server of one test.
type clock = apitest.Clock

// env is one running API on a fresh SQLite file.
type env struct {
	t       testing.TB
	handler http.Handler
	store   gatehouse.Store
	clock   *clock
	svc     *service.Service
	logs    *testenv.LogBuffer
	url     string
	client  *http.Client
}

type envOption func(*app.Settings)

// newEnv builds the API as gatehouse serve does (internal/app), on a
// settable clock, with limits high enough that only the tests of limits
// meet them.
func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	ctx := context.Background()
	c := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	db := openStore(t, c.Now)
	logs := &testenv.LogBuffer{}
	settings := app.Settings{
		DB:              app.Use(db),
		Limiter:         ratelimit.NewLocal(c.Now),
		KeyLimit:        ratelimit.Limit{Rate: gatehouse.Rate{Count: 1000, Per: time.Second}, Burst: 1000},
		FailedAuthLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 10, Per: time.Second}, Burst: 20},
		ReadSlots:       service.NewReadSlots(1000, time.Minute), // busy_test sets its own
		Logger:          slog.New(slog.NewJSONHandler(logs, nil)),
		Now:             c.Now,
	}
	for _, o := range opts {
		o(&settings)
	}
	built, err := app.New(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	h := built.Handler
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// Every exchange of the suite is checked against the OpenAPI document.
	client := srv.Client()
	client.Transport = apitest.Document(t).Transport(t, client.Transport)
	return &env{t: t, handler: h, store: db, clock: c, svc: built.Service, logs: logs, url: srv.URL, client: client}
}

// openStore opens a fresh store on the backend GATEHOUSE_TEST_BACKEND
// names; CI runs this package once on each.
func openStore(t testing.TB, now func() time.Time) gatehouse.Store {
	t.Helper()
	return teststore.Open(t, now)
}

// org is an organization with locations, access points, a user and keys.
type org struct {
	gatehouse.Organization
	locations    []gatehouse.Location
	accessPoints []gatehouse.AccessPoint // two per location
	user         gatehouse.User
	readKey      string // events:read
	allKey       string // every scope
}

// newOrg creates an organization whose names, user ids and job ids are the
// same as any other newOrg's: isolation must come from the organization alone.
func (e *env) newOrg(name string) org {
	e.t.Helper()
	ctx := context.Background()
	o := org{}
	var err error
	if o.Organization, err = e.store.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), name); err != nil {
		e.t.Fatal(err)
	}
	for _, ln := range []string{"HQ", "Club"} {
		l, err := e.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), o.ID, ln)
		if err != nil {
			e.t.Fatal(err)
		}
		o.locations = append(o.locations, l)
		for _, an := range []string{"Front door", "VIP area"} {
			ap, err := e.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), o.ID, l.ID, an)
			if err != nil {
				e.t.Fatal(err)
			}
			o.accessPoints = append(o.accessPoints, ap)
		}
	}
	if o.user, err = e.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "ops@" + strings.ToLower(strings.ReplaceAll(name, " ", "")) + ".test", Name: "Ops", PasswordHash: "x"}, nil); err != nil {
		e.t.Fatal(err)
	}
	o.readKey = e.newKey(o.ID, gatehouse.ScopeEventsRead)
	o.allKey = e.newKey(o.ID, gatehouse.Scopes...)
	return o
}

// newKey stores a key with scopes and returns the raw key.
func (e *env) newKey(orgID uuid.UUID, scopes ...gatehouse.Scope) string {
	e.t.Helper()
	return e.newKeyWith(orgID, func(*gatehouse.APIKey) {}, scopes...)
}

func (e *env) newKeyWith(orgID uuid.UUID, edit func(*gatehouse.APIKey), scopes ...gatehouse.Scope) string {
	e.t.Helper()
	raw, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: orgID, Name: "test", Prefix: prefix, Hash: hash,
		Scopes: scopes, CreatedAt: e.clock.Now()}
	edit(&k)
	if err := e.store.CreateAPIKey(context.Background(), gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), k); err != nil {
		e.t.Fatal(err)
	}
	return raw
}

// ingest stores events directly through the store.
func (e *env) ingest(o org, events ...gatehouse.NewEvent) {
	e.t.Helper()
	for i := range events {
		if events[i].ID == uuid.Nil {
			events[i].ID = gatehouse.NewID()
		}
	}
	if _, err := e.store.IngestEvents(context.Background(), o.ID, events); err != nil {
		e.t.Fatal(err)
	}
}

// response is a finished HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// apiError is the JSON error body every error response has.
type apiError struct {
	Error     string              `json:"error"`
	Code      string              `json:"code"`
	RequestID string              `json:"requestId"`
	Issues    map[string][]string `json:"issues"`
}

func (r response) apiError(t testing.TB) apiError {
	t.Helper()
	var e apiError
	r.decode(t, &e)
	if e.Error == "" || e.Code == "" || e.RequestID == "" {
		t.Fatalf("error body %s lacks error, code or requestId", r.body)
	}
	if e.RequestID != r.header.Get("X-Request-Id") {
		t.Fatalf("requestId %q differs from X-Request-Id %q", e.RequestID, r.header.Get("X-Request-Id"))
	}
	return e
}

func (e *env) do(method, path, key string, body io.Reader, header ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func (e *env) get(path, key string) response {
	e.t.Helper()
	return e.do(http.MethodGet, path, key, nil)
}

func (e *env) post(path, key, body string) response {
	e.t.Helper()
	return e.do(http.MethodPost, path, key, strings.NewReader(body), "Content-Type", "application/json")
}

// eventList is the body of GET /events as a client sees it.
type eventList struct {
	Data []struct {
		ID               string  `json:"id"`
		Type             string  `json:"type"`
		OccurredAt       string  `json:"occurredAt"`
		Allowed          *string `json:"allowed"`
		Reason           *string `json:"reason"`
		PlatformUserID   *string `json:"platformUserId"`
		PlatformUserName *string `json:"platformUserName"`
		ServerJobID      *string `json:"serverJobId"`
		Scope            *string `json:"scope"`
		Location         struct{ ID, Name string }
		AccessPoint      struct{ ID, Name string }         `json:"accessPoint"`
		RequestedBy      *struct{ ID, Email, Name string } `json:"requestedBy"`
		Command          *struct {
			ID, Scope, Status string
		} `json:"command"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
	Meta       struct {
		Limit             int      `json:"limit"`
		DateFrom          *string  `json:"dateFrom"`
		DateTo            *string  `json:"dateTo"`
		DateRangeNarrowed bool     `json:"dateRangeNarrowed"`
		Types             []string `json:"types"`
		IgnoredTypes      []string `json:"ignoredTypes"`
	} `json:"meta"`
}

func (l eventList) ids() []string {
	ids := make([]string, len(l.Data))
	for i, d := range l.Data {
		ids[i] = d.ID
	}
	return ids
}

// events GETs /events with a query and expects 200.
func (e *env) events(key, query string) eventList {
	e.t.Helper()
	var l eventList
	e.getOK("/api/consumer/v1/events?"+query, key, &l)
	return l
}

// getOK GETs path, expects 200 and decodes the body into v.
func (e *env) getOK(path, key string, v any) {
	e.t.Helper()
	r := e.get(path, key)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s = %d %s", path, r.status, r.body)
	}
	r.decode(e.t, v)
}

func ptr[T any](v T) *T { return &v }

// ev builds an access attempt at an access point, minutes before the clock.
func (e *env) ev(ap gatehouse.AccessPoint, typ gatehouse.EventType, minutesAgo int) gatehouse.NewEvent {
	n := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: typ, AccessPointID: ap.ID,
		OccurredAt: e.clock.Now().Add(-time.Duration(minutesAgo) * time.Minute)}
	switch typ {
	case gatehouse.EventAccessGranted:
		n.Allowed = ptr(gatehouse.Granted)
	case gatehouse.EventAccessDenied:
		n.Allowed = ptr(gatehouse.Denied)
	case gatehouse.EventRemoteUnlock:
		n.Scope = ptr(gatehouse.ScopeUniverse)
	}
	return n
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var _ = fmt.Sprintf

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
