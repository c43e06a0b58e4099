package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// Walk every denied attempt of the last week, page by page.
func ExampleClient_Events() {
	c, err := client.New("http://localhost:8080", os.Getenv("GATEHOUSE_KEY"))
	if err != nil {
		log.Fatal(err)
	}
	q := client.EventQuery{Allowed: "denied", From: time.Now().AddDate(0, 0, -7), Limit: 500}
	for ev, err := range c.Events(context.Background(), q) {
		if err != nil {
			var apiErr *client.Error
			if errors.As(err, &apiErr) {
				log.Fatalf("%s (%s): %v", apiErr.Code, apiErr.RequestID, apiErr.Issues)
			}
			log.Fatal(err)
		}
		reason := "-" // null for a denial with no reason given, and for REMOTE_UNLOCK
		if ev.Reason != nil {
			reason = *ev.Reason
		}
		fmt.Println(ev.OccurredAt.Format(time.RFC3339), ev.AccessPoint.Name, reason)
	}
}

// Unlock a door on every game server of its universe, safely retried
// under an idempotency key, and follow it until it settles.
func ExampleClient_IssueCommand() {
	c, err := client.New("http://localhost:8080", os.Getenv("GATEHOUSE_KEY")) // commands:write
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	cmd, _, err := c.IssueCommand(ctx, client.CommandRequest{AccessPointID: os.Getenv("ACCESS_POINT_ID"),
		Scope: "UNIVERSE", DurationSeconds: 30, Note: "courier"}, client.WithIdempotencyKey("courier-4471"))
	if err != nil {
		log.Fatal(err)
	}
	for cmd.Status == "PENDING" || cmd.Status == "DELIVERED" {
		time.Sleep(time.Second)
		if cmd, err = c.Command(ctx, cmd.ID); err != nil {
			log.Fatal(err)
		}
	}
	t := cmd.Targets
	fmt.Printf("%s: %d of %d servers executed, %d failed\n", cmd.Status, t.Executed, t.Live, t.Failed)
}

// A game server's loop: report the players, answer the commands
// received, and wait for the next.
func ExampleClient_Sync() {
	c, err := client.New("http://localhost:8080", os.Getenv("GATEHOUSE_SERVER_KEY")) // server
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	var (
		cursor string
		acks   []client.Ack
	)
	for {
		res, err := c.Sync(ctx, "61dbae35-a87a-4cc4-8779-b9e252fe51e8", client.SyncRequest{
			UniverseID: "4922741943", Players: []string{"3940198064"}, Acks: acks, Cursor: cursor})
		if err != nil {
			log.Print(err)
			time.Sleep(5 * time.Second) // keep the acks for the next call
			continue
		}
		acks, cursor = nil, res.Cursor
		for _, cmd := range res.Commands {
			if cmd.Status == "CANCELLED" {
				continue // lock again; no answer is needed
			}
			// Open cmd.AccessPoint for *cmd.RemainingSeconds, then answer.
			acks = append(acks, client.Ack{CommandID: cmd.ID, Result: "EXECUTED"})
		}
	}
}
