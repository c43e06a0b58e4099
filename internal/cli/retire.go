package cli

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// The archive, restore and delete commands of locations and access
// points (docs/api.md, "Archive and delete"). Each takes the id as its
// argument and finds its organization by a query, as rename does; delete
// asks no confirmation, as webhook delete and user remove do: it deletes
// only what nothing recorded names.

// retire runs one of them: the flags every change reads (--as), the id
// named what, the organization it belongs to (orgOf), then do.
func retire(ctx context.Context, e *env, name, what string, orgOf func(*service.Service, context.Context, uuid.UUID) (uuid.UUID, error),
	do func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error) error {
	f := newFlags(e, name)
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, name+" "+what, what)
		if err != nil {
			return err
		}
		orgID, err := orgOf(svc, ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		return do(ctx, f, svc, orgID, id)
	})
}

func runLocationArchive(ctx context.Context, e *env) error {
	return retire(ctx, e, "location archive", "LOCATION_ID", (*service.Service).OrgOfLocation,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			l, err := svc.ArchiveLocation(ctx, orgID, id)
			if err != nil {
				return err
			}
			return f.print(newLocationRecord(l), "archived location %s %q (since %s): it and its access points are hidden from lists; their events stay",
				l.ID, l.Name, formatArchived(l.ArchivedAt))
		})
}

func runLocationRestore(ctx context.Context, e *env) error {
	return retire(ctx, e, "location restore", "LOCATION_ID", (*service.Service).OrgOfLocation,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			l, err := svc.RestoreLocation(ctx, orgID, id)
			if err != nil {
				return err
			}
			return f.print(newLocationRecord(l), "restored location %s %q", l.ID, l.Name)
		})
}

func runLocationDelete(ctx context.Context, e *env) error {
	return retire(ctx, e, "location delete", "LOCATION_ID", (*service.Service).OrgOfLocation,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			if err := svc.DeleteLocation(ctx, orgID, id); err != nil {
				return err
			}
			return f.print(map[string]string{"id": id.String(), "status": "deleted"}, "deleted location %s", id)
		})
}

func runAccessPointArchive(ctx context.Context, e *env) error {
	return retire(ctx, e, "access-point archive", "ACCESS_POINT_ID", (*service.Service).OrgOfAccessPoint,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			ap, err := svc.ArchiveAccessPoint(ctx, orgID, id)
			if err != nil {
				return err
			}
			return f.print(ap, "archived access point %s %q (since %s): hidden from lists; its events stay, and its policy still decides",
				ap.ID, ap.Name, formatArchived(ap.ArchivedAt))
		})
}

func runAccessPointRestore(ctx context.Context, e *env) error {
	return retire(ctx, e, "access-point restore", "ACCESS_POINT_ID", (*service.Service).OrgOfAccessPoint,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			ap, err := svc.RestoreAccessPoint(ctx, orgID, id)
			if err != nil {
				return err
			}
			return f.print(ap, "restored access point %s %q", ap.ID, ap.Name)
		})
}

func runAccessPointDelete(ctx context.Context, e *env) error {
	return retire(ctx, e, "access-point delete", "ACCESS_POINT_ID", (*service.Service).OrgOfAccessPoint,
		func(ctx context.Context, f *flags, svc *service.Service, orgID, id uuid.UUID) error {
			if err := svc.DeleteAccessPoint(ctx, orgID, id); err != nil {
				return err
			}
			return f.print(map[string]string{"id": id.String(), "status": "deleted"}, "deleted access point %s with its policy", id)
		})
}

// formatArchived is when a record was archived, or "in use".
func formatArchived(t *gatehouse.Time) string {
	if t == nil {
		return "in use"
	}
	return gatehouse.FormatTime(time.Time(*t))
}

// archivedText is "  archived T" after a listed record that is archived.
func archivedText(t *gatehouse.Time) string {
	if t == nil {
		return ""
	}
	return "  archived " + formatArchived(t)
}
