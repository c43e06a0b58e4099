package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

func runAccessPointCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "access-point create")
	loc := f.String("location", "", "location id")
	name := f.String("name", "", "access point name")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
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
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
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
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
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
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
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
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
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
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
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
	archived := f.Bool("archived", false, "list archived access points too, marked with when they were archived")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		locID, err := parseID("location", *loc)
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfLocation(ctx, locID)
		if err != nil {
			return err
		}
		aps, err := svc.ListAccessPoints(ctx, orgID, locID, *archived)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(aps, "")
		}
		for _, ap := range aps {
			fmt.Fprintf(e.stdout, "%s  %s  %s%s\n", ap.ID, gatehouse.FormatTime(time.Time(ap.CreatedAt)), ap.Name, archivedText(ap.ArchivedAt))
		}
		return nil
	})
}
