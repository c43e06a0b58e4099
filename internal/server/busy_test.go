package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
)

// TestBusyOrganization: while one organization's reads hold all of its
// slots, its next read is a 429 with Retry-After (its own load, not an
// outage), and another organization's page is served.
func TestBusyOrganization(t *testing.T) {
	slots := service.NewReadSlots(2, 0)
	e := newEnv(t, func(c *app.Settings) { c.ReadSlots, c.QueryTimeout = slots, time.Minute })
	busy, quiet := e.newOrg("Busy"), e.newOrg("Quiet")
	for range 2 {
		release, err := slots.Acquire(context.Background(), busy.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
	}
	r := e.get("/api/consumer/v1/events?q=%25", busy.readKey)
	if r.status != 429 || r.header.Get("Retry-After") != "1" || r.apiError(t).Code != "rate_limited" {
		t.Errorf("busy organization: %d, Retry-After %q, %s; want 429, 1, rate_limited", r.status, r.header.Get("Retry-After"), r.body)
	}
	if r := e.get("/api/consumer/v1/events", quiet.readKey); r.status != 200 {
		t.Errorf("the other organization: %d %s", r.status, r.body)
	}
}
