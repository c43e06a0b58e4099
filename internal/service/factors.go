package service

// Two factors: a dashboard user's TOTP authenticator and recovery codes
// (docs/security.md, "Two factors").

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// signInAs ends a sign-in whose password (or invitation) matched u:
//   - u enrolled a second factor: no session yet, but a
//     [*gatehouse.SecondFactorError] whose token [Service.SignInSecondFactor]
//     takes with the code;
//   - u's organization requires one u has not: a session good only for
//     enrolling one ([gatehouse.Session.EnrolOnly]);
//   - otherwise a session.
func (s *Service) signInAs(ctx context.Context, u gatehouse.User) (gatehouse.Session, string, gatehouse.User, error) {
	if u.SecondFactor {
		return gatehouse.Session{}, "", gatehouse.User{}, s.secondStep(u)
	}
	required, err := s.store.SignInRequired(ctx, u.OrgID, gatehouse.RequireSecondFactor)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	kind := sessionFull
	if required {
		kind = sessionEnrolOnly
	}
	return s.startSession(ctx, u, kind)
}

// secondStep is the error that asks for the code of u's second factor.
func (s *Service) secondStep(u gatehouse.User) error {
	return &gatehouse.SecondFactorError{Token: s.sessions.SecondStep(u, s.now())}
}

// sessionKind is what a starting session was given: sessionGiven, the
// code of the user's second factor or the enrolment of one; the others,
// a password (or an accepted invitation) alone, which the store refuses
// for a user who has a second factor ([gatehouse.Session.SecondFactorGiven]).
type sessionKind int

const (
	sessionFull sessionKind = iota
	sessionEnrolOnly
	sessionGiven
)

// SignInSecondFactor finishes a sign-in that asked for the second factor
// ([*gatehouse.SecondFactorError]): token is the error's, code a code of
// the user's authenticator or one of their unused recovery codes. A code
// is good once: a code of a step already used, or of an earlier one, is
// refused. clientNetwork is the client's network as the limiter counts
// it; each wrong code is spent from the user's limit and the network's,
// like a wrong password.
//
// Errors:
//   - [gatehouse.ErrBadCredentials] when the token is not one SignIn
//     issued or has expired, the user has since been removed or lost their
//     factor, or the code is wrong or used;
//   - a [*gatehouse.RetryError] with [gatehouse.ErrSignInLimited];
//   - a store error.
func (s *Service) SignInSecondFactor(ctx context.Context, token, code, clientNetwork string) (gatehouse.Session, string, gatehouse.User, error) {
	userID, orgID, ok := s.sessions.OpenSecondStep(token, s.now())
	if !ok {
		return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrBadCredentials
	}
	u, err := s.userByID(ctx, orgID, userID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrBadCredentials
	}
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	if err := s.spendCode(ctx, u, code, clientNetwork); err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	return s.startSession(ctx, u, sessionGiven)
}

// spendCode checks a code of u's second factor, spending it when good
// (checkSecondFactor). A wrong one is spent from the limits of the
// user's codes and of the client's network before it is checked, and
// recorded as a failed sign-in in the organization's log.
//
// Errors: [gatehouse.ErrBadCredentials] for a wrong code; a
// [*gatehouse.RetryError] with [gatehouse.ErrSignInLimited]; a store
// error.
func (s *Service) spendCode(ctx context.Context, u gatehouse.User, code, clientNetwork string) error {
	refund, wait, allowed := s.codes(ctx, u.ID.String(), clientNetwork)
	if !allowed {
		return &gatehouse.RetryError{After: wait, Err: gatehouse.ErrSignInLimited}
	}
	ok, err := s.checkSecondFactor(ctx, u, code)
	if err != nil {
		refund(ctx)
		return err
	}
	if !ok {
		e := s.signInEntry(ctx, gatehouse.AuditSignInFailed, u).Change("secondFactor", "", "wrong code")
		if err := s.store.AppendAudit(ctx, e); err != nil {
			return err
		}
		return gatehouse.ErrBadCredentials
	}
	refund(ctx)
	return nil
}

// OpenSecondStep says whether token is a second step of a sign-in
// ([*gatehouse.SecondFactorError]) that has not expired, and whose.
func (s *Service) OpenSecondStep(token string) (userID, orgID uuid.UUID, ok bool) {
	return s.sessions.OpenSecondStep(token, s.now())
}

// checkSecondFactor says whether code is a good code of u's second
// factor, spending it: a TOTP code's step, or a recovery code (audited).
// A user without a second factor has no good code.
func (s *Service) checkSecondFactor(ctx context.Context, u gatehouse.User, code string) (bool, error) {
	f, err := s.store.FindSecondFactor(ctx, u.OrgID, u.ID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	secret, err := s.openTOTP(ctx, u, f.Sealed)
	if err != nil {
		return false, err
	}
	if recovery := gatehouse.NormalRecoveryCode(code); recovery != "" {
		e := s.signInEntry(ctx, gatehouse.AuditRecoveryCodeUsed, u)
		return s.store.UseRecoveryCode(ctx, e, u.OrgID, u.ID, gatehouse.RecoveryHash(secret, recovery))
	}
	step, ok := gatehouse.TOTPStep(secret, code, s.now())
	if !ok || step <= f.LastStep {
		return false, nil
	}
	return s.store.UseTOTPStep(ctx, u.OrgID, u.ID, step)
}

// openTOTP opens u's sealed TOTP secret.
func (s *Service) openTOTP(ctx context.Context, u gatehouse.User, sealed []byte) (string, error) {
	sealer, err := s.sealing(ctx)
	if err != nil {
		return "", err
	}
	secret, err := sealer.Open(u.OrgID, gatehouse.SecondFactorSealLabel(u.ID), sealed)
	if err != nil {
		return "", fmt.Errorf("the second factor of user %s does not open under the service secret: an admin resets it: %w", u.ID, err)
	}
	return string(secret), nil
}

// userByID returns the organization's user with that id.
func (s *Service) userByID(ctx context.Context, orgID, userID uuid.UUID) (gatehouse.User, error) {
	return s.userWhere(ctx, orgID, userID.String(), func(u gatehouse.User) bool { return u.ID == userID })
}

// userWhere returns the organization's user that is, named by name in
// the error when there is none.
func (s *Service) userWhere(ctx context.Context, orgID uuid.UUID, name string, is func(gatehouse.User) bool) (gatehouse.User, error) {
	users, err := s.store.ListUsers(ctx, orgID)
	if err != nil {
		return gatehouse.User{}, err
	}
	if i := slices.IndexFunc(users, is); i >= 0 {
		return users[i], nil
	}
	return gatehouse.User{}, fmt.Errorf("user %s: %w", name, gatehouse.ErrNotFound)
}
