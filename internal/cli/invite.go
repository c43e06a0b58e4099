package cli

import (
	"context"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// invitationRecord is a user invited and their link, as the CLI prints
// it: the only time the link shows.
type invitationRecord struct {
	userRecord
	Link string `json:"invitationLink"`
}

// publicURLUsage is the usage of an invitation command's --public-url.
const publicURLUsage = "where people reach the server, such as https://gatehouse.example.com: the link starts with it; empty: the link is a path, to put after that address"

// runUserInvite adds a user as an invitation and prints its link.
func runUserInvite(ctx context.Context, e *env) error {
	f := newFlags(e, "user invite")
	org := f.String("org", "", "organization id")
	email := f.String("email", "", "sign-in email")
	name := f.String("name", "", "display name")
	role := f.String("role", string(gatehouse.RoleViewer), "admin, operator or viewer (the organization's first user is always admin)")
	public := f.setting("public-url", "GATEHOUSE_PUBLIC_URL", "", publicURLUsage)
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		base, err := publicBase(*public)
		if err != nil {
			return err
		}
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
		u, token, err := svc.InviteUser(ctx, gatehouse.NewUser{OrgID: orgID, Email: *email, Name: *name, Role: r})
		if err != nil {
			return err
		}
		return printInvitation(f, u, base, token, "invited")
	})
}

// runUserRenewInvitation makes a new link for a user who has not joined.
func runUserRenewInvitation(ctx context.Context, e *env) error {
	f := newFlags(e, "user renew-invitation")
	public := f.setting("public-url", "GATEHOUSE_PUBLIC_URL", "", publicURLUsage)
	return runOnUserFlags(ctx, f, func(ctx context.Context, svc *service.Service, orgID uuid.UUID, email string) error {
		base, err := publicBase(*public)
		if err != nil {
			return err
		}
		u, token, err := svc.RenewInvitation(ctx, orgID, email)
		if err != nil {
			return err
		}
		return printInvitation(f, u, base, token, "new invitation link for")
	})
}

// printInvitation prints the user u invited and the link of token under
// base.
func printInvitation(f *flags, u gatehouse.User, base, token, done string) error {
	link := base + gatehouse.InvitationPath(token)
	return f.print(invitationRecord{newUserRecord(u), link},
		"%s %s %s (%s): send them this link, shown only now; it works once, until %s\n%s",
		done, u.ID, u.Email, u.Role, gatehouse.FormatTime(u.InvitedUntil), link)
}
