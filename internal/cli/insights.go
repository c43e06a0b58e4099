package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runInsights prints an organization's counts of events by a grouping:
// the parameters of GET /insights, read by the same parser.
func runInsights(ctx context.Context, e *env) error {
	f := newFlags(e, "insights")
	org := f.String("org", "", "organization id")
	v := url.Values{}
	for _, p := range []struct{ flag, param, usage string }{
		{"group-by", "groupBy", "accessPointId, locationId, reason, type, platformUserId, hour, day or hourOfWeek (required)"},
		{"time-zone", "timeZone", "IANA zone of hour, day and hourOfWeek buckets (default UTC)"},
		{"access-point", "accessPointId", "only events of this access point id"},
		{"location", "locationId", "only events of this location id"},
		{"type", "type", "only these types, comma-separated: ACCESS_GRANTED, ACCESS_DENIED, REMOTE_UNLOCK"},
		{"allowed", "allowed", "only granted or denied attempts"},
		{"platform-user-id", "platformUserId", "only events of this player"},
		{"reason", "reason", "only events with this reason, e.g. OUTSIDE_SCHEDULE"},
		{"scope", "scope", "only remote unlocks of this scope: UNIVERSE, SERVER or PLAYER"},
		{"date-from", "dateFrom", "from this time (RFC 3339 or YYYY-MM-DD, inclusive; default 30 days before date-to)"},
		{"date-to", "dateTo", "until this time (exclusive; default the end of the current UTC hour)"},
		{"limit", "limit", "groups to print, 1 to 500 (default 50)"},
	} {
		f.Func(p.flag, p.usage, func(s string) error { v.Set(p.param, s); return nil })
	}
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		q, err := svc.ReadInsightQuery(v)
		if err != nil {
			return err
		}
		counts, more, err := svc.Insights(ctx, orgID, q, q.Filter.Limit)
		if err != nil {
			return err
		}
		if *f.json {
			if counts == nil {
				counts = []gatehouse.InsightCount{}
			}
			return f.print(counts, "")
		}
		fmt.Fprintf(e.stdout, "%s from %s to %s (%s)\n", q.GroupBy, gatehouse.FormatTime(*q.Filter.From),
			gatehouse.FormatTime(*q.Filter.To), q.Zone)
		fmt.Fprintf(e.stdout, "%-36s %-24s %9s %9s %9s %9s\n", "KEY", "LABEL", "GRANTED", "DENIED", "UNLOCKS", "TOTAL")
		for _, c := range counts {
			label := ""
			if c.Label != nil {
				label = *c.Label
			}
			fmt.Fprintf(e.stdout, "%-36s %-24s %9d %9d %9d %9d\n", c.Key, label, c.Granted, c.Denied, c.RemoteUnlocks, c.Total())
		}
		if more {
			fmt.Fprintf(e.stdout, "(more groups than --limit %d)\n", q.Filter.Limit)
		}
		return nil
	})
}
