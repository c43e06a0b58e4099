// Package servicetest holds checks of the service that more than one
// package runs: the service's own tests and each store's.
package servicetest

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// SyncWoken checks that a command issued elsewhere (another instance,
// another process) wakes a sync waiting on serve within a second, through
// the store's wakes:
//   - a sync ([service.Service.Sync]) of server job "a" of universe 42
//     waits up to 10 s;
//   - after pause, issue issues the command;
//   - the sync must answer with just that command.
//
// what says where it was issued, for the failure.
func SyncWoken(t *testing.T, ctx context.Context, serve *service.Service, orgID uuid.UUID, pause time.Duration,
	issue func() gatehouse.Command, what string) {
	t.Helper()
	wait := 10
	answered := make(chan gatehouse.SyncResult, 1)
	go func() {
		res, err := serve.Sync(ctx, orgID, gatehouse.SyncRequest{ServerJobID: "a", UniverseID: "42", WaitSeconds: &wait})
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	time.Sleep(pause)
	c := issue()
	issued := time.Now()
	select {
	case res := <-answered:
		if len(res.Commands) != 1 || res.Commands[0].ID != c.ID {
			t.Fatalf("woken with %+v", res)
		}
		if d := time.Since(issued); d > time.Second {
			t.Errorf("woken %v after the issue, want within a second", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("a command issued %s did not wake the waiting sync", what)
	}
}
