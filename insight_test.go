package gatehouse_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestBucketInsights: UTC hours fold into local hours, days and hours of
// the week; the hour a clock goes back is two buckets; a zone of half
// hours counts each UTC hour where it starts.
func TestBucketInsights(t *testing.T) {
	at := func(s string, denied int) gatehouse.InsightCount {
		h, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return gatehouse.InsightCount{Hour: h, Denied: denied}
	}
	// Berlin leaves summer time on 2026-10-25 at 01:00 UTC (03:00 → 02:00).
	hours := []gatehouse.InsightCount{at("2026-10-24T23:00:00Z", 1), at("2026-10-25T00:00:00Z", 2),
		at("2026-10-25T01:00:00Z", 4), at("2026-10-25T22:00:00Z", 8), at("2026-10-25T23:00:00Z", 16)}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	for _, c := range []struct {
		by   gatehouse.InsightGroup
		zone *time.Location
		want []gatehouse.InsightCount
	}{
		{gatehouse.GroupHour, berlin, []gatehouse.InsightCount{{Key: "2026-10-25T01:00:00+02:00", Denied: 1},
			{Key: "2026-10-25T02:00:00+02:00", Denied: 2}, {Key: "2026-10-25T02:00:00+01:00", Denied: 4},
			{Key: "2026-10-25T23:00:00+01:00", Denied: 8}, {Key: "2026-10-26T00:00:00+01:00", Denied: 16}}},
		{gatehouse.GroupDay, berlin, []gatehouse.InsightCount{{Key: "2026-10-25", Denied: 15}, {Key: "2026-10-26", Denied: 16}}},
		{gatehouse.GroupDay, time.UTC, []gatehouse.InsightCount{{Key: "2026-10-24", Denied: 1}, {Key: "2026-10-25", Denied: 30}}},
		// 2026-10-25 is a Sunday (7), 2026-10-26 a Monday (1): Monday comes first.
		{gatehouse.GroupHourOfWeek, berlin, []gatehouse.InsightCount{{Key: "1-00", Denied: 16}, {Key: "7-01", Denied: 1},
			{Key: "7-02", Denied: 6}, {Key: "7-23", Denied: 8}}},
		{gatehouse.GroupHour, kolkata, []gatehouse.InsightCount{{Key: "2026-10-25T04:00:00+05:30", Denied: 1},
			{Key: "2026-10-25T05:00:00+05:30", Denied: 2}, {Key: "2026-10-25T06:00:00+05:30", Denied: 4},
			{Key: "2026-10-26T03:00:00+05:30", Denied: 8}, {Key: "2026-10-26T04:00:00+05:30", Denied: 16}}},
	} {
		got := gatehouse.BucketInsights(hours, c.by, c.zone)
		if len(got) != len(c.want) {
			t.Errorf("%s in %s = %+v, want %+v", c.by, c.zone, got, c.want)
			continue
		}
		for i := range got {
			if got[i].Key != c.want[i].Key || got[i].Denied != c.want[i].Denied {
				t.Errorf("%s in %s [%d] = %+v, want %+v", c.by, c.zone, i, got[i], c.want[i])
			}
		}
	}
}

// TestParseInsightQuery: defaults, the zone, and what is refused.
func TestParseInsightQuery(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 34, 56, 0, time.UTC)
	q, err := gatehouse.ParseInsightQuery(url.Values{"groupBy": {"day"}, "timeZone": {"Asia/Tokyo"}}, now, "")
	if err != nil {
		t.Fatal(err)
	}
	if q.Zone.String() != "Asia/Tokyo" || !q.Filter.To.Equal(time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)) ||
		q.Filter.To.Sub(*q.Filter.From) != gatehouse.DefaultInsightWindow || q.Filter.Limit != gatehouse.DefaultLimit {
		t.Errorf("defaults: %+v", q)
	}
	_, err = gatehouse.ParseInsightQuery(url.Values{"groupBy": {"week"}, "timeZone": {"Local"}, "q": {"x"}, "limit": {"501"}}, now, "")
	ve, ok := err.(*gatehouse.ValidationError)
	if !ok {
		t.Fatalf("error %v", err)
	}
	for _, k := range []string{"groupBy", "timeZone", "q", "limit"} {
		if ve.Issues[k] == nil {
			t.Errorf("issues %v lack %s", ve.Issues, k)
		}
	}
}
