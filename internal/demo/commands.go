package demo

// The demo's remote unlocks are commands it issued, so that each
// REMOTE_UNLOCK event's command can be opened like any other: issued
// through the service at the event's instant, to a game server that
// synced then, and taken to the status the world drew.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// commandTTL is how long a demo command waits for its server: a command
// drawn EXPIRED is never taken, and the sweep at the end expires it.
const commandTTL = 60 * time.Second

// issueCommands issues, through a service whose clock stands at each
// command's instant, the command of every REMOTE_UNLOCK event of events,
// as the user the event names, and brings it to the status drawn for it:
//   - EXECUTED or FAILED: the server takes it at once (its unlock runs
//     from its issue, as the world decided) and answers a second later;
//   - CANCELLED: its requester cancels it before any server takes it;
//   - EXPIRED: no server takes it; the sweep at now expires it.
//
// The service records each command's REMOTE_UNLOCK event and its audit
// entry; the events left to ingest are returned, their references to the
// commands changed to the ids the service gave them. The game servers the
// commands reached are forgotten by the sweep, as servers that stopped.
func (w *world) issueCommands(ctx context.Context, store gatehouse.Store, org uuid.UUID, events []gatehouse.NewEvent, now time.Time) ([]gatehouse.NewEvent, error) {
	var clock time.Time
	svc := service.New(service.Config{Store: store, Now: func() time.Time { return clock }})
	issued := map[uuid.UUID]uuid.UUID{} // the world's command id → the service's
	var rest, unlocks []gatehouse.NewEvent
	for _, ev := range events {
		if ev.Type == gatehouse.EventRemoteUnlock && ev.Command != nil {
			unlocks = append(unlocks, ev)
		} else {
			rest = append(rest, ev)
		}
	}
	// In the order of time, as they were issued: a server's sync takes
	// what was issued before it, never what comes later.
	slices.SortStableFunc(unlocks, func(a, b gatehouse.NewEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
	for _, ev := range unlocks {
		at := ev.OccurredAt
		d := w.door(ev.AccessPointID)
		job := w.jobs[int(ev.ID[15])%len(w.jobs)]
		if ev.ServerJobID != nil {
			job = *ev.ServerJobID
		}
		server := gatehouse.SyncRequest{ServerJobID: job, UniverseID: d.universe, WaitSeconds: new(int)}
		if ev.PlatformUserID != nil {
			server.Players = []string{*ev.PlatformUserID}
		}
		clock = at.Add(-time.Second)
		if _, err := svc.Sync(ctx, org, server); err != nil {
			return nil, fmt.Errorf("demo server %s: %w", job, err)
		}
		clock = at
		user := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: *ev.RequestedBy, OrgID: org, Role: gatehouse.RoleOperator})
		c, _, err := svc.IssueCommand(user, org, gatehouse.CommandRequest{
			AccessPointID: ev.AccessPointID, Scope: *ev.Scope, ServerJobID: ev.ServerJobID, PlatformUserID: ev.PlatformUserID,
			DurationSeconds: int(UnlockDuration / time.Second), TTLSeconds: int(commandTTL / time.Second),
		}, "")
		if err != nil {
			return nil, fmt.Errorf("demo command at %s: %w", d.Name, err)
		}
		issued[ev.Command.ID] = c.ID
		if err := settle(ctx, user, svc, &clock, org, server, c.ID, ev.Command.Status); err != nil {
			return nil, fmt.Errorf("demo command %s: %w", c.ID, err)
		}
	}
	if _, err := store.SweepCommands(ctx, now); err != nil {
		return nil, err
	}
	for i, ev := range rest {
		if ev.Command != nil {
			c := *ev.Command
			c.ID = issued[c.ID]
			rest[i].Command = &c
		}
	}
	return rest, nil
}

// settle brings the command id, just issued to server at *clock, to
// status: see issueCommands.
func settle(ctx, user context.Context, svc *service.Service, clock *time.Time, org uuid.UUID, server gatehouse.SyncRequest, id uuid.UUID, status gatehouse.CommandStatus) error {
	switch status {
	case gatehouse.CommandCancelled:
		*clock = clock.Add(20 * time.Second)
		_, err := svc.CancelCommand(user, org, id)
		return err
	case gatehouse.CommandExecuted, gatehouse.CommandFailed:
	default:
		return nil
	}
	took, err := svc.Sync(ctx, org, server)
	if err != nil {
		return err
	}
	ack := gatehouse.Ack{CommandID: id, Result: gatehouse.AckExecuted}
	if status == gatehouse.CommandFailed {
		detail := "the door's model is not in this server's workspace"
		ack.Result, ack.Detail = gatehouse.AckFailed, &detail
	}
	*clock = clock.Add(time.Second)
	server.Acks, server.Cursor = []gatehouse.Ack{ack}, &took.Cursor
	_, err = svc.Sync(ctx, org, server)
	return err
}
