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
