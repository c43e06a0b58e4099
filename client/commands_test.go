package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestRemoteUnlockRoundTrip: a game server syncs through the client, an
// operator's program issues an unlock through it, the server receives it
// in its long poll and acknowledges it, and the command reads EXECUTED.
func TestRemoteUnlockRoundTrip(t *testing.T) {
	a := apitest.Start(t, generous)
	ctx := context.Background()
	ops := newClient(t, a)
	server, err := client.New(a.URL, a.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite), client.WithHTTPClient(a.Client))
	must(t, err)
	zero, wait := 0, 20
	first, err := server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Players: []string{"156"}, WaitSeconds: &zero})
	must(t, err)
	if len(first.Commands) != 0 || first.Cursor == "" {
		t.Fatalf("first sync: %+v", first)
	}
	var (
		wg      sync.WaitGroup
		polled  *client.SyncResult
		pollErr error
	)
	wg.Go(func() {
		polled, pollErr = server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Players: []string{"156"}, Cursor: first.Cursor, WaitSeconds: &wait})
	})
	cmd, replayed, err := ops.IssueCommand(ctx, client.CommandRequest{AccessPointID: a.AccessPointID.String(), Scope: "PLAYER",
		PlatformUserID: "156", DurationSeconds: 15, Note: "Courier"}, client.WithIdempotencyKey("order-1"))
	must(t, err)
	if replayed || cmd.Status != "PENDING" || cmd.Targets.Live != 1 || cmd.IssuedByKey == nil || len(cmd.Deliveries) != 1 {
		t.Fatalf("issued %+v, replayed %v", cmd, replayed)
	}
	again, replayed, err := ops.IssueCommand(ctx, client.CommandRequest{AccessPointID: a.AccessPointID.String(), Scope: "PLAYER",
		PlatformUserID: "156", DurationSeconds: 15, Note: "Courier"}, client.WithIdempotencyKey("order-1"))
	must(t, err)
	if !replayed || again.ID != cmd.ID {
		t.Errorf("retry: %s, replayed %v", again.ID, replayed)
	}
	wg.Wait()
	must(t, pollErr)
	if len(polled.Commands) != 1 || polled.Commands[0].ID != cmd.ID || *polled.Commands[0].RemainingSeconds != 15 {
		t.Fatalf("long poll: %+v", polled)
	}
	acked, err := server.Sync(ctx, "job-1", client.SyncRequest{UniverseID: "42", Players: []string{"156"}, Cursor: polled.Cursor,
		WaitSeconds: &zero, Acks: []client.Ack{{CommandID: cmd.ID, Result: "EXECUTED"}}})
	must(t, err)
	if len(acked.RejectedAcks) != 0 {
		t.Errorf("ack rejected: %+v", acked)
	}
	got, err := ops.Command(ctx, cmd.ID)
	must(t, err)
	if got.Status != "EXECUTED" || got.Targets != (client.CommandTargets{Live: 1, Delivered: 1, Executed: 1}) ||
		len(got.Deliveries) != 1 || got.Deliveries[0].Result == nil || *got.Deliveries[0].Result != "EXECUTED" {
		t.Errorf("after the ack: %+v", got)
	}
	// A settled command cannot be cancelled; the 409 comes with it.
	settled, err := ops.CancelCommand(ctx, cmd.ID)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 409 || settled == nil || settled.Status != "EXECUTED" {
		t.Errorf("cancel of an executed command: %v, %+v", err, settled)
	}
	if _, err := ops.Command(ctx, gatehouse.NewID().String()); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Errorf("an unknown command: %v", err)
	}
}

// TestCommandsWalksEveryCommandOnce issues commands across pages and
// walks them back, newest first; a cancel moves one.
func TestCommandsWalksEveryCommandOnce(t *testing.T) {
	a := apitest.Start(t, generous)
	ops := newClient(t, a)
	ctx := context.Background()
	var ids []string
	for range 7 {
		// No server is live: each UNIVERSE unlock waits, PENDING, and
		// each call without an idempotency key is a new command.
		c, _, err := ops.IssueCommand(ctx, client.CommandRequest{AccessPointID: a.AccessPointID.String(), Scope: "UNIVERSE"})
		must(t, err)
		ids = append([]string{c.ID}, ids...)
		a.Clock.Advance(time.Second)
	}
	var walked []string
	for c, err := range ops.Commands(ctx, client.CommandQuery{Scope: "UNIVERSE", Limit: 3}) {
		must(t, err)
		walked = append(walked, c.ID)
	}
	if len(walked) != len(ids) {
		t.Fatalf("walked %d commands, want %d", len(walked), len(ids))
	}
	for i := range ids {
		if walked[i] != ids[i] {
			t.Fatalf("walked %v, want %v", walked, ids)
		}
	}
	cancelled, err := ops.CancelCommand(ctx, ids[0])
	must(t, err)
	if cancelled.Status != "CANCELLED" {
		t.Errorf("cancelled: %s", cancelled.Status)
	}
	page, err := ops.ListCommands(ctx, client.CommandQuery{Status: "CANCELLED"}, "")
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != ids[0] || page.NextCursor != nil {
		t.Errorf("CANCELLED: %+v", page)
	}
	_, _, err = ops.IssueCommand(ctx, client.CommandRequest{AccessPointID: a.AccessPointID.String(), Scope: "SERVER"})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || len(apiErr.Issues["serverJobId"]) == 0 {
		t.Errorf("SERVER without a job id: %v", err)
	}
}
