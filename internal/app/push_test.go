package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/prometheus/client_golang/prometheus"
)

// TestPushIsWired: the built app pushes what its publisher is handed to
// --opencloud-url, with the key an operator's command set for the
// universe (sealed in the database, opened by the service), and its
// Background runs the publisher.
func TestPushIsWired(t *testing.T) {
	ctx := context.Background()
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer platform.Close()
	db, err := app.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	operator := db.Service(time.Now)
	org, err := operator.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	const key = "oc-key-set-by-the-operator-0001"
	if _, err := operator.SetMessaging(ctx, org.ID, "42", key); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, app.Settings{DB: db, Secret: []byte("a pinned secret, for cursors only"), OpenCloudURL: platform.URL})
	if err != nil {
		t.Fatal(err)
	}
	bg, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Background(bg); close(done) }()
	defer func() { stop(); <-done }()
	c := gatehouse.Command{ID: gatehouse.NewID(), Type: gatehouse.CommandUnlock, Scope: gatehouse.ScopeUniverse,
		UniverseID: "42", DurationSeconds: 10}
	a.Publisher.Publish(ctx, org.ID, c)
	select {
	case r := <-got:
		if r.URL.Path != "/messaging-service/v1/universes/42/topics/gatehouse" || r.Header.Get("x-api-key") != key {
			t.Errorf("request %s with x-api-key %q", r.URL.Path, r.Header.Get("x-api-key"))
		}
		var body struct{ Message string }
		if err := json.Unmarshal(<-bodies, &body); err != nil {
			t.Fatal(err)
		}
		var m struct{ ID string }
		if err := json.Unmarshal([]byte(body.Message), &m); err != nil || m.ID != c.ID.String() {
			t.Errorf("message %q", body.Message)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing was pushed to --opencloud-url")
	}
}

// pushFixture is an app built on a fresh SQLite file whose Open Cloud is
// platform, its Background running, an organization, a door maker and a
// commands:write key's context.
type pushFixture struct {
	svc   *service.Service
	reg   *prometheus.Registry
	org   gatehouse.Organization
	asKey context.Context
}

func newPushFixture(t *testing.T, platform http.Handler) *pushFixture {
	t.Helper()
	ctx := context.Background()
	srv := httptest.NewServer(platform)
	t.Cleanup(srv.Close)
	db, err := app.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg := prometheus.NewRegistry()
	a, err := app.New(ctx, app.Settings{DB: db, OpenCloudURL: srv.URL, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	bg, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Background(bg); close(done) }()
	t.Cleanup(func() { stop(); <-done })
	org, err := a.Service.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := a.Service.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "ops", Scopes: []gatehouse.Scope{gatehouse.ScopeCommandsWrite}})
	if err != nil {
		t.Fatal(err)
	}
	return &pushFixture{svc: a.Service, reg: reg, org: org,
		asKey: gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: k.ID, OrgID: org.ID})}
}

// door is an access point of a location in universe.
func (f *pushFixture) door(t *testing.T, universe string) gatehouse.AccessPoint {
	t.Helper()
	ctx := context.Background()
	loc, err := f.svc.CreateLocation(ctx, f.org.ID, "HQ "+universe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetLocationUniverse(ctx, f.org.ID, loc.ID, universe); err != nil {
		t.Fatal(err)
	}
	ap, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Door")
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// count reads gatehouse_opencloud_publish_total{outcome}.
func (f *pushFixture) count(outcome string) float64 {
	families, _ := f.reg.Gather()
	for _, fam := range families {
		if fam.GetName() != "gatehouse_opencloud_publish_total" {
			continue
		}
		for _, m := range fam.GetMetric() {
			if m.GetLabel()[0].GetValue() == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestIssuingPublishes: a command issued through the built service for a
// universe with a key reaches --opencloud-url; one for a universe without
// a key is skipped, and the issue does not wait for either.
func TestIssuingPublishes(t *testing.T) {
	ctx := context.Background()
	got := make(chan string, 4)
	f := newPushFixture(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Message string }
		json.NewDecoder(r.Body).Decode(&body)
		got <- r.URL.Path + " " + r.Header.Get("x-api-key") + " " + body.Message
	}))
	svc, asKey := f.svc, f.asKey
	door := func(universe string) gatehouse.AccessPoint { return f.door(t, universe) }
	org := f.org
	pushed, silent := door("42"), door("43")
	const key = "oc-key-of-universe-42-000000"
	if _, err := svc.SetMessaging(ctx, org.ID, "42", key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.IssueCommand(asKey, org.ID, gatehouse.CommandRequest{AccessPointID: silent.ID, Scope: gatehouse.ScopeUniverse}, ""); err != nil {
		t.Fatal(err)
	}
	c, _, err := svc.IssueCommand(asKey, org.ID, gatehouse.CommandRequest{AccessPointID: pushed.ID, Scope: gatehouse.ScopeUniverse, DurationSeconds: 30}, "")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case line := <-got:
		want := "/messaging-service/v1/universes/42/topics/gatehouse " + key + ` {"id":"` + c.ID.String() + `","type":"UNLOCK","accessPointId":"` + pushed.ID.String() + `","scope":"UNIVERSE"`
		if !strings.HasPrefix(line, want) || !strings.Contains(line, `"durationSeconds":30`) {
			t.Errorf("pushed %s\nwant   %s…", line, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the command was not pushed")
	}
	// The universe without a key was skipped, and nothing else sent.
	counts := func() (sent, skipped float64) { return f.count("sent"), f.count("skipped") }
	for deadline := time.Now().Add(5 * time.Second); ; {
		sent, skipped := counts()
		if sent == 1 && skipped == 1 && len(got) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sent %v and skipped %v, %d more pushes; want 1, 1 and none", sent, skipped, len(got))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFailingPushDoesNotFailTheCommand: the platform answers 500 to every
// publish; issuing still answers the stored, PENDING command at once, the
// publisher gives up after its retries and counts the failure, and sync
// remains the way the command reaches its servers.
func TestFailingPushDoesNotFailTheCommand(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	f := newPushFixture(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "platform down", http.StatusInternalServerError)
	}))
	ap := f.door(t, "42")
	if _, err := f.svc.SetMessaging(ctx, f.org.ID, "42", "oc-key-of-universe-42-000000"); err != nil {
		t.Fatal(err)
	}
	c, _, err := f.svc.IssueCommand(f.asKey, f.org.ID, gatehouse.CommandRequest{AccessPointID: ap.ID, Scope: gatehouse.ScopeUniverse}, "")
	if err != nil || c.Status != gatehouse.CommandPending {
		t.Fatalf("issue with the platform down: %v, %+v", err, c)
	}
	for deadline := time.Now().Add(20 * time.Second); f.count("failed") != 1; {
		if time.Now().After(deadline) {
			t.Fatalf("no failure counted after %d calls", calls.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, err := f.svc.FindCommand(f.asKey, f.org.ID, c.ID); err != nil || got.Status != gatehouse.CommandPending {
		t.Errorf("after the failed push: %v, %s; want the command untouched", err, got.Status)
	}
}
