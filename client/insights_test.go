package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// A studio's tooling asks which door denies most and gets the counts,
// and a bad grouping as an *Error with its issue.
func TestInsights(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	var batch []client.IngestEvent
	for i := range 5 {
		batch = append(batch, client.IngestEvent{Type: "ACCESS_DENIED", Reason: "OUTSIDE_SCHEDULE",
			OccurredAt: a.Clock.Now().Add(-time.Duration(i) * time.Hour), AccessPointID: a.AccessPointID.String(),
			PlatformUserID: "42"})
	}
	_, err := c.IngestEvents(ctx, batch)
	must(t, err)
	got, err := c.Insights(ctx, client.InsightQuery{GroupBy: "accessPointId", Filter: client.EventQuery{Allowed: "denied", Q: "ignored"}})
	must(t, err)
	if len(got.Data) != 1 || got.Data[0].Key != a.AccessPointID.String() || got.Data[0].Label == nil || got.Data[0].Denied != 5 ||
		got.Meta.GroupBy != "accessPointId" || got.Meta.TimeZone != "UTC" {
		t.Errorf("Insights by door = %+v", got)
	}
	hours, err := c.Insights(ctx, client.InsightQuery{GroupBy: "hour", TimeZone: "Asia/Tokyo",
		Filter: client.EventQuery{From: a.Clock.Now().Add(-24 * time.Hour), To: a.Clock.Now().Add(time.Minute)}})
	must(t, err)
	if len(hours.Data) != 5 || hours.Data[0].Denied != 1 {
		t.Errorf("Insights by hour = %+v", hours.Data)
	}
	_, err = c.Insights(ctx, client.InsightQuery{GroupBy: "door"})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Issues["groupBy"] == nil {
		t.Errorf("a bad grouping: %v", err)
	}
}
