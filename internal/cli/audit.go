package cli

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runAuditList prints a page of an organization's audit log, newest
// first: the same filters as GET /audit-log, read by the same parser.
func runAuditList(ctx context.Context, e *env) error {
	f := newFlags(e, "audit list")
	org := f.String("org", "", "organization id")
	v := url.Values{}
	for _, p := range []struct{ flag, param, usage string }{
		{"action", "action", "only this action, e.g. api_key.created"},
		{"actor-id", "actorId", "only changes made by this user or key id"},
		{"target-id", "targetId", "only changes of this record id"},
		{"date-from", "dateFrom", "from this time (RFC 3339 or YYYY-MM-DD, inclusive)"},
		{"date-to", "dateTo", "until this time (exclusive)"},
		{"limit", "limit", "entries to print, 1 to 500 (default 50)"},
	} {
		f.Func(p.flag, p.usage, func(s string) error { v.Set(p.param, s); return nil })
	}
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		filter, err := svc.ReadAuditQuery(orgID, v)
		if err != nil {
			return err
		}
		page, err := svc.ListAuditLog(ctx, orgID, filter)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(page.Entries, "")
		}
		for _, en := range page.Entries {
			fmt.Fprintf(e.stdout, "%s  %-22s %-8s %-28s %s %s%s\n", gatehouse.FormatTime(en.At), en.Action, en.Actor.Type,
				en.Actor.Label, en.Target.Type, en.Target.Name, changesText(en.Changes))
		}
		return nil
	})
}

// changesText writes changes as " field: from -> to" in field order.
func changesText(changes map[string]gatehouse.AuditChange) string {
	var b strings.Builder
	for _, field := range slices.Sorted(maps.Keys(changes)) {
		c := changes[field]
		fmt.Fprintf(&b, "  %s: %q -> %q", field, c.From, c.To)
	}
	return b.String()
}
