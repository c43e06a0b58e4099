package service

// Enrolling, removing and resetting a second factor, and an
// organization's requirement of one (docs/security.md, "Two factors").

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

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
	email = strings.ToLower(strings.TrimSpace(email))
	return s.userWhere(ctx, orgID, email, func(u gatehouse.User) bool { return u.Email == email })
}

// SecondFactorRequired says whether the organization requires a second
// factor of its members; any member may know.
func (s *Service) SecondFactorRequired(ctx context.Context, orgID uuid.UUID) (bool, error) {
	if _, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView); err != nil {
		return false, err
	}
	return s.store.SignInRequired(ctx, orgID, gatehouse.RequireSecondFactor)
}

// RequireSecondFactor sets whether the organization requires a second
// factor of its members. Members without one are led through enrolment
// at their next sign-in; sessions already open go on until they end.
func (s *Service) RequireSecondFactor(ctx context.Context, orgID uuid.UUID, required bool) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return err
	}
	return s.store.SetSignInRequired(ctx, s.entry(ctx, orgID, gatehouse.AuditSecondFactorRequired, gatehouse.TargetOrganization), orgID, gatehouse.RequireSecondFactor, required)
}
