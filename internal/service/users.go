package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateUser adds a dashboard user to the organization with the
// password the operator gives, hashed, as a member at once: the operator
// holds the whole installation and vouches for the person. A dashboard
// user adds people with [Service.InviteUser] instead, so that nobody
// starts with a password an admin knows.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "email", "name", "password" or
//     "role";
//   - [gatehouse.ErrConflict] when the email is taken in the organization;
//   - [gatehouse.ErrNotFound] for an unknown organization;
//   - [gatehouse.ErrForbidden] when a dashboard user acts (the CLI's
//     --as included): they invite.
func (s *Service) CreateUser(ctx context.Context, nu gatehouse.NewUser) (gatehouse.User, error) {
	if a := gatehouse.ActorFrom(ctx); a.Type == gatehouse.ActorUser || a.Type == gatehouse.ActorKey {
		return gatehouse.User{}, fmt.Errorf("only the operator sets a new user's password; invite the user instead: %w", gatehouse.ErrForbidden)
	}
	var errs gatehouse.ValidationError
	gatehouse.CheckPassword(&errs, nu.Password)
	u, err := s.checkNewUser(ctx, nu, &errs)
	if err != nil {
		return gatehouse.User{}, err
	}
	if u.PasswordHash, err = s.hasher.Hash(nu.Password); err != nil {
		return gatehouse.User{}, err
	}
	u.Proven = true
	return s.store.CreateUser(ctx, s.userAdded(ctx, u), u, nil)
}

// checkNewUser is the user nu asks for, checked, with errs (a password's
// issues, say) merged in.
func (s *Service) checkNewUser(ctx context.Context, nu gatehouse.NewUser, errs *gatehouse.ValidationError) (gatehouse.User, error) {
	u, err := gatehouse.CheckUser(gatehouse.User{OrgID: nu.OrgID, Email: nu.Email, Name: nu.Name, Role: nu.Role})
	errs.Merge("", gatehouse.AsValidation(err))
	_, err = gatehouse.CheckReach("locations", nu.Locations)
	errs.Merge("", gatehouse.AsValidation(err))
	if err := errs.Err(); err != nil {
		return u, err
	}
	u.Reach, err = s.checkReach(ctx, nu.OrgID, "locations", nu.Locations, nil, nil)
	return u, err
}

// userAdded is the audit entry of the user u added.
func (s *Service) userAdded(ctx context.Context, u gatehouse.User) gatehouse.AuditEntry {
	return s.entry(ctx, u.OrgID, gatehouse.AuditUserAdded, gatehouse.TargetUser).Change("email", "", u.Email).Change("name", "", u.Name).
		Change("locations", "", u.Reach.String())
}

// ListUsers returns the organization's users ordered by email.
// [gatehouse.ErrForbidden] when the acting user is no admin.
func (s *Service) ListUsers(ctx context.Context, orgID uuid.UUID) ([]gatehouse.User, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return nil, err
	}
	return s.store.ListUsers(ctx, orgID)
}

// SetUserRole gives the organization's user with that email role over
// the locations listed (none: the whole organization); a change that
// lowers what they may do ends their sessions at once.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "role" or "locations";
//   - [gatehouse.ErrNotFound] for an unknown user;
//   - [gatehouse.ErrConflict] when the organization would be left without
//     an admin of all its locations;
//   - [gatehouse.ErrForbidden] when the acting user is no admin of the
//     whole organization.
func (s *Service) SetUserRole(ctx context.Context, orgID uuid.UUID, email string, role gatehouse.Role, locations []uuid.UUID) (gatehouse.User, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, err
	}
	if _, err := gatehouse.ParseRole(string(role)); err != nil {
		return gatehouse.User{}, err
	}
	u, err := s.userByEmail(ctx, orgID, email)
	if err != nil {
		return gatehouse.User{}, err
	}
	reach, err := s.checkReach(ctx, orgID, "locations", locations, nil, u.Reach)
	if err != nil {
		return gatehouse.User{}, err
	}
	return s.store.SetUserRole(ctx, s.entry(ctx, orgID, gatehouse.AuditUserRoleChanged, gatehouse.TargetUser), orgID, email, role, reach)
}

// RemoveUser removes the organization's user with that email and ends
// their sessions at once.
//
// Errors:
//   - [gatehouse.ErrNotFound] for an unknown user;
//   - [gatehouse.ErrConflict] for the organization's last admin;
//   - [gatehouse.ErrForbidden] when the acting user is no admin.
func (s *Service) RemoveUser(ctx context.Context, orgID uuid.UUID, email string) (gatehouse.User, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, err
	}
	return s.store.RemoveUser(ctx, s.entry(ctx, orgID, gatehouse.AuditUserRemoved, gatehouse.TargetUser), orgID, email)
}

// SetPassword replaces the password of the organization's user with that
// email and ends the user's sessions. orgID may be uuid.Nil when exactly
// one organization has a user with that email (the CLI's older form).
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "password", or keyed "org" when
//     the email belongs to several organizations and none was named;
//   - [gatehouse.ErrNotFound] when there is no such user;
//   - [gatehouse.ErrForbidden] when the acting user is no admin.
func (s *Service) SetPassword(ctx context.Context, orgID uuid.UUID, email, password string) (gatehouse.User, error) {
	if orgID == uuid.Nil {
		u, err := s.onlyUser(ctx, email)
		if err != nil {
			return gatehouse.User{}, err
		}
		orgID = u.OrgID
	}
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, err
	}
	var errs gatehouse.ValidationError
	if gatehouse.CheckPassword(&errs, password); errs.Err() != nil {
		return gatehouse.User{}, errs.Err()
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return gatehouse.User{}, err
	}
	return s.store.SetUserPassword(ctx, s.entry(ctx, orgID, gatehouse.AuditUserPasswordSet, gatehouse.TargetUser), orgID, email, hash)
}

// onlyUser returns the one user with that email in any organization.
func (s *Service) onlyUser(ctx context.Context, email string) (gatehouse.User, error) {
	users, err := s.store.FindUsersByEmail(ctx, email)
	switch {
	case err != nil:
		return gatehouse.User{}, err
	case len(users) == 0:
		return gatehouse.User{}, fmt.Errorf("user %s: %w", strings.ToLower(strings.TrimSpace(email)), gatehouse.ErrNotFound)
	case len(users) > 1:
		return gatehouse.User{}, gatehouse.Invalid("org", "%s belongs to %d organizations; name one with its id", users[0].Email, len(users))
	}
	return users[0], nil
}

// SetUpUser gives the organization's user with that email a new
// password, adding the user when there is none: the demo's account.
// Errors as [Service.CreateUser]'s.
func (s *Service) SetUpUser(ctx context.Context, nu gatehouse.NewUser) (gatehouse.User, error) {
	u, err := s.SetPassword(ctx, nu.OrgID, nu.Email, nu.Password)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return s.CreateUser(ctx, nu)
	}
	return u, err
}

// SetTimeZone remembers the zone the organization's user reads times in
// (see [gatehouse.CheckTimeZone]). A [*gatehouse.ValidationError] keyed
// "timeZone"; [gatehouse.ErrNotFound] when the organization has no such
// user.
func (s *Service) SetTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error {
	if a := gatehouse.ActorFrom(ctx); a.Type == gatehouse.ActorUser && (a.EnrolOnly || a.ID != userID) {
		return fmt.Errorf("a user sets their own time zone: %w", gatehouse.ErrForbidden)
	}
	if err := gatehouse.CheckTimeZone(zone); err != nil {
		return err
	}
	return s.store.SetUserTimeZone(ctx, orgID, userID, zone)
}
