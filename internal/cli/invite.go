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
	public := f.setting("public-url", "GATEHOUSE_PUBLIC_URL", "", publicURLUsage)
	return runNewUser(ctx, f, func(ctx context.Context, svc *service.Service, nu gatehouse.NewUser) error {
		base, err := publicBase(*public)
		if err != nil {
			return err
		}
		u, token, err := svc.InviteUser(ctx, nu)
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
