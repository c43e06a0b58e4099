package cli

import (
	"context"
	"errors"
	"strconv"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// runUserDataErase erases one player from an organization: every event
// and command of that platform user id, with an audit entry that names
// the player by a keyed hash only.
func runUserDataErase(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "user-data erase", "PLATFORM_USER_ID", func(f *flags, svc *gatehouse.Service, orgID uuid.UUID, player string) error {
		er, err := svc.ErasePlatformUser(ctx, orgID, player)
		if err != nil {
			return err
		}
		return f.print(er, "erased %d events and %d commands of the player", er.Events, er.Commands)
	})
}

// withOrgAnd runs fn for a command of one organization (--org) and one
// positional argument, named arg in its usage, with the service open.
func withOrgAnd(ctx context.Context, e *env, name, arg string, fn func(f *flags, svc *gatehouse.Service, orgID uuid.UUID, value string) error) error {
	f := newFlags(e, name)
	org := f.String("org", "", "organization id")
	return withService(ctx, f, 1, func(svc *gatehouse.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if len(args) != 1 {
			return usagef("%s needs the %s", name, arg)
		}
		return fn(f, svc, orgID, args[0])
	})
}

// runOrgSetRetention sets how many days of an organization's events are kept.
func runOrgSetRetention(ctx context.Context, e *env) error {
	f := newFlags(e, "org set-retention")
	return withService(ctx, f, 2, func(svc *gatehouse.Service, args []string) error {
		if len(args) != 2 {
			return usagef("org set-retention needs ORG_ID and DAYS")
		}
		id, err := parseID("ORG_ID", args[0])
		if err != nil {
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

// runPrivacyErasureWebhook prints the organization's right-to-erasure
// webhook (the path to append to the server's public address, and the
// secret), setting it up when it has none or with --new: what an admin
// finds on the dashboard's Privacy page, for an operator without one.
func runPrivacyErasureWebhook(ctx context.Context, e *env) error {
	f := newFlags(e, "privacy erasure-webhook")
	org := f.String("org", "", "organization id")
	replace := f.Bool("new", false, "make a new token and secret: the current URL stops working at once")
	return withService(ctx, f, 0, func(svc *gatehouse.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		in, err := svc.ErasureWebhook(ctx, orgID)
		if *replace || errors.Is(err, gatehouse.ErrNotFound) {
			in, err = svc.SetUpErasureWebhook(ctx, orgID)
		}
		if err != nil {
			return err
		}
		path := gatehouse.ErasureWebhookPath + in.Token
		return f.print(struct {
			Path   string `json:"path"`
			Secret string `json:"secret"`
		}{path, in.Secret}, "URL:    https://<this server's public address>%s\nsecret: %s\nPaste both into the platform's webhook settings, with the right-to-erasure trigger.", path, in.Secret)
	})
}
