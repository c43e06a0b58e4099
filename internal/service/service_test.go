package service_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// fastHasher is a cheap PasswordHasher that counts its runs; the service's
// tests check decisions, not argon2id (internal/password has its tests).
type fastHasher struct {
	hashes, verifies atomic.Int64
	busy             bool
}

func (h *fastHasher) Hash(pw string) (string, error) {
	h.hashes.Add(1)
	sum := sha256.Sum256([]byte(pw))
	return hex.EncodeToString(sum[:]), nil
}

func (h *fastHasher) Verify(ctx context.Context, pw, encoded string) (bool, error) {
	if h.busy {
		return false, gatehouse.ErrHashBusy
	}
	h.verifies.Add(1)
	sum := sha256.Sum256([]byte(pw))
	return hex.EncodeToString(sum[:]) == encoded, nil
}

type serviceFixture struct {
	svc    *service.Service
	hasher *fastHasher
	now    time.Time
	org    gatehouse.Organization
	other  gatehouse.Organization
}

// newService is the service on a fresh, real store: SQLite, or the
// backend GATEHOUSE_TEST_BACKEND names.
func newService(t testing.TB, limiter service.SignInLimiter, edits ...func(*service.Config)) *serviceFixture {
	t.Helper()
	return newServiceOn(t, limiter, func(s gatehouse.Store) gatehouse.Store { return s }, edits...)
}

// newServiceOn is newService on the store that wrap makes of the real
// one: a test that watches what the service asks of it.
func newServiceOn(t testing.TB, limiter service.SignInLimiter, wrap func(gatehouse.Store) gatehouse.Store, edits ...func(*service.Config)) *serviceFixture {
	t.Helper()
	ctx := context.Background()
	f := &serviceFixture{hasher: &fastHasher{}, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return f.now }
	db := wrap(teststore.Open(t, clock))
	cfg := service.Config{Store: db, Secret: []byte("0123456789abcdef0123456789abcdef"),
		Hasher: f.hasher, SignInLimiter: limiter, Now: clock}
	for _, edit := range edits {
		edit(&cfg)
	}
	f.svc = service.New(cfg)
	var err error
	if f.org, err = f.svc.CreateOrganization(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	if f.other, err = f.svc.CreateOrganization(ctx, "Rival"); err != nil {
		t.Fatal(err)
	}
	return f
}

func wantIssues(t *testing.T, what string, err error, fields ...string) {
	t.Helper()
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, gatehouse.ErrInvalid) {
		t.Fatalf("%s: %v, want a *ValidationError", what, err)
	}
	var got []string
	for f := range ve.Issues {
		got = append(got, f)
	}
	slices.Sort(got)
	if !slices.Equal(got, fields) {
		t.Fatalf("%s: issues %v, want %v", what, got, fields)
	}
}

func TestServiceCreatesKeys(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	exp := f.now.Add(30 * 24 * time.Hour)
	k, raw, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: " sync ",
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeEventsRead}, ExpiresAt: &exp})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := gatehouse.ParseKey(raw)
	if err != nil || hash != k.Hash || !strings.HasPrefix(raw, k.Prefix) {
		t.Errorf("the raw key does not match the stored hash and prefix: %v", err)
	}
	if k.ID == uuid.Nil || k.Name != "sync" || !k.CreatedAt.Equal(f.now) || len(k.Scopes) != 1 || !k.ExpiresAt.Equal(exp) {
		t.Errorf("created %+v", k)
	}
	past := f.now.Add(-time.Second)
	_, _, err = f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "", Scopes: []gatehouse.Scope{"events:delete"}, ExpiresAt: &past})
	wantIssues(t, "every problem at once", err, "expiresAt", "name", "scopes")
	if err := f.svc.CheckAPIKey(gatehouse.NewAPIKey{Name: "x"}); err == nil {
		t.Error("CheckAPIKey accepted a key without scopes")
	}
	_, _, err = f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: gatehouse.NewID(), Name: "x", Scopes: gatehouse.Scopes})
	if !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("key of an unknown organization: %v", err)
	}
}

// TestServiceRevokesOnlyTheOrganizationsKeys: a key is addressed by its
// organization and id; another organization's id is unknown.
func TestServiceRevokesOnlyTheOrganizationsKeys(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	k, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "k", Scopes: gatehouse.Scopes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.RevokeAPIKey(ctx, f.other.ID, k.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatalf("revoke through another organization: %v", err)
	}
	if _, err := f.svc.FindAPIKey(ctx, f.other.ID, k.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatalf("find through another organization: %v", err)
	}
	if got, _ := f.svc.FindAPIKey(ctx, f.org.ID, k.ID); got.RevokedAt != nil {
		t.Fatal("another organization revoked the key")
	}
	owner, err := f.svc.OrgOfAPIKey(ctx, k.ID)
	if err != nil || owner != f.org.ID {
		t.Fatalf("OrgOfAPIKey = %v, %v", owner, err)
	}
	f.now = f.now.Add(time.Minute)
	revoked, err := f.svc.RevokeAPIKey(ctx, owner, k.ID)
	if err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(f.now) {
		t.Fatalf("revoke: %+v %v", revoked.RevokedAt, err)
	}
}

func TestServiceRenamesAndFindsOwners(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	o, err := f.svc.RenameOrganization(ctx, f.org.ID, "  Acme Studios ")
	if err != nil || o.Name != "Acme Studios" || o.ID != f.org.ID {
		t.Fatalf("rename: %+v %v", o, err)
	}
	_, err = f.svc.RenameOrganization(ctx, f.org.ID, "\x1b[2J")
	wantIssues(t, "escape sequence in a name", err, "name")
	loc, err := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	ap, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Front door")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateAccessPoint(ctx, f.other.ID, loc.ID, "Sneaky"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("access point under another organization's location: %v", err)
	}
	if owner, err := f.svc.OrgOfLocation(ctx, loc.ID); err != nil || owner != f.org.ID {
		t.Errorf("OrgOfLocation = %v, %v", owner, err)
	}
	if owner, err := f.svc.OrgOfAccessPoint(ctx, ap.ID); err != nil || owner != f.org.ID {
		t.Errorf("OrgOfAccessPoint = %v, %v", owner, err)
	}
	aps, err := f.svc.ListAccessPoints(ctx, f.org.ID, loc.ID, false)
	if err != nil || len(aps) != 1 || aps[0].ID != ap.ID {
		t.Errorf("ListAccessPoints = %v, %v", aps, err)
	}
	if _, err := f.svc.ListAccessPoints(ctx, f.other.ID, loc.ID, false); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("ListAccessPoints through another organization: %v", err)
	}
	if _, _, err := f.svc.ListLocations(ctx, f.org.ID, 0, nil, false); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("ListLocations with limit 0: %v", err)
	}
	// The cursor of a page is bound to its organization.
	if _, err := f.svc.CreateLocation(ctx, f.org.ID, "Club"); err != nil {
		t.Fatal(err)
	}
	_, next, err := f.svc.ListLocations(ctx, f.org.ID, 1, nil, false)
	if err != nil || next == nil {
		t.Fatalf("first page: %v %v", next, err)
	}
	cursor := f.svc.LocationCursor(f.org.ID, *next, false)
	if k, err := f.svc.OpenLocationCursor(f.org.ID, cursor, false); err != nil || k != *next {
		t.Errorf("OpenLocationCursor = %v, %v", k, err)
	}
	if _, err := f.svc.OpenLocationCursor(f.other.ID, cursor, false); err == nil {
		t.Error("another organization opened the cursor")
	}
	// And to whether the list holds archived locations.
	if _, err := f.svc.OpenLocationCursor(f.org.ID, cursor, true); err == nil {
		t.Error("the list with archived locations opened the cursor of the list without")
	}
}

// TestServiceIngestErrorsAreIndexed: the problems of a batch come back by
// event index, whether the decoding or the store found them, and still
// read as the API's events[i].field issues.
func TestServiceIngestErrorsAreIndexed(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	loc, _ := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	ap, _ := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Door")
	rivalLoc, _ := f.svc.CreateLocation(ctx, f.other.ID, "HQ")
	rivalAP, _ := f.svc.CreateAccessPoint(ctx, f.other.ID, rivalLoc.ID, "Door")
	event := func(ap uuid.UUID) json.RawMessage {
		return json.RawMessage(`{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"` + ap.String() + `"}`)
	}
	_, err := f.svc.DecodeEvents([]json.RawMessage{event(ap.ID), json.RawMessage(`{"type":"NOPE"}`)})
	var ie *gatehouse.IngestError
	if !errors.As(err, &ie) || !slices.Equal(ie.Indexes(), []int{1}) || !errors.Is(err, gatehouse.ErrInvalid) {
		t.Fatalf("decoding: %v", err)
	}
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) || ve.Issues["events[1].type"] == nil {
		t.Fatalf("decoding: the issues are not keyed events[1].type: %v", err)
	}
	events, err := f.svc.DecodeEvents([]json.RawMessage{event(ap.ID), event(rivalAP.ID), event(ap.ID)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.IngestEvents(ctx, f.org.ID, events)
	if !errors.As(err, &ie) || !slices.Equal(ie.Indexes(), []int{1}) || ie.Events[1].Issues["accessPointId"] == nil {
		t.Fatalf("ingest: %v", err)
	}
	if res, err := f.svc.IngestEvents(ctx, f.org.ID, []gatehouse.NewEvent{events[0], events[2]}); err != nil || res.Accepted != 2 {
		t.Fatalf("ingest of the good events: %+v %v", res, err)
	}
	ev, err := f.svc.FindEvent(ctx, f.org.ID, events[0].ID)
	if err != nil || ev.ID != events[0].ID {
		t.Errorf("FindEvent = %v, %v", ev.ID, err)
	}
	if _, err := f.svc.FindEvent(ctx, f.other.ID, events[0].ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("FindEvent through another organization: %v", err)
	}
}

func TestServiceUsersAndSignIn(t *testing.T) {
	var refunds atomic.Int64
	allowed := true
	limiter := func(ctx context.Context, email, network string) (func(context.Context), time.Duration, bool) {
		return func(context.Context) { refunds.Add(1) }, time.Minute, allowed
	}
	f := newService(t, limiter)
	ctx := context.Background()
	_, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "nope", Password: "short"})
	wantIssues(t, "bad user", err, "email", "password")
	u, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: " Ops@Acme.test ", Name: "Ops", Password: "correct horse battery"})
	if err != nil || u.Email != "ops@acme.test" {
		t.Fatalf("create: %+v %v", u, err)
	}
	if _, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"}); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a taken email: %v", err)
	}

	session, token, who, err := f.svc.SignIn(ctx, "OPS@acme.test", "correct horse battery", "192.0.2.0/24")
	if err != nil || who.ID != u.ID || token == "" || refunds.Load() != 1 {
		t.Fatalf("sign-in: %v %v (refunds %d)", who.ID, err, refunds.Load())
	}
	if s, _, err := f.svc.FindSession(ctx, token); err != nil || s.UserID != u.ID || s.CSRF != session.CSRF {
		t.Fatalf("FindSession: %+v %v", s, err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "ops@acme.test", "wrong password!!", ""); !errors.Is(err, gatehouse.ErrBadCredentials) || refunds.Load() != 1 {
		t.Errorf("wrong password: %v (refunds %d: a failure is not given back)", err, refunds.Load())
	}
	allowed = false
	_, _, _, err = f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", "")
	var retry *gatehouse.RetryError
	if !errors.As(err, &retry) || !errors.Is(err, gatehouse.ErrSignInLimited) || retry.After != time.Minute {
		t.Errorf("limited: %v", err)
	}
	allowed, f.hasher.busy = true, true
	if _, _, _, err := f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", ""); !errors.Is(err, gatehouse.ErrHashBusy) || !errors.As(err, &retry) {
		t.Errorf("hashing busy: %v", err)
	}
	f.hasher.busy = false

	if _, err := f.svc.SetPassword(ctx, uuid.Nil, "ops@acme.test", "another long password"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.FindSession(ctx, token); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a new password left the session alive: %v", err)
	}
	_, token, _, err = f.svc.SignIn(ctx, "ops@acme.test", "another long password", "")
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := f.svc.FindSession(ctx, token)
	if err := f.svc.SignOut(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.FindSession(ctx, token); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("signed out, the session lives: %v", err)
	}
}

// TestServiceHashesTheDummyOnlyWhenNeeded: the dummy hash that makes an
// unknown email as slow as a wrong password costs a full argon2id run. It
// is made on the first sign-in of an unknown email, once, and never by a
// service that signs no one in.
func TestServiceHashesTheDummyOnlyWhenNeeded(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	if n := f.hasher.hashes.Load(); n != 0 {
		t.Fatalf("a new service hashed %d times", n)
	}
	for range 3 {
		if _, _, _, err := f.svc.SignIn(ctx, "nobody@acme.test", "whatever password", ""); !errors.Is(err, gatehouse.ErrBadCredentials) {
			t.Fatalf("unknown email: %v", err)
		}
	}
	if h, v := f.hasher.hashes.Load(), f.hasher.verifies.Load(); h != 1 || v != 3 {
		t.Errorf("three unknown-email sign-ins: %d hashes, %d verifications; want 1 and 3", h, v)
	}
}

func TestActorTravelsInTheContext(t *testing.T) {
	if a := gatehouse.ActorFrom(context.Background()); a.Type != gatehouse.ActorSystem {
		t.Errorf("no actor: %+v, want the system", a)
	}
	want := gatehouse.Actor{Type: gatehouse.ActorKey, ID: gatehouse.NewID(), Label: "gk_abcdefgh", RequestID: "r1", ClientAddress: "192.0.2.1"}
	if got := gatehouse.ActorFrom(gatehouse.WithActor(context.Background(), want)); !reflect.DeepEqual(got, want) {
		t.Errorf("ActorFrom = %+v, want %+v", got, want)
	}
}

// TestServiceCountsEventsUpToABound: exact up to the bound, bound+1 past
// it, across pages, and never another organization's events.
func TestServiceCountsEventsUpToABound(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	loc, _ := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	ap, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Front door")
	if err != nil {
		t.Fatal(err)
	}
	var events []gatehouse.NewEvent
	for i := range gatehouse.MaxLimit + 20 {
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: new(gatehouse.Denied),
			OccurredAt: f.now.Add(-time.Duration(i) * time.Second), AccessPointID: ap.ID})
	}
	if res, err := f.svc.IngestEvents(ctx, f.org.ID, events); err != nil || res.Accepted != len(events) {
		t.Fatalf("ingest: %d accepted, %v", res.Accepted, err)
	}
	for _, c := range []struct{ bound, want int }{{1000, gatehouse.MaxLimit + 20}, {gatehouse.MaxLimit + 20, gatehouse.MaxLimit + 20},
		{gatehouse.MaxLimit + 19, gatehouse.MaxLimit + 20}, {10, 11}} {
		if n, err := f.svc.CountEventsUpTo(ctx, f.org.ID, gatehouse.EventFilter{Limit: 1}, c.bound); err != nil || n != c.want {
			t.Errorf("bound %d: %d, %v; want %d", c.bound, n, err, c.want)
		}
	}
	if n, err := f.svc.CountEventsUpTo(ctx, f.other.ID, gatehouse.EventFilter{}, 1000); err != nil || n != 0 {
		t.Errorf("another organization: %d, %v; want 0", n, err)
	}
}
