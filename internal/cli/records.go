package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/google/uuid"
)

// withService parses f, opens (creating and migrating) the database and
// runs fn with the service on it.
func withService(ctx context.Context, f *flags, maxArgs int, fn func(svc *gatehouse.Service, args []string) error) error {
	return withOpenedService(ctx, f, maxArgs, app.Open, fn)
}

// withExistingService is withService for a command that only reads: the
// database must exist and be migrated already.
func withExistingService(ctx context.Context, f *flags, maxArgs int, fn func(svc *gatehouse.Service, args []string) error) error {
	return withOpenedService(ctx, f, maxArgs, app.OpenExisting, fn)
}

func withOpenedService(ctx context.Context, f *flags, maxArgs int, open func(context.Context, string) (*app.DB, error),
	fn func(svc *gatehouse.Service, args []string) error) error {
	args, err := f.parse(maxArgs)
	if err != nil {
		return err
	}
	db, err := open(ctx, *f.db)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db.Service(f.e.now), args)
}

func runMigrate(ctx context.Context, e *env) error {
	f := newFlags(e, "migrate")
	return withService(ctx, f, 0, func(*gatehouse.Service, []string) error {
		return f.print(map[string]string{"status": "migrated"}, "database %s is up to date", *f.db)
	})
}

func runOrgCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "org create")
	name := f.String("name", "", "organization name")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		if err := required("name", *name); err != nil {
			return err
		}
		o, err := svc.CreateOrganization(ctx, *name)
		if err != nil {
			return err
		}
		return f.print(o, "created organization %s %q", o.ID, o.Name)
	})
}

func runOrgRename(ctx context.Context, e *env) error {
	f := newFlags(e, "org rename")
	name := f.String("name", "", "the new name")
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
		id, err := positionalID(args, "org rename ORG_ID --name NAME", "ORG_ID")
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		o, err := svc.RenameOrganization(ctx, id, *name)
		if err != nil {
			return err
		}
		return f.print(o, "renamed organization %s to %q", o.ID, o.Name)
	})
}

func runOrgList(ctx context.Context, e *env) error {
	f := newFlags(e, "org list")
	return withExistingService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		orgs, err := svc.ListOrganizations(ctx)
		if err != nil || *f.json {
			return errors.Join(err, f.print(orgs, ""))
		}
		for _, o := range orgs {
			fmt.Fprintf(e.stdout, "%s  %s  %4dd  %s\n", o.ID, gatehouse.FormatTime(time.Time(o.CreatedAt)), o.RetentionDays, o.Name)
		}
		return nil
	})
}

func runLocationCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "location create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "location name")
	universe := f.String("universe-id", "", "the platform universe the location lives in (digits): its access points' commands go to that universe's servers")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
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
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	UniverseID *string        `json:"universeId"`
	CreatedAt  gatehouse.Time `json:"createdAt"`
}

func newLocationRecord(l gatehouse.Location) locationRecord {
	return locationRecord{l.ID.String(), l.Name, l.UniverseID, l.CreatedAt}
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
	return withService(ctx, f, 2, func(svc *gatehouse.Service, args []string) error {
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
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
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
	return withExistingService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if _, err := svc.FindOrganization(ctx, orgID); err != nil {
			return err
		}
		locs, err := svc.AllLocations(ctx, orgID)
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
			fmt.Fprintf(e.stdout, "%s  %s  %-20s %s (%d access points)\n", l.ID, gatehouse.FormatTime(time.Time(l.CreatedAt)), universe, l.Name, len(l.AccessPoints))
		}
		return nil
	})
}

func runAccessPointCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point create")
	loc := f.String("location", "", "location id")
	name := f.String("name", "", "access point name")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		locID, err := parseID("location", *loc)
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		orgID, err := svc.OrgOfLocation(ctx, locID)
		if err != nil {
			return err
		}
		ap, err := svc.CreateAccessPoint(ctx, orgID, locID, *name)
		if err != nil {
			return err
		}
		return f.print(ap, "created access point %s %q in location %s", ap.ID, ap.Name, ap.LocationID)
	})
}

func runAccessPointRename(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point rename")
	name := f.String("name", "", "the new name; events keep the name they were recorded with")
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
		id, err := positionalID(args, "access-point rename ACCESS_POINT_ID --name NAME", "ACCESS_POINT_ID")
		if err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		orgID, err := svc.OrgOfAccessPoint(ctx, id)
		if err != nil {
			return err
		}
		ap, err := svc.RenameAccessPoint(ctx, orgID, id, *name)
		if err != nil {
			return err
		}
		return f.print(ap, "renamed access point %s to %q", ap.ID, ap.Name)
	})
}

// runAccessPointMove re-homes an access point; the service refuses a
// location of another organization than the access point's as unknown.
func runAccessPointMove(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point move")
	loc := f.String("location", "", "the location to move to, of the same organization; events keep the location they were recorded with")
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
		id, err := positionalID(args, "access-point move ACCESS_POINT_ID --location LOCATION_ID", "ACCESS_POINT_ID")
		if err != nil {
			return err
		}
		locID, err := parseID("location", *loc)
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfAccessPoint(ctx, id)
		if err != nil {
			return err
		}
		ap, err := svc.MoveAccessPoint(ctx, orgID, id, locID)
		if err != nil {
			return err
		}
		return f.print(ap, "moved access point %s %q to location %s", ap.ID, ap.Name, ap.LocationID)
	})
}

func runAccessPointList(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point list")
	loc := f.String("location", "", "location id")
	return withExistingService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		locID, err := parseID("location", *loc)
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfLocation(ctx, locID)
		if err != nil {
			return err
		}
		aps, err := svc.ListAccessPoints(ctx, orgID, locID)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(aps, "")
		}
		for _, ap := range aps {
			fmt.Fprintf(e.stdout, "%s  %s  %s\n", ap.ID, gatehouse.FormatTime(time.Time(ap.CreatedAt)), ap.Name)
		}
		return nil
	})
}

// positionalID reads the one id a command takes as its argument; usage is
// the command's synopsis for the error.
func positionalID(args []string, usage, what string) (uuid.UUID, error) {
	if len(args) != 1 {
		return uuid.UUID{}, usagef("usage: gatehouse %s", usage)
	}
	id, err := gatehouse.ParseUUID(args[0])
	if err != nil {
		return uuid.UUID{}, usagef("%s must be a UUID, got %q", what, args[0])
	}
	return id, nil
}
