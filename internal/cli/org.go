package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

func runOrgCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "org create")
	name := f.String("name", "", "organization name")
	return withNewService(ctx, f, 0, func(svc *service.Service, _ []string) error {
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
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "org rename ORG_ID --name NAME", "ORG_ID")
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, id); err != nil {
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
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
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

// runOrgSetSecondFactor requires a second factor of an organization's
// users, or stops requiring it.
func runOrgSetSecondFactor(ctx context.Context, e *env) error {
	return runOrgSetRequirement(ctx, e, "org set-second-factor", "secondFactorRequired", (*service.Service).RequireSecondFactor,
		"organization %s requires a second factor: users without one set it up at their next sign-in",
		"organization %s no longer requires a second factor")
}

// runOrgSetSSO requires an organization's users to sign in through the
// OpenID provider, or stops requiring it.
func runOrgSetSSO(ctx context.Context, e *env) error {
	return runOrgSetRequirement(ctx, e, "org set-sso", "providerRequired", (*service.Service).RequireProvider,
		"organization %s signs in through the identity provider only: passwords sign its users in no more",
		"organization %s signs in with passwords again, or through the identity provider")
}

// runOrgSetRequirement sets what an organization requires of its users'
// sign-ins: ORG_ID required|optional.
func runOrgSetRequirement(ctx context.Context, e *env, name, field string, set func(*service.Service, context.Context, uuid.UUID, bool) error, on, off string) error {
	f := newFlags(e, name)
	f.actor(asUsage)
	return withService(ctx, f, 2, func(svc *service.Service, args []string) error {
		if len(args) != 2 || args[1] != "required" && args[1] != "optional" {
			return usagef("%s needs ORG_ID and required or optional", name)
		}
		id, err := parseID("ORG_ID", args[0])
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, id); err != nil {
			return err
		}
		required := args[1] == "required"
		if err := set(svc, ctx, id, required); err != nil {
			return err
		}
		rec := map[string]any{"id": id, field: required}
		if required {
			return f.print(rec, on, id)
		}
		return f.print(rec, off, id)
	})
}

// runOrgSetRetention sets how many days of an organization's events are kept.
func runOrgSetRetention(ctx context.Context, e *env) error {
	f := newFlags(e, "org set-retention")
	f.actor(asUsage)
	return withService(ctx, f, 2, func(svc *service.Service, args []string) error {
		if len(args) != 2 {
			return usagef("org set-retention needs ORG_ID and DAYS")
		}
		id, err := parseID("ORG_ID", args[0])
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, id); err != nil {
			return err
		}
		days, err := strconv.Atoi(args[1])
		if err != nil {
			return usagef("DAYS must be a whole number of days, got %q", args[1])
		}
		o, err := svc.SetRetention(ctx, id, days)
		if err != nil {
			return err
		}
		return f.print(o, "organization %s keeps its events %d days (by occurredAt); older ones are deleted in the background", o.ID, o.RetentionDays)
	})
}
