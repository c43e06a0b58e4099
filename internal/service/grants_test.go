package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// TestGrantsReachAnotherInstance: an instance that decided while the
// organization held no grant decides GRANT within a few seconds of a
// grant made on another instance, and denies again after its
// revocation there: grants wake every instance, not only syncs.
func TestGrantsReachAnotherInstance(t *testing.T) {
	var db gatehouse.Store
	f := newServiceOn(t, nil, func(s gatehouse.Store) gatehouse.Store { db = s; return s })
	ctx := context.Background()
	loc, err := f.svc.CreateLocation(ctx, f.org.ID, "HQ")
	must(t, err)
	door, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Door")
	must(t, err)
	other := service.New(service.Config{Store: db, Secret: []byte("0123456789abcdef0123456789abcdef"), Now: func() time.Time { return f.now }})
	watching, stop := context.WithCancel(ctx)
	defer stop()
	go other.RunCommands(watching, "other", func(error) {})

	decide := func() gatehouse.Decision {
		t.Helper()
		res, err := other.Decide(ctx, f.org.ID, gatehouse.DecisionRequest{AccessPointID: door.ID,
			DecisionInput: gatehouse.DecisionInput{PlatformUserID: "156"}})
		must(t, err)
		return res.Decision
	}
	waitFor := func(what, reason string) {
		t.Helper()
		for start := time.Now(); decide().Reason != reason; time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: the other instance still decides %+v after 5 s", what, decide())
			}
		}
	}
	if d := decide(); d.Allowed != gatehouse.Denied {
		t.Fatalf("before the grant: %+v", d)
	}
	until := gatehouse.Time(f.now.Add(time.Hour))
	g, created, err := f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "156", AccessPointIDs: []uuid.UUID{door.ID}, Until: &until})
	must(t, err)
	if !created || !g.Active {
		t.Fatalf("created %v %+v", created, g)
	}
	waitFor("the grant", gatehouse.ReasonGrant)
	_, err = f.svc.RevokeGrant(ctx, f.org.ID, g.ID)
	must(t, err)
	waitFor("the revocation", gatehouse.ReasonAccessPointDisabled)
}
