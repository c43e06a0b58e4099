package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// userRecord is a dashboard user as the CLI prints it: never the hash.
// Invited says the user has not yet proven membership by signing in
// (see gatehouse.User.Proven).
type userRecord struct {
	ID      string         `json:"id"`
	Email   string         `json:"email"`
	Name    string         `json:"name"`
	Role    gatehouse.Role `json:"role"`
	Invited bool           `json:"invited"`
	// InvitedUntil: when the invitation's link expires, while the user
	// has one.
	InvitedUntil *gatehouse.Time `json:"invitedUntil,omitempty"`
	// Locations the role is limited to; empty: the whole organization.
	Locations []uuid.UUID `json:"locations"`
	// SecondFactor: the user enrolled one (TOTP).
	SecondFactor bool           `json:"secondFactor"`
	CreatedAt    gatehouse.Time `json:"createdAt"`
}

func newUserRecord(u gatehouse.User) userRecord {
	r := userRecord{ID: u.ID.String(), Email: u.Email, Name: u.Name, Role: u.Role, Invited: !u.Proven,
		Locations: append([]uuid.UUID{}, u.Reach...), SecondFactor: u.SecondFactor, CreatedAt: gatehouse.Time(u.CreatedAt)}
	if !u.InvitedUntil.IsZero() {
		until := gatehouse.Time(u.InvitedUntil)
		r.InvitedUntil = &until
	}
	return r
}

func runUserCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "user create")
	return runNewUser(ctx, f, func(ctx context.Context, svc *service.Service, nu gatehouse.NewUser) error {
		pw, err := readPassword(e)
		if err != nil {
			return err
		}
		nu.Password = pw
		u, err := svc.CreateUser(ctx, nu)
		if err != nil {
			return err
		}
		return f.print(newUserRecord(u), "created user %s %s (%s)", u.ID, u.Email, u.Role)
	})
}

// runNewUser adds --org, --email, --name, --role, --locations and --as
// to f, and runs do with the user they describe, as --as.
func runNewUser(ctx context.Context, f *flags, do func(context.Context, *service.Service, gatehouse.NewUser) error) error {
	org := f.String("org", "", "organization id")
	email := f.String("email", "", "sign-in email")
	name := f.String("name", "", "display name")
	role := f.String("role", string(gatehouse.RoleViewer), "admin, operator or viewer (the organization's first user is always admin)")
	locations := f.String("locations", "", locationsUsage)
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if err := required("email", *email); err != nil {
			return err
		}
		r, err := parseRole(*role)
		if err != nil {
			return err
		}
		reach, err := gatehouse.ParseReach("locations", *locations)
		if err != nil {
			return err
		}
		return do(ctx, svc, gatehouse.NewUser{OrgID: orgID, Email: *email, Name: *name, Role: r, Locations: reach})
	})
}

func runUserList(ctx context.Context, e *env) error {
	f := newFlags(e, "user list")
	org := f.String("org", "", "organization id")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		users, err := svc.ListUsers(ctx, orgID)
		if err != nil {
			return err
		}
		recs := make([]userRecord, len(users))
		for i, u := range users {
			recs[i] = newUserRecord(u)
		}
		if *f.json {
			return f.print(recs, "")
		}
		for _, r := range recs {
			notes := ""
			if r.SecondFactor {
				notes += "  (two-factor)"
			}
			switch {
			case r.InvitedUntil != nil:
				notes += "  (invited: link until " + gatehouse.FormatTime(time.Time(*r.InvitedUntil)) + ")"
			case r.Invited:
				notes += "  (invited: no working link; gatehouse user renew-invitation makes one)"
			}
			if len(r.Locations) > 0 {
				notes += "  (limited to " + gatehouse.Reach(r.Locations).String() + ")"
			}
			fmt.Fprintf(e.stdout, "%s  %-8s %s  %s%s\n", r.ID, r.Role, r.Email, r.Name, notes)
		}
		return nil
	})
}

func runUserSetRole(ctx context.Context, e *env) error {
	f := newFlags(e, "user set-role")
	org := f.String("org", "", "organization id")
	email := f.String("email", "", "the user's sign-in email")
	role := f.String("role", "", "admin, operator or viewer")
	locations := f.String("locations", "", locationsUsage+"; without it, the role is over the whole organization")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, email, err := orgAndEmail(*org, *email)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if err := required("role", *role); err != nil {
			return err
		}
		r, err := parseRole(*role)
		if err != nil {
			return err
		}
		reach, err := gatehouse.ParseReach("locations", *locations)
		if err != nil {
			return err
		}
		u, err := svc.SetUserRole(ctx, orgID, email, r, reach)
		if err != nil {
			return err
		}
		if !u.Reach.Whole() {
			return f.print(newUserRecord(u), "%s is now %s of %d locations", u.Email, u.Role, len(u.Reach))
		}
		return f.print(newUserRecord(u), "%s is now %s", u.Email, u.Role)
	})
}

func runUserRemove(ctx context.Context, e *env) error {
	return runOnUser(ctx, e, "user remove", func(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) (string, gatehouse.User, error) {
		u, err := svc.RemoveUser(ctx, orgID, email)
		return fmt.Sprintf("removed user %s %s; their sessions have ended", u.ID, u.Email), u, err
	})
}

// runUserResetSecondFactor removes a user's second factor, for a lost
// phone.
func runUserResetSecondFactor(ctx context.Context, e *env) error {
	return runOnUser(ctx, e, "user reset-second-factor", func(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) (string, gatehouse.User, error) {
		u, err := svc.ResetSecondFactor(ctx, orgID, email)
		return fmt.Sprintf("%s has no second factor now; their sessions have ended", u.Email), u, err
	})
}

// runUserEndSessions signs a user out everywhere.
func runUserEndSessions(ctx context.Context, e *env) error {
	return runOnUser(ctx, e, "user end-sessions", func(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) (string, gatehouse.User, error) {
		u, n, err := svc.EndUserSessions(ctx, orgID, email)
		return fmt.Sprintf("signed %s out everywhere: %d sessions ended", u.Email, n), u, err
	})
}

// runOnUser runs a command that acts on the user --org and --email name,
// as --as, and prints the user with what do says it did.
func runOnUser(ctx context.Context, e *env, name string, do func(context.Context, *service.Service, uuid.UUID, string) (string, gatehouse.User, error)) error {
	f := newFlags(e, name)
	return runOnUserFlags(ctx, f, func(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) error {
		done, u, err := do(ctx, svc, orgID, email)
		if err != nil {
			return err
		}
		return f.print(newUserRecord(u), "%s", done)
	})
}

// runOnUserFlags adds --org, --email and --as to f, and runs do on the
// user they name, as --as; do prints.
func runOnUserFlags(ctx context.Context, f *flags, do func(context.Context, *service.Service, uuid.UUID, string) error) error {
	org := f.String("org", "", "organization id")
	email := f.String("email", "", "the user's sign-in email")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, email, err := orgAndEmail(*org, *email)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		return do(ctx, svc, orgID, email)
	})
}

// runUserSetPassword names the user by organization and email. Without
// --org (the form of before emails were unique per organization only) it
// works while exactly one organization has a user with that email.
func runUserSetPassword(ctx context.Context, e *env) error {
	f := newFlags(e, "user set-password")
	org := f.String("org", "", "organization id (needed when the email belongs to several organizations)")
	email := f.String("email", "", "the user's sign-in email")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		if err := required("email", *email); err != nil {
			return err
		}
		var orgID uuid.UUID
		if *org != "" {
			var err error
			if orgID, err = parseID("org", *org); err != nil {
				return err
			}
		}
		pw, err := readPassword(e)
		if err != nil {
			return err
		}
		u, err := svc.SetPassword(ctx, orgID, *email, pw)
		var ve *gatehouse.ValidationError
		if errors.As(err, &ve) && ve.Issues["org"] != nil {
			return usagef("%s; add --org ORG_ID", strings.Join(ve.Issues["org"], ", "))
		}
		if err != nil {
			return err
		}
		return f.print(newUserRecord(u), "set the password of %s; their sessions have ended", u.Email)
	})
}

// orgAndEmail reads the --org and --email that name a user.
func orgAndEmail(org, email string) (uuid.UUID, string, error) {
	orgID, err := parseID("org", org)
	if err != nil {
		return orgID, "", err
	}
	return orgID, email, required("email", email)
}

func parseRole(s string) (gatehouse.Role, error) {
	r, err := gatehouse.ParseRole(s)
	if err != nil {
		return r, usagef("--role must be admin, operator or viewer, got %q", s)
	}
	return r, nil
}

// readPassword takes the password from GATEHOUSE_PASSWORD or, on a
// terminal, from a prompt without echo, asked twice.
func readPassword(e *env) (string, error) {
	pw := e.getenv("GATEHOUSE_PASSWORD")
	if pw == "" {
		in, ok := e.stdin.(*os.File)
		if !ok || !term.IsTerminal(int(in.Fd())) {
			return "", usagef("set GATEHOUSE_PASSWORD, or run on a terminal to be asked for the password")
		}
		first, err := prompt(e, in, "Password: ")
		if err != nil {
			return "", err
		}
		again, err := prompt(e, in, "Password again: ")
		if err != nil {
			return "", err
		}
		if first != again {
			return "", errors.New("the passwords differ")
		}
		pw = first
	}
	if utf8.RuneCountInString(pw) < gatehouse.MinPasswordLen {
		return "", fmt.Errorf("the password must have at least %d characters", gatehouse.MinPasswordLen)
	}
	return pw, nil
}
