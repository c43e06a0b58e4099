package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// InviteUser adds a dashboard user to the organization as an invitation:
// no password, no part in sign-in, and a link good for
// [gatehouse.InvitationLifetime] and once, through which the person sets
// their own password ([Service.Join]). token is the link's, for
// [gatehouse.InvitationPath]: shown to the admin this once, and kept by
// nobody.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "email", "name" or "role";
//   - [gatehouse.ErrConflict] when the email is taken in the organization;
//   - [gatehouse.ErrNotFound] for an unknown organization;
//   - [gatehouse.ErrForbidden] when the acting user is no admin.
func (s *Service) InviteUser(ctx context.Context, nu gatehouse.NewUser) (u gatehouse.User, token string, err error) {
	if err := gatehouse.Authorize(ctx, nu.OrgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, "", err
	}
	if u, err = s.checkNewUser(ctx, nu, &gatehouse.ValidationError{}); err != nil {
		return gatehouse.User{}, "", err
	}
	inv, token := gatehouse.NewInvitation(u.OrgID, uuid.Nil, s.now())
	u, err = s.store.CreateUser(ctx, s.userAdded(ctx, u), u, &inv)
	if err != nil {
		return gatehouse.User{}, "", err
	}
	return u, token, nil
}

// RenewInvitation makes a new link for the organization's user with that
// email, who has not joined yet: the link it had, used or not, expired
// or not, signs nobody up any more.
//
// Errors:
//   - [gatehouse.ErrNotFound] for an unknown user;
//   - [gatehouse.ErrConflict] when the user is a member already;
//   - [gatehouse.ErrForbidden] when the acting user is no admin.
func (s *Service) RenewInvitation(ctx context.Context, orgID uuid.UUID, email string) (gatehouse.User, string, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, "", err
	}
	u, err := s.userByEmail(ctx, orgID, email)
	if err != nil {
		return gatehouse.User{}, "", err
	}
	inv, token := gatehouse.NewInvitation(orgID, u.ID, s.now())
	if u, err = s.store.SetInvitation(ctx, s.entry(ctx, orgID, gatehouse.AuditUserInvited, gatehouse.TargetUser), inv); err != nil {
		return gatehouse.User{}, "", err
	}
	return u, token, nil
}

// Joining is what an invitation link's page shows before the person
// joins: who is invited, where, and what joining takes.
type Joining struct {
	User         gatehouse.User
	Organization gatehouse.Organization
	// ProviderOnly says the organization signs in through the OpenID
	// provider only: the person joins by signing in there, with the
	// invited email, not with a password.
	ProviderOnly bool
}

// Invitation returns what the link with that token invites to, for
// anyone who holds it: the link is the credential.
//
// Errors:
//   - [gatehouse.ErrNotFound] for a link used, replaced or never made;
//   - [gatehouse.ErrInvitationExpired] for one past its expiry.
func (s *Service) Invitation(ctx context.Context, token string) (Joining, error) {
	inv, u, err := s.store.FindInvitation(ctx, gatehouse.InvitationHash(token))
	if err != nil {
		return Joining{}, err
	}
	if !inv.ExpiresAt.After(s.now()) {
		return Joining{}, gatehouse.ErrInvitationExpired
	}
	o, err := s.store.FindOrganization(ctx, u.OrgID)
	if err != nil {
		return Joining{}, err
	}
	only, err := s.store.SignInRequired(ctx, u.OrgID, gatehouse.RequireProvider)
	if err != nil {
		return Joining{}, err
	}
	return Joining{User: u, Organization: o, ProviderOnly: only}, nil
}

// Join uses the invitation link with that token: the invited user's
// password becomes password, the user a member, and a session of theirs
// starts (one good only for enrolment when the organization requires a
// second factor). The link is good once.
//
// The link proves that its holder got this organization's link, and no
// more: the membership it makes is the organization's own, with its own
// password, whatever other organizations the email belongs to. It never
// reaches another organization's invitations, and the email's failed
// sign-ins stay with the organization that proved it first
// ([Service.SignIn]).
//
// Errors: those of [Service.Invitation];
// [gatehouse.ErrProviderRequired] when the organization signs in through
// the OpenID provider only (the person joins there); a
// [*gatehouse.ValidationError] keyed "password"; [gatehouse.ErrHashBusy].
func (s *Service) Join(ctx context.Context, token, password string) (gatehouse.Session, string, gatehouse.User, error) {
	j, err := s.Invitation(ctx, token)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	if j.ProviderOnly {
		return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrProviderRequired
	}
	var errs gatehouse.ValidationError
	if gatehouse.CheckPassword(&errs, password); errs.Err() != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, errs.Err()
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	u, err := s.useInvitation(ctx, j.User, gatehouse.InvitationHash(token), hash)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	return s.signInAs(ctx, u)
}

// useInvitation uses the invitation of u (the link of hash, unless it is
// zero), setting passwordHash unless it is empty: the person is the
// actor of its entry, since nobody is signed in as u yet.
// [gatehouse.ErrNotFound] when it was used or replaced meanwhile, or
// expired.
func (s *Service) useInvitation(ctx context.Context, u gatehouse.User, hash [32]byte, passwordHash string) (gatehouse.User, error) {
	e := s.signInEntry(ctx, gatehouse.AuditInvitationAccepted, u)
	u, err := s.store.UseInvitation(ctx, e, u.OrgID, u.ID, hash, passwordHash, s.now())
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.User{}, fmt.Errorf("the invitation was used, replaced or has expired: %w", gatehouse.ErrNotFound)
	}
	return u, err
}
