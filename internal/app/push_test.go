package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
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

// TestIssuingPublishes: a command issued through the built service for a
// universe with a key reaches --opencloud-url; one for a universe without
// a key is skipped, and the issue does not wait for either.
func TestIssuingPublishes(t *testing.T) {
	ctx := context.Background()
	got := make(chan string, 4)
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Message string }
		json.NewDecoder(r.Body).Decode(&body)
		got <- r.URL.Path + " " + r.Header.Get("x-api-key") + " " + body.Message
	}))
	defer platform.Close()
	db, err := app.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := prometheus.NewRegistry()
	a, err := app.New(ctx, app.Settings{DB: db, OpenCloudURL: platform.URL, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	bg, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Background(bg); close(done) }()
	defer func() { stop(); <-done }()
	svc := a.Service
	org, err := svc.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	door := func(universe string) gatehouse.AccessPoint {
		loc, err := svc.CreateLocation(ctx, org.ID, "HQ "+universe)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SetLocationUniverse(ctx, org.ID, loc.ID, universe); err != nil {
			t.Fatal(err)
		}
		ap, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Door")
		if err != nil {
			t.Fatal(err)
		}
		return ap
	}
	pushed, silent := door("42"), door("43")
	const key = "oc-key-of-universe-42-000000"
	if _, err := svc.SetMessaging(ctx, org.ID, "42", key); err != nil {
		t.Fatal(err)
	}
	k, _, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "ops", Scopes: []gatehouse.Scope{gatehouse.ScopeCommandsWrite}})
	if err != nil {
		t.Fatal(err)
	}
	asKey := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: k.ID, OrgID: org.ID})
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
	counts := func() (sent, skipped float64) {
		families, _ := reg.Gather()
		for _, f := range families {
			if f.GetName() != "gatehouse_opencloud_publish_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				switch m.GetLabel()[0].GetValue() {
				case "sent":
					sent = m.GetCounter().GetValue()
				case "skipped":
					skipped = m.GetCounter().GetValue()
				}
			}
		}
		return sent, skipped
	}
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
