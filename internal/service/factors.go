package service

// Two factors: a dashboard user's TOTP authenticator and recovery codes
// (docs/security.md, "Two factors").

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	required, err := s.store.SecondFactorRequired(ctx, u.OrgID)
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
	users, err := s.store.ListUsers(ctx, orgID)
	if err != nil {
		return gatehouse.User{}, err
	}
	if i := slices.IndexFunc(users, func(u gatehouse.User) bool { return u.ID == userID }); i >= 0 {
		return users[i], nil
	}
	return gatehouse.User{}, fmt.Errorf("user %s: %w", userID, gatehouse.ErrNotFound)
}

// Enrolment is a second factor being enrolled: the key to show, and
// Pending, the sealed secret that [Service.EnrolSecondFactor] takes back
// with a code from it.
type Enrolment struct {
	gatehouse.TOTPKey
	Pending string
}

// BeginEnrolment makes a new TOTP secret for the signed-in dashboard
// user to enrol, good for [gatehouse.EnrolmentLifetime]. Nothing is
// stored until the user gives a code from it back. [gatehouse.ErrConflict]
// when the user has a second factor already (they remove it first);
// [gatehouse.ErrForbidden] for anyone but a signed-in user.
func (s *Service) BeginEnrolment(ctx context.Context) (Enrolment, error) {
	a := gatehouse.ActorFrom(ctx)
	u, err := s.actingUser(ctx)
	if err != nil {
		return Enrolment{}, err
	}
	if u.SecondFactor {
		return Enrolment{}, fmt.Errorf("you have a second factor already; remove it to enrol another: %w", gatehouse.ErrConflict)
	}
	key, err := gatehouse.NewTOTPKey(a.Label, "")
	if err != nil {
		return Enrolment{}, err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return Enrolment{}, err
	}
	plain := binary.BigEndian.AppendUint64(nil, uint64(s.now().Add(gatehouse.EnrolmentLifetime).UnixMilli()))
	sealed := sealer.Seal(u.OrgID, gatehouse.EnrolmentSealLabel(u.ID), append(plain, key.Secret...))
	return Enrolment{TOTPKey: key, Pending: base64.RawURLEncoding.EncodeToString(sealed)}, nil
}

// ResumeEnrolment shows again the enrolment pending began, for a code
// that did not match: the secret the user scanned stays the one to give
// a code of. [gatehouse.ErrInvalid] when it has expired or is not the
// signed-in user's.
func (s *Service) ResumeEnrolment(ctx context.Context, pending string) (Enrolment, error) {
	u, err := s.actingUser(ctx)
	if err != nil {
		return Enrolment{}, err
	}
	secret, ok := s.openEnrolment(ctx, u, pending)
	if !ok {
		return Enrolment{}, gatehouse.Invalid("pending", "this enrolment has expired; start again")
	}
	key, err := gatehouse.NewTOTPKey(u.Email, secret)
	return Enrolment{TOTPKey: key, Pending: pending}, err
}

// EnrolSecondFactor enrols the secret of pending ([Service.BeginEnrolment])
// as the signed-in user's second factor once code is a code of it, with
// [gatehouse.RecoveryCodeCount] new recovery codes. Every session of the
// user ends, the one of the request too, and a new one starts: what the
// dashboard's cookie takes. The codes are returned once, never stored.
//
// Errors: [gatehouse.ErrInvalid] (keyed "code") when the code does not
// match or the enrolment expired; [gatehouse.ErrConflict] when the user
// has a second factor already.
func (s *Service) EnrolSecondFactor(ctx context.Context, pending, code string) (gatehouse.Session, string, []string, error) {
	u, err := s.actingUser(ctx)
	if err != nil {
		return gatehouse.Session{}, "", nil, err
	}
	if u.SecondFactor {
		return gatehouse.Session{}, "", nil, fmt.Errorf("you have a second factor already: %w", gatehouse.ErrConflict)
	}
	secret, ok := s.openEnrolment(ctx, u, pending)
	if !ok {
		return gatehouse.Session{}, "", nil, gatehouse.Invalid("code", "this enrolment has expired; start again")
	}
	step, ok := gatehouse.TOTPStep(secret, code, s.now())
	if !ok {
		return gatehouse.Session{}, "", nil, gatehouse.Invalid("code", "that code does not match; give the code the app shows now")
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.Session{}, "", nil, err
	}
	codes := gatehouse.NewRecoveryCodes()
	f := &gatehouse.SecondFactor{Sealed: sealer.Seal(u.OrgID, gatehouse.SecondFactorSealLabel(u.ID), []byte(secret)),
		LastStep: step, EnrolledAt: s.Now()}
	for _, c := range codes {
		f.RecoveryCodes = append(f.RecoveryCodes, gatehouse.RecoveryHash(secret, gatehouse.NormalRecoveryCode(c)))
	}
	e := s.entry(ctx, u.OrgID, gatehouse.AuditSecondFactorEnrolled, gatehouse.TargetUser)
	if u, err = s.store.SetSecondFactor(ctx, e, u.OrgID, u.ID, f); err != nil {
		return gatehouse.Session{}, "", nil, err
	}
	session, token, _, err := s.startSession(ctx, u, sessionGiven)
	return session, token, codes, err
}

// openEnrolment returns the secret of a pending enrolment of u's, unless
// it was altered, is another user's, or has expired.
func (s *Service) openEnrolment(ctx context.Context, u gatehouse.User, pending string) (string, bool) {
	sealed, err := base64.RawURLEncoding.DecodeString(pending)
	if err != nil {
		return "", false
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return "", false
	}
	plain, err := sealer.Open(u.OrgID, gatehouse.EnrolmentSealLabel(u.ID), sealed)
	if err != nil || len(plain) < 8 || s.now().UnixMilli() >= int64(binary.BigEndian.Uint64(plain)) {
		return "", false
	}
	return string(plain[8:]), true
}

// RemoveSecondFactor removes the signed-in user's own second factor once
// code is a good code of it (or an unused recovery code): whoever holds
// an open session alone cannot take it off. Every session of the user
// ends and a new one starts, good only for enrolling again when the
// organization requires a second factor.
//
// Its wrong codes are limited and recorded as those of a sign-in (see
// spendCode).
//
// Errors: [gatehouse.ErrInvalid] (keyed "code") when the code is wrong;
// a [*gatehouse.RetryError] when too many were; [gatehouse.ErrNotFound]
// when the user has no second factor.
func (s *Service) RemoveSecondFactor(ctx context.Context, code, clientNetwork string) (gatehouse.Session, string, error) {
	u, err := s.actingUser(ctx)
	if err != nil {
		return gatehouse.Session{}, "", err
	}
	if !u.SecondFactor {
		return gatehouse.Session{}, "", fmt.Errorf("second factor: %w", gatehouse.ErrNotFound)
	}
	err = s.spendCode(ctx, u, code, clientNetwork)
	if errors.Is(err, gatehouse.ErrBadCredentials) {
		return gatehouse.Session{}, "", gatehouse.Invalid("code", "that code does not match, or was used already")
	}
	if err != nil {
		return gatehouse.Session{}, "", err
	}
	e := s.entry(ctx, u.OrgID, gatehouse.AuditSecondFactorRemoved, gatehouse.TargetUser)
	if u, err = s.store.SetSecondFactor(ctx, e, u.OrgID, u.ID, nil); err != nil {
		return gatehouse.Session{}, "", err
	}
	session, token, _, err := s.signInAs(ctx, u)
	return session, token, err
}

// SecondFactorOf returns the signed-in user's own second factor, its
// secret left out: when it was enrolled and how many recovery codes are
// left. [gatehouse.ErrNotFound] when the user has none.
func (s *Service) SecondFactorOf(ctx context.Context) (gatehouse.SecondFactor, error) {
	u, err := s.actingUser(ctx)
	if err != nil {
		return gatehouse.SecondFactor{}, err
	}
	f, err := s.store.FindSecondFactor(ctx, u.OrgID, u.ID)
	f.Sealed = nil
	return f, err
}

// actingUser is the signed-in dashboard user the context's actor names,
// as the store has them now; [gatehouse.ErrForbidden] for any other
// actor.
func (s *Service) actingUser(ctx context.Context) (gatehouse.User, error) {
	a := gatehouse.ActorFrom(ctx)
	if a.Type != gatehouse.ActorUser {
		return gatehouse.User{}, fmt.Errorf("only a dashboard user has a second factor: %w", gatehouse.ErrForbidden)
	}
	return s.userByID(ctx, a.OrgID, a.ID)
}

// ResetSecondFactor removes the second factor of the organization's user
// with that email, for a user who lost it: their sessions end, and they
// sign in with their password alone (and enrol again, if the
// organization requires it). Audited as the reset.
//
// Errors: [gatehouse.ErrNotFound] for an unknown user or one without a
// second factor; [gatehouse.ErrConflict] for the acting user's own (they
// remove it with a code, [Service.RemoveSecondFactor]).
func (s *Service) ResetSecondFactor(ctx context.Context, orgID uuid.UUID, email string) (gatehouse.User, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, err
	}
	u, err := s.userByEmail(ctx, orgID, email)
	if err != nil {
		return gatehouse.User{}, err
	}
	if a := gatehouse.ActorFrom(ctx); a.Type == gatehouse.ActorUser && a.ID == u.ID {
		return gatehouse.User{}, fmt.Errorf("remove your own second factor on your account page, with a code: %w", gatehouse.ErrConflict)
	}
	if !u.SecondFactor {
		return gatehouse.User{}, fmt.Errorf("%s has no second factor: %w", u.Email, gatehouse.ErrNotFound)
	}
	return s.store.SetSecondFactor(ctx, s.entry(ctx, orgID, gatehouse.AuditSecondFactorReset, gatehouse.TargetUser), orgID, u.ID, nil)
}

// userByEmail returns the organization's user with that email.
func (s *Service) userByEmail(ctx context.Context, orgID uuid.UUID, email string) (gatehouse.User, error) {
	users, err := s.store.ListUsers(ctx, orgID)
	if err != nil {
		return gatehouse.User{}, err
	}
	email = strings.ToLower(strings.TrimSpace(email))
	if i := slices.IndexFunc(users, func(u gatehouse.User) bool { return u.Email == email }); i >= 0 {
		return users[i], nil
	}
	return gatehouse.User{}, fmt.Errorf("user %s: %w", email, gatehouse.ErrNotFound)
}

// SecondFactorRequired says whether the organization requires a second
// factor of its members; any member may know.
func (s *Service) SecondFactorRequired(ctx context.Context, orgID uuid.UUID) (bool, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermView); err != nil {
		return false, err
	}
	return s.store.SecondFactorRequired(ctx, orgID)
}

// RequireSecondFactor sets whether the organization requires a second
// factor of its members. Members without one are led through enrolment
// at their next sign-in; sessions already open go on until they end.
func (s *Service) RequireSecondFactor(ctx context.Context, orgID uuid.UUID, required bool) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return err
	}
	return s.store.SetSecondFactorRequired(ctx, s.entry(ctx, orgID, gatehouse.AuditSecondFactorRequired, gatehouse.TargetOrganization), orgID, required)
}
