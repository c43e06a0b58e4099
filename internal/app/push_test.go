package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
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
