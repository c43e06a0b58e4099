package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestGrantRoundTrip: a game server's key grants a purchase through the
// client (created, then the same receipt again, not created), the
// server's sync carries it, and an operator's program lists and revokes
// it.
func TestGrantRoundTrip(t *testing.T) {
	a := apitest.Start(t, generous)
	ctx := context.Background()
	ops := newClient(t, a)
	server := serverClient(t, a)
	receipt := "156_99_abc"
	req := client.GrantRequest{PlatformUserID: "156", AccessPointIDs: []string{a.AccessPointID.String()},
		Until: a.Clock.Now().Add(24 * time.Hour), Source: &client.GrantSource{Type: "DEVELOPER_PRODUCT", ReceiptID: &receipt}}
	g, created, err := server.CreateGrant(ctx, req)
	must(t, err)
	if !created || !g.Active || g.CreatedByKey == nil || g.Source.ReceiptID == nil || *g.Source.ReceiptID != receipt {
		t.Fatalf("created %v %+v", created, g)
	}
	again, created, err := server.CreateGrant(ctx, req)
	must(t, err)
	if created || again.ID != g.ID {
		t.Errorf("the same receipt: created %v, %s; want %s", created, again.ID, g.ID)
	}
	zero := 0
	res, err := server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Players: []string{"156"}, WaitSeconds: &zero})
	must(t, err)
	if len(res.Grants) != 1 || res.Grants[0].ID != g.ID {
		t.Errorf("sync grants %+v", res.Grants)
	}
	active := true
	var listed []string
	for gr, err := range ops.Grants(ctx, client.GrantQuery{PlatformUserID: "156", Active: &active, Limit: 1}) {
		must(t, err)
		listed = append(listed, gr.ID)
	}
	if len(listed) != 1 || listed[0] != g.ID {
		t.Errorf("listed %v", listed)
	}
	revoked, err := ops.RevokeGrant(ctx, g.ID)
	must(t, err)
	if revoked.RevokedAt == nil || revoked.Active {
		t.Errorf("revoked %+v", revoked)
	}
	_, err = ops.Grant(ctx, "01a203e2-9b00-7000-8a1b-2c3d4e5f6a01")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("an unknown grant: %v", err)
	}
	manual := req
	manual.Source = nil
	if _, _, err := server.CreateGrant(ctx, manual); !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Errorf("a server key's manual grant: %v", err)
	}
}
