package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

func runLocationCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "location create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "location name")
	universe := f.String("universe-id", "", "the platform universe the location lives in (digits): its access points' commands go to that universe's servers")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		// Checked before the location is created, so that a bad id
		// leaves no location behind.
		if *universe != "" && !gatehouse.IsUniverseID(*universe) {
			return usagef("--universe-id must be a platform universe id (a positive integer), got %q", *universe)
		}
		l, err := svc.CreateLocation(ctx, orgID, *name)
		if err != nil {
			return err
		}
		if *universe != "" {
			if l, err = svc.SetLocationUniverse(ctx, orgID, l.ID, *universe); err != nil {
				return err
			}
		}
		return f.print(newLocationRecord(l), "created location %s %q%s", l.ID, l.Name, universeText(l))
	})
}

// locationRecord is how the CLI prints one location it changed.
type locationRecord struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	UniverseID *string         `json:"universeId"`
	CreatedAt  gatehouse.Time  `json:"createdAt"`
	ArchivedAt *gatehouse.Time `json:"archivedAt"`
}

func newLocationRecord(l gatehouse.Location) locationRecord {
	return locationRecord{l.ID.String(), l.Name, l.UniverseID, l.CreatedAt, l.ArchivedAt}
}

// universeText is ", universe N" for a location that names its universe.
func universeText(l gatehouse.Location) string {
	if l.UniverseID == nil {
		return ""
	}
	return ", universe " + *l.UniverseID
}

// runLocationSetUniverse sets (or, given "", clears) the universe whose
// servers receive the commands of a location's access points.
func runLocationSetUniverse(ctx context.Context, e *env) error {
	f := newFlags(e, "location set-universe")
	f.actor(asUsage)
	return withService(ctx, f, 2, func(svc *service.Service, args []string) error {
		const usage = `location set-universe LOCATION_ID UNIVERSE_ID (or "" to clear it)`
		if len(args) != 2 {
			return usagef("usage: gatehouse %s", usage)
		}
		id, err := positionalID(args[:1], usage, "LOCATION_ID")
		if err != nil {
			return err
		}
		universe := strings.TrimSpace(args[1])
		if universe != "" && !gatehouse.IsUniverseID(universe) {
			return usagef("UNIVERSE_ID must be a platform universe id (a positive integer), or \"\" to clear it; got %q", universe)
		}
		orgID, err := svc.OrgOfLocation(ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		l, err := svc.SetLocationUniverse(ctx, orgID, id, universe)
		if err != nil {
			return err
		}
		if l.UniverseID == nil {
			return f.print(newLocationRecord(l), "location %s %q names no universe now: its access points cannot be unlocked remotely", l.ID, l.Name)
		}
		return f.print(newLocationRecord(l), "location %s %q is in universe %s: its commands go to that universe's servers", l.ID, l.Name, *l.UniverseID)
	})
}

func runLocationRename(ctx context.Context, e *env) error {
	f := newFlags(e, "location rename")
	name := f.String("name", "", "the new name; events keep the name they were recorded with")
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "location rename LOCATION_ID --name NAME", "LOCATION_ID")
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		orgID, err := svc.OrgOfLocation(ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		l, err := svc.RenameLocation(ctx, orgID, id, *name)
		if err != nil {
			return err
		}
		return f.print(newLocationRecord(l), "renamed location %s to %q", l.ID, l.Name)
	})
}

func runLocationList(ctx context.Context, e *env) error {
	f := newFlags(e, "location list")
	org := f.String("org", "", "organization id")
	archived := f.Bool("archived", false, "list archived locations and access points too, marked with when they were archived")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if _, err := svc.FindOrganization(ctx, orgID); err != nil {
			return err
		}
		locs, err := svc.AllLocations(ctx, orgID, *archived)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(locs, "")
		}
		for _, l := range locs {
			universe := "no universe"
			if l.UniverseID != nil {
				universe = "universe " + *l.UniverseID
			}
			doors := fmt.Sprintf("%d access points", len(l.AccessPoints))
			if len(l.AccessPoints) == 1 {
				doors = "1 access point"
			}
			fmt.Fprintf(e.stdout, "%s  %s  %-20s %s (%s)%s\n", l.ID, gatehouse.FormatTime(time.Time(l.CreatedAt)), universe, l.Name,
				doors, archivedText(l.ArchivedAt))
		}
		return nil
	})
}
