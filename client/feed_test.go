package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// Feed yields every event once, in the order stored, waits when caught
// up, and resumes from a stored cursor with only what came after it.
func TestFeedFollowsAndResumes(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	send := func(n int) []string {
		t.Helper()
		batch := make([]client.IngestEvent, n)
		for i := range batch {
			batch[i] = client.IngestEvent{Type: "ACCESS_GRANTED", Allowed: "granted", AccessPointID: a.AccessPointID.String(),
				OccurredAt: a.Clock.Now().Add(-time.Duration(i) * time.Hour), PlatformUserID: fmt.Sprint(100 + i)}
		}
		res, err := c.IngestEvents(ctx, batch)
		must(t, err)
		return res.IDs
	}
	want := send(7)
	follow, stop := context.WithCancel(ctx)
	defer stop()
	var got []string
	var stored string
	for page, err := range c.Feed(follow, client.EventQuery{Limit: 3}, "", 5*time.Millisecond) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			break
		}
		for _, ev := range page.Data {
			got = append(got, ev.ID)
		}
		stored = page.NextCursor
		switch len(got) {
		case 7:
			want = append(want, send(2)...) // arrives while the consumer waits
		case 9:
			stop()
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("followed %v, want %v", got, want)
	}
	later := send(1)
	page, err := c.ReadFeed(ctx, client.EventQuery{}, stored)
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != later[0] || page.CompleteThrough.IsZero() {
		t.Errorf("resumed from the stored cursor: %+v, want only %s", page, later[0])
	}
	if _, err := c.ReadFeed(ctx, client.EventQuery{Q: "gate"}, ""); !errors.Is(err, client.ErrFeedQuery) {
		t.Errorf("a feed query with q: %v", err)
	}
}
