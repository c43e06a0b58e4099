package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestArchiveAndDeleteThroughTheClient: an access point archived through
// the client leaves Locations but with WithArchived, its policy is a 409
// until it is restored; a mistake is deleted, a location with access
// points refused with the server's sentence.
func TestArchiveAndDeleteThroughTheClient(t *testing.T) {
	a := apitest.Start(t, generous)
	ctx := context.Background()
	c := newClient(t, a)
	door := a.AccessPointID.String()

	ap, err := c.ArchiveAccessPoint(ctx, door)
	must(t, err)
	if ap.ID != door || ap.ArchivedAt == nil || ap.LocationID == "" || ap.CreatedAt == nil {
		t.Fatalf("archived %+v", ap)
	}
	count := func(opts ...client.LocationOption) (locations, archived int) {
		t.Helper()
		for l, err := range c.Locations(ctx, opts...) {
			must(t, err)
			locations++
			for _, p := range l.AccessPoints {
				if p.ArchivedAt != nil {
					archived++
				}
			}
		}
		return locations, archived
	}
	if _, archived := count(); archived != 0 {
		t.Errorf("Locations lists %d archived access points", archived)
	}
	if _, archived := count(client.WithArchived()); archived != 1 {
		t.Errorf("Locations(WithArchived) lists %d archived access points, want 1", archived)
	}
	_, err = c.SetPolicy(ctx, door, client.Policy{Mode: "OPEN"}, nil)
	var ae *client.Error
	if !errors.As(err, &ae) || ae.Status != 409 || ae.Code != "conflict" || ae.Message != `access point "Front door" is archived: restore it first` {
		t.Errorf("SetPolicy of an archived access point: %v", err)
	}
	if ap, err = c.RestoreAccessPoint(ctx, door); err != nil || ap.ArchivedAt != nil {
		t.Errorf("RestoreAccessPoint = %+v, %v", ap, err)
	}
	if _, err := c.SetPolicy(ctx, door, client.Policy{Mode: "OPEN"}, nil); err != nil {
		t.Errorf("SetPolicy once restored: %v", err)
	}

	loc, err := a.Store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), a.OrgID, "Mistake")
	must(t, err)
	mistake, err := a.Store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), a.OrgID, loc.ID, "Mistake")
	must(t, err)
	if err := c.DeleteLocation(ctx, loc.ID.String()); !errors.As(err, &ae) || ae.Status != 409 {
		t.Errorf("DeleteLocation with an access point: %v", err)
	}
	archived, err := c.ArchiveLocation(ctx, loc.ID.String())
	if err != nil || archived.ArchivedAt == nil || len(archived.AccessPoints) != 1 {
		t.Errorf("ArchiveLocation = %+v, %v", archived, err)
	}
	if restored, err := c.RestoreLocation(ctx, loc.ID.String()); err != nil || restored.ArchivedAt != nil {
		t.Errorf("RestoreLocation = %+v, %v", restored, err)
	}
	must(t, c.DeleteAccessPoint(ctx, mistake.ID.String()))
	must(t, c.DeleteLocation(ctx, loc.ID.String()))
	if err := c.DeleteLocation(ctx, loc.ID.String()); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("DeleteLocation of a deleted location: %v", err)
	}
}
