package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runLockdownStart starts a lockdown of the organization, a universe or a
// location.
func runLockdownStart(ctx context.Context, e *env) error {
	f := newFlags(e, "lockdown start")
	org := f.String("org", "", "organization id")
	whole := f.Bool("organization", false, "lock down every access point of the organization")
	universe := f.String("universe", "", "lock down every access point of the locations naming this universe id")
	location := f.String("location", "", "lock down every access point of this location id")
	reason := f.String("reason", "", "why, at most 200 characters (shown to operators and in the audit log)")
	until := f.String("until", "", "end it by itself at this RFC 3339 instant (at most 30 days ahead)")
	dur := f.Duration("for", 0, "end it by itself after this long (e.g. 2h), instead of --until")
	as := f.actor("email of the organization's dashboard user (admin or operator) who starts it; the audit log names them")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		r := gatehouse.LockdownRequest{Reason: *reason}
		n := 0
		if *whole {
			r.Scope, n = gatehouse.LockdownOrganization, n+1
		}
		if *universe != "" {
			r.Scope, r.UniverseID, n = gatehouse.LockdownUniverse, universe, n+1
		}
		if *location != "" {
			id, err := parseID("location", *location)
			if err != nil {
				return err
			}
			r.Scope, r.LocationID, n = gatehouse.LockdownLocation, &id, n+1
		}
		if n != 1 {
			return usagef("lockdown start: give exactly one of --organization, --universe ID, --location ID")
		}
		switch {
		case *until != "" && *dur != 0:
			return usagef("lockdown start: give --until or --for, not both")
		case *until != "":
			t, err := time.Parse(time.RFC3339, *until)
			if err != nil {
				return gatehouse.Invalid("until", "must be an RFC 3339 instant, e.g. 2026-11-20T23:30:00Z")
			}
			u := gatehouse.Time(t)
			r.Until = &u
		case *dur != 0:
			u := gatehouse.Time(e.now().Add(*dur))
			r.Until = &u
		}
		actx := ctx
		if *as != "" {
			if actx, err = asUser(ctx, svc, orgID, *as); err != nil {
				return err
			}
		}
		l, err := svc.StartLockdown(actx, orgID, r)
		if errors.Is(err, gatehouse.ErrForbidden) {
			return fmt.Errorf("%s may not start lockdowns (an admin or operator may): %w", *as, err)
		}
		if err != nil {
			return err
		}
		return f.print(l, "lockdown %s started: %s; %s told", l.ID, lockdownTarget(l), servers(l.Targets.Live))
	})
}

// runLockdownRelease releases a lockdown.
func runLockdownRelease(ctx context.Context, e *env) error {
	f := newFlags(e, "lockdown release")
	org := f.String("org", "", "organization id")
	as := f.actor("email of the organization's dashboard user (admin or operator) who releases it; the audit log names them")
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		id, err := positionalID(args, "lockdown release --org ID LOCKDOWN_ID", "LOCKDOWN_ID")
		if err != nil {
			return err
		}
		actx := ctx
		if *as != "" {
			if actx, err = asUser(ctx, svc, orgID, *as); err != nil {
				return err
			}
		}
		l, err := svc.ReleaseLockdown(actx, orgID, id)
		if err != nil {
			return fmt.Errorf("lockdown %s: %w", id, err)
		}
		return f.print(l, "lockdown %s released at %s", l.ID, time.Time(*l.ReleasedAt).Format(time.RFC3339))
	})
}

// runLockdownList lists an organization's lockdowns, newest first.
func runLockdownList(ctx context.Context, e *env) error {
	f := newFlags(e, "lockdown list")
	org := f.String("org", "", "organization id")
	active := f.Bool("active", false, "only the lockdowns running now")
	limit := f.Int("limit", 50, fmt.Sprintf("lockdowns to print, newest first, 1 to %d", gatehouse.MaxLimit))
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := knownOrg(ctx, svc, *org)
		if err != nil {
			return err
		}
		page, err := svc.ListLockdowns(ctx, orgID, gatehouse.LockdownFilter{Active: *active, Limit: *limit})
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(page.Lockdowns, "")
		}
		for _, l := range page.Lockdowns {
			state := "RUNNING"
			if !l.Active {
				state = "ended"
			}
			fmt.Fprintf(e.stdout, "%s  %-7s  %s  %s  %q  %d/%d servers\n", l.ID, state,
				time.Time(l.StartedAt).Format(time.RFC3339), lockdownTarget(l), l.Reason, l.Targets.Executed, l.Targets.Live)
		}
		return nil
	})
}

// lockdownTarget says what a lockdown covers.
func lockdownTarget(l gatehouse.Lockdown) string {
	switch {
	case l.Location != nil:
		return "location " + l.Location.Name
	case l.UniverseID != nil:
		return "universe " + *l.UniverseID
	}
	return "the whole organization"
}
