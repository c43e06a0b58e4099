package client

import (
	"context"
	"time"
)

// InsightQuery asks for counts of events by a grouping (GET /insights).
// Its Filter's Q is not a filter of insights; zero fields are absent.
type InsightQuery struct {
	// GroupBy: accessPointId, locationId, reason, type, platformUserId,
	// hour, day or hourOfWeek.
	GroupBy string
	// TimeZone is the IANA zone of the hour, day and hourOfWeek buckets;
	// "" for UTC.
	TimeZone string
	// Filter narrows the events counted, as on ListEvents, but Q. Without
	// To the window ends at the end of the current UTC hour, without From it starts 30 days before.
	Filter EventQuery
}

// InsightCount is one group: its key (an id, a reason, a type, a player
// or a bucket's local start), the name of an access point or location,
// and its events by outcome.
type InsightCount struct {
	Key           string  `json:"key"`
	Label         *string `json:"label"`
	Granted       int     `json:"granted"`
	Denied        int     `json:"denied"`
	RemoteUnlocks int     `json:"remoteUnlocks"`
}

// Insights are the groups of an InsightQuery, most counted first, or in
// time order for buckets of time.
type Insights struct {
	Data []InsightCount `json:"data"`
	Meta InsightMeta    `json:"meta"`
}

// InsightMeta says how the server read the query.
type InsightMeta struct {
	GroupBy           string    `json:"groupBy"`
	TimeZone          string    `json:"timeZone"`
	Limit             int       `json:"limit"`
	DateFrom          time.Time `json:"dateFrom"`
	DateTo            time.Time `json:"dateTo"`
	DateRangeNarrowed bool      `json:"dateRangeNarrowed"` // the window was cut to 366 days
	Types             []string  `json:"types"`
	IgnoredTypes      []string  `json:"ignoredTypes"`
	Truncated         bool      `json:"truncated"` // more groups matched than Limit
}

// Insights counts the organization's events by q.GroupBy. A bad
// parameter is an *Error with status 400 and its issues.
func (c *Client) Insights(ctx context.Context, q InsightQuery) (*Insights, error) {
	v := q.Filter.values()
	v.Del("q")
	v.Set("groupBy", q.GroupBy)
	if q.TimeZone != "" {
		v.Set("timeZone", q.TimeZone)
	}
	var out Insights
	if err := c.do(ctx, "GET", "/api/consumer/v1/insights", v, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
