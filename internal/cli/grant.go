package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// idFlags collects a repeated id flag; a value may also list ids
// separated by commas.
type idFlags []string

func (f *idFlags) String() string { return strings.Join(*f, ",") }

func (f *idFlags) Set(s string) error {
	for id := range strings.SplitSeq(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*f = append(*f, id)
		}
	}
	return nil
}

// grantFlagNames maps the fields of a grant request and the parameters
// of a grant list to the grant commands' flags, so that the service's
// issues name what the operator typed.
var grantFlagNames = map[string]string{
	"platformUserId": "--player",
	"accessPointIds": "--access-point",
	"accessPointId":  "--access-point",
	"locationId":     "--location",
	"from":           "--from",
	"until":          "--until",
	"note":           "--note",
	"active":         "--active",
	"limit":          "--limit",
}

// grantFlag names the flag of a field of grantFlagNames; an access
// point of the list ("accessPointIds[2]") is --access-point.
func grantFlag(field string) string {
	base, _, _ := strings.Cut(field, "[")
	if name, ok := grantFlagNames[base]; ok {
		return name
	}
	return field
}

// runGrantCreate makes a timed grant for the user of --as, its author,
// or else for the operator (no author; the audit log names them).
func runGrantCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "grant create")
	org := f.String("org", "", "organization id")
	player := f.String("player", "", "the player's platform user id")
	var aps idFlags
	f.Var(&aps, "access-point", "an access point the grant covers (repeatable, or comma-separated); or --location")
	loc := f.String("location", "", "a location: the grant covers every access point of it, also ones added later")
	until := f.String("until", "", "when the grant ends, RFC 3339; or --for")
	forD := f.duration("for", 0, "how long the grant lasts from --from, e.g. 24h or 7d (at most 366d)")
	from := f.String("from", "", "when the grant starts, RFC 3339 (default now)")
	note := f.String("note", "", fmt.Sprintf("free text kept with the grant, at most %d characters", gatehouse.MaxGrantNote))
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := knownOrg(ctx, svc, *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		r, err := grantRequest(e.now(), *player, aps, *loc, *from, *until, *forD, *note)
		if err != nil {
			return err
		}
		g, _, err := svc.CreateGrant(ctx, orgID, r)
		if ve := (*gatehouse.ValidationError)(nil); errors.As(err, &ve) {
			return renameFields(ve, grantFlag)
		}
		if err != nil {
			return err
		}
		return f.print(g, "%s", grantLine(g))
	})
}

// grantRequest reads grant create's flags into a request, or a
// *ValidationError naming every bad flag.
func grantRequest(now time.Time, player string, aps []string, loc, from, until string, forD time.Duration, note string) (gatehouse.GrantRequest, error) {
	var errs gatehouse.ValidationError
	r := gatehouse.GrantRequest{PlatformUserID: player}
	if note != "" {
		r.Note = &note
	}
	for _, s := range aps {
		id, err := gatehouse.ParseUUID(s)
		if err != nil {
			errs.Add("--access-point", "must be a UUID: %q is not", s)
			continue
		}
		r.AccessPointIDs = append(r.AccessPointIDs, id)
	}
	if loc != "" {
		id, err := gatehouse.ParseUUID(loc)
		if err != nil {
			errs.Add("--location", "must be a UUID")
		}
		r.LocationID = &id
	}
	start := gatehouse.Truncate(now)
	if from != "" {
		t, err := gatehouse.ParseTime(from)
		if err != nil {
			errs.Add("--from", "must be an RFC 3339 instant, e.g. 2026-12-24T18:00:00Z")
		}
		start = t
		r.From = (*gatehouse.Time)(&t)
	}
	switch {
	case until != "" && forD != 0:
		errs.Add("--for", "give --until or --for, not both")
	case until != "":
		t, err := gatehouse.ParseTime(until)
		if err != nil {
			errs.Add("--until", "must be an RFC 3339 instant, e.g. 2026-12-24T18:00:00Z")
		}
		r.Until = (*gatehouse.Time)(&t)
	case forD > 0:
		t := start.Add(forD)
		r.Until = (*gatehouse.Time)(&t)
	default:
		errs.Add("--until", "give --until RFC3339 or --for DURATION")
	}
	return r, errs.Err()
}

func runGrantList(ctx context.Context, e *env) error {
	f := newFlags(e, "grant list")
	org := f.String("org", "", "organization id")
	player := f.String("player", "", "only this player's grants")
	ap := f.String("access-point", "", "only grants covering this access point (listing it, or of its location)")
	active := f.String("active", "", "true: only grants running now; false: only the others")
	limit := f.Int("limit", 50, fmt.Sprintf("grants to print, newest first, 1 to %d", gatehouse.MaxLimit))
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := knownOrg(ctx, svc, *org)
		if err != nil {
			return err
		}
		q := map[string][]string{"limit": {fmt.Sprint(*limit)}, "platformUserId": {*player}, "accessPointId": {*ap}, "active": {*active}}
		filter, err := svc.ReadGrantQuery(orgID, q)
		if ve := (*gatehouse.ValidationError)(nil); errors.As(err, &ve) {
			return renameFields(ve, grantFlag)
		}
		page, err := svc.ListGrants(ctx, orgID, filter)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(page.Grants, "")
		}
		for _, g := range page.Grants {
			printGrantRow(e.stdout, g)
		}
		if page.Next != nil {
			fmt.Fprintf(e.stderr, "more grants follow: raise --limit (at most %d) or narrow the filters\n", gatehouse.MaxLimit)
		}
		return nil
	})
}

// runGrantRevoke ends a grant now, for the user of --as or the operator.
func runGrantRevoke(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "grant revoke", "GRANT_ID", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, arg string) error {
		id, err := parseID("GRANT_ID", arg)
		if err != nil {
			return err
		}
		g, err := svc.RevokeGrant(ctx, orgID, id)
		if err != nil {
			return fmt.Errorf("grant %s: %w", id, err)
		}
		return f.print(g, "revoked grant %s of player %s at %s", g.ID, g.PlatformUserID, gatehouse.FormatTime(time.Time(*g.RevokedAt)))
	})
}

// grantLine is what grant create prints.
func grantLine(g gatehouse.Grant) string {
	return fmt.Sprintf("granted %s to player %s on %s, from %s until %s", g.ID, g.PlatformUserID, grantTarget(g),
		gatehouse.FormatTime(time.Time(g.From)), gatehouse.FormatTime(time.Time(g.Until)))
}

func grantTarget(g gatehouse.Grant) string {
	if g.LocationID != nil {
		return "location " + g.LocationID.String()
	}
	ids := make([]string, len(g.AccessPointIDs))
	for i, id := range g.AccessPointIDs {
		ids[i] = id.String()
	}
	return "access points " + strings.Join(ids, ", ")
}

func printGrantRow(w io.Writer, g gatehouse.Grant) {
	state := "inactive"
	switch {
	case g.RevokedAt != nil:
		state = "revoked"
	case g.Active:
		state = "active"
	}
	fmt.Fprintf(w, "%s  %-8s  player %s  %s → %s  %s  %s\n", g.ID, state, g.PlatformUserID,
		gatehouse.FormatTime(time.Time(g.From)), gatehouse.FormatTime(time.Time(g.Until)), g.Source.Type, grantTarget(g))
}
