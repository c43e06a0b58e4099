package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// runCommandUnlock issues a remote unlock for a dashboard user of the
// organization (--as, or GATEHOUSE_ACTOR): the operator is no user, and
// the contract leaves no command unattributed, so the user is its requester
// and their role is checked as the dashboard checks it.
func runCommandUnlock(ctx context.Context, e *env) error {
	f := newFlags(e, "command unlock")
	org := f.String("org", "", "organization id")
	ap := f.String("access-point", "", "the access point to unlock; its location must name a universe (location set-universe)")
	scope := f.String("scope", "", "UNIVERSE (every live server of the universe), SERVER (one, --server-job-id) or PLAYER (the server hosting --platform-user-id)")
	job := f.String("server-job-id", "", "the game server's job id, for --scope SERVER")
	player := f.String("platform-user-id", "", "the player's platform user id, for --scope PLAYER")
	duration := f.duration("duration", 0, fmt.Sprintf("how long the access point stays unlocked, %ds to %ds (default %ds)",
		gatehouse.MinUnlockSeconds, gatehouse.MaxUnlockSeconds, gatehouse.DefaultUnlockSeconds))
	ttl := f.duration("ttl", 0, fmt.Sprintf("how long the command may wait to be executed, %ds to %ds (default %ds)",
		gatehouse.MinCommandTTL, gatehouse.MaxCommandTTL, gatehouse.DefaultCommandTTL))
	note := f.String("note", "", fmt.Sprintf("free text kept with the command, at most %d characters", gatehouse.MaxCommandNote))
	as := f.actor("email of the organization's dashboard user (admin or operator) who requests the unlock")
	idem := f.String("idempotency-key", "", "a key that makes a retry answer the command first issued (for 24 hours)")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if err := required("as", *as); err != nil {
			return usagef("--as EMAIL is required: a command is requested by a dashboard user of the organization")
		}
		var errs gatehouse.ValidationError
		r := gatehouse.CommandRequest{Type: gatehouse.CommandUnlock, Scope: gatehouse.CommandScope(strings.ToUpper(*scope)),
			ServerJobID: job, PlatformUserID: player, Note: note}
		if *ap != "" {
			if r.AccessPointID, err = gatehouse.ParseUUID(*ap); err != nil {
				errs.Add("--access-point", "must be a UUID")
				r.AccessPointID = gatehouse.NewID() // checked above: not "is required" too
			}
		}
		r.DurationSeconds = seconds(&errs, "--duration", *duration)
		r.TTLSeconds = seconds(&errs, "--ttl", *ttl)
		if _, err := r.Check(); err != nil {
			errs.Merge("", flagIssues(err))
		}
		actx, err := asUser(ctx, svc, orgID, *as)
		if err != nil {
			var ve *gatehouse.ValidationError
			if !errors.As(err, &ve) {
				return err
			}
			errs.Merge("", ve)
		}
		if err := errs.Err(); err != nil {
			return err
		}
		c, replayed, err := svc.IssueCommand(actx, orgID, r, *idem)
		if err != nil {
			return unlockError(err, *as)
		}
		if replayed {
			fmt.Fprintf(e.stderr, "the idempotency key %q was used before: this is the command it issued, as it is now\n", *idem)
		}
		return f.print(c, "%s", commandLine(c))
	})
}

// seconds converts a duration flag to the whole seconds the request
// takes; 0 (unset) leaves the default to the service.
func seconds(errs *gatehouse.ValidationError, name string, d time.Duration) int {
	if d%time.Second != 0 || d < 0 {
		errs.Add(name, "must be a positive whole number of seconds, e.g. 30s or 5m")
		return 0
	}
	return int(d / time.Second)
}

// unlockError says who may not do what, or which flag is wrong, for an
// error of IssueCommand.
func unlockError(err error, as string) error {
	if errors.Is(err, gatehouse.ErrForbidden) {
		return fmt.Errorf("%s may not issue commands (an admin or operator may): %w", as, err)
	}
	if ve := flagIssues(err); ve != nil {
		return ve
	}
	return err
}

// asUser returns ctx acting as the organization's dashboard user with
// that email, what the service checks roles against and records as the
// requester and in the audit log. An email the organization does not know
// is a *ValidationError keyed "--as"; an unknown organization ErrNotFound.
func asUser(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) (context.Context, error) {
	if _, err := svc.FindOrganization(ctx, orgID); err != nil {
		return ctx, fmt.Errorf("organization %s: %w", orgID, err)
	}
	users, err := svc.ListUsers(ctx, orgID)
	if err != nil {
		return ctx, err
	}
	for _, u := range users {
		if strings.EqualFold(u.Email, strings.TrimSpace(email)) {
			return gatehouse.WithActor(ctx, u.Actor()), nil
		}
	}
	return ctx, gatehouse.Invalid("--as", "%s is not a dashboard user of the organization (gatehouse user list --org %s)", email, orgID)
}

func runCommandList(ctx context.Context, e *env) error {
	f := newFlags(e, "command list")
	org := f.String("org", "", "organization id")
	status := f.String("status", "", "only this status: "+statusList())
	ap := f.String("access-point", "", "only commands of this access point id")
	loc := f.String("location", "", "only commands of access points of this location id")
	scope := f.String("scope", "", "only this scope: UNIVERSE, SERVER or PLAYER")
	limit := f.Int("limit", 50, fmt.Sprintf("commands to print, newest first, 1 to %d", gatehouse.MaxLimit))
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		filter, err := commandFilter(*status, *scope, *ap, *loc, *limit)
		if err != nil {
			return err
		}
		if _, err := svc.FindOrganization(ctx, orgID); err != nil {
			return fmt.Errorf("organization %s: %w", orgID, err)
		}
		page, err := svc.ListCommands(ctx, orgID, filter)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(page.Commands, "")
		}
		for _, c := range page.Commands {
			fmt.Fprintln(e.stdout, commandRow(c))
		}
		if page.Next != nil {
			fmt.Fprintf(e.stderr, "more commands follow: raise --limit (at most %d) or narrow the filters\n", gatehouse.MaxLimit)
		}
		return nil
	})
}

// commandFilter reads command list's flags into a filter, or a
// *ValidationError naming every bad flag.
func commandFilter(status, scope, ap, loc string, limit int) (gatehouse.CommandFilter, error) {
	var errs gatehouse.ValidationError
	f := gatehouse.CommandFilter{Limit: limit}
	if limit < 1 || limit > gatehouse.MaxLimit {
		errs.Add("--limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	if status != "" {
		st := gatehouse.CommandStatus(strings.ToUpper(status))
		if !slices.Contains(gatehouse.CommandStatuses, st) {
			errs.Add("--status", "must be one of %s", statusList())
		}
		f.Status = &st
	}
	if scope != "" {
		sc := gatehouse.CommandScope(strings.ToUpper(scope))
		if !slices.Contains(gatehouse.CommandScopes, sc) {
			errs.Add("--scope", "must be one of UNIVERSE, SERVER, PLAYER")
		}
		f.Scope = &sc
	}
	for _, id := range []struct {
		flag, value string
		dst         **uuid.UUID
	}{{"--access-point", ap, &f.AccessPointID}, {"--location", loc, &f.LocationID}} {
		if id.value == "" {
			continue
		}
		v, err := gatehouse.ParseUUID(id.value)
		if err != nil {
			errs.Add(id.flag, "must be a UUID")
		}
		*id.dst = &v
	}
	return f, errs.Err()
}

func runCommandShow(ctx context.Context, e *env) error {
	f := newFlags(e, "command show")
	return withExistingService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "command show COMMAND_ID", "COMMAND_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfCommand(ctx, id)
		if err != nil {
			return fmt.Errorf("command %s: %w", id, err)
		}
		c, err := svc.FindCommand(ctx, orgID, id)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(c, "")
		}
		printCommand(e.stdout, c)
		return nil
	})
}

// runCommandCancel cancels a command that is not settled; with --as the
// cancellation is the user's (and their role is checked), else the
// system's, like the CLI's other changes.
func runCommandCancel(ctx context.Context, e *env) error {
	f := newFlags(e, "command cancel")
	as := f.actor("email of the organization's dashboard user (admin or operator) who cancels it; the audit log names them")
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "command cancel COMMAND_ID [--as EMAIL]", "COMMAND_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfCommand(ctx, id)
		if err != nil {
			return fmt.Errorf("command %s: %w", id, err)
		}
		actx := ctx
		if *as != "" {
			if actx, err = asUser(ctx, svc, orgID, *as); err != nil {
				return err
			}
		}
		c, err := svc.CancelCommand(actx, orgID, id)
		switch {
		case errors.Is(err, gatehouse.ErrConflict):
			return &settledError{id: id, status: c.Status, err: err}
		case errors.Is(err, gatehouse.ErrForbidden):
			return fmt.Errorf("%s may not cancel commands (an admin or operator may): %w", *as, err)
		case err != nil:
			return err
		}
		return f.print(c, "cancelled command %s; the servers that received it lock again at their next sync", c.ID)
	})
}

// settledError is cancel's refusal of a settled command: it says the
// status and is the service's conflict (exit status 1).
type settledError struct {
	id     uuid.UUID
	status gatehouse.CommandStatus
	err    error
}

func (e *settledError) Error() string {
	return fmt.Sprintf("command %s cannot be cancelled: it is %s already, and a settled command never moves", e.id, e.status)
}

func (e *settledError) Unwrap() error { return e.err }
