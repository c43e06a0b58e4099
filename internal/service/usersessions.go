package service

// Sessions under control: a user's own sessions, seen and ended, an
// admin's ending of all of a user's, and a user's change of their own
// password, which ends the others (docs/security.md, "Sessions").

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// userAgent is a browser's user agent as a session keeps it: at most
// gatehouse.MaxUserAgentLen bytes of valid UTF-8, without control or
// format characters (which would spoof what the page shows).
func userAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) { // C0, C1, direction marks, zero widths
			return -1
		}
		return r
	}, strings.ToValidUTF8(ua, ""))
	for len(ua) > gatehouse.MaxUserAgentLen {
		_, size := utf8.DecodeLastRuneInString(ua)
		ua = ua[:len(ua)-size]
	}
	return ua
}

// Sessions returns the signed-in user's unexpired sessions, last seen
// first: where each began (the browser, the address), when, and when it
// was last used.
func (s *Service) Sessions(ctx context.Context) ([]gatehouse.Session, error) {
	a := gatehouse.ActorFrom(ctx)
	if a.Type != gatehouse.ActorUser {
		return nil, fmt.Errorf("only a dashboard user has sessions: %w", gatehouse.ErrForbidden)
	}
	return s.store.ListSessions(ctx, a.OrgID, a.ID, s.now())
}

// EndSession ends one of the signed-in user's sessions (another browser
// left signed in), audited. [gatehouse.ErrNotFound] when the user has
// no session with that id.
func (s *Service) EndSession(ctx context.Context, id uuid.UUID) error {
	a := gatehouse.ActorFrom(ctx)
	if a.Type != gatehouse.ActorUser || a.EnrolOnly || id == uuid.Nil {
		return fmt.Errorf("session: %w", gatehouse.ErrNotFound)
	}
	n, err := s.store.EndSessions(ctx, s.entry(ctx, a.OrgID, gatehouse.AuditSessionsEnded, gatehouse.TargetUser), a.OrgID, a.ID, id)
	if err == nil && n == 0 {
		err = fmt.Errorf("session %s: %w", id, gatehouse.ErrNotFound)
	}
	return err
}

// EndUserSessions signs the organization's user with that email out
// everywhere, for an admin (a lost laptop, a departure pending), and
// returns how many sessions ended; audited when any did.
// [gatehouse.ErrNotFound] for an unknown user.
func (s *Service) EndUserSessions(ctx context.Context, orgID uuid.UUID, email string) (gatehouse.User, int, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return gatehouse.User{}, 0, err
	}
	u, err := s.userByEmail(ctx, orgID, email)
	if err != nil {
		return gatehouse.User{}, 0, err
	}
	n, err := s.store.EndSessions(ctx, s.entry(ctx, orgID, gatehouse.AuditSessionsEnded, gatehouse.TargetUser), orgID, u.ID, uuid.Nil)
	return u, n, err
}

// ChangePassword replaces the signed-in user's own password, given the
// current one: every session of theirs ends, and a new one starts for
// the browser that changed it. A wrong current password is spent from
// the sign-in limits and recorded as a failed sign-in, as at the
// sign-in form: an open session alone cannot take the account.
//
// Errors: [gatehouse.ErrBadCredentials] for a wrong current password; a
// [*gatehouse.ValidationError] keyed "password" for a new one too short;
// a [*gatehouse.RetryError] when the limits are spent.
func (s *Service) ChangePassword(ctx context.Context, current, password, clientNetwork string) (gatehouse.Session, string, error) {
	if gatehouse.ActorFrom(ctx).EnrolOnly {
		return gatehouse.Session{}, "", fmt.Errorf("enrol the second factor your organization requires first: %w", gatehouse.ErrForbidden)
	}
	u, err := s.actingUser(ctx)
	if err != nil {
		return gatehouse.Session{}, "", err
	}
	var errs gatehouse.ValidationError
	if gatehouse.CheckPassword(&errs, password); errs.Err() != nil {
		return gatehouse.Session{}, "", errs.Err()
	}
	refund, wait, allowed := s.signIns(ctx, u.Email, clientNetwork)
	if !allowed {
		return gatehouse.Session{}, "", &gatehouse.RetryError{After: wait, Err: gatehouse.ErrSignInLimited}
	}
	ok, err := s.verify(ctx, current, u.PasswordHash)
	switch {
	case err != nil:
		refund(ctx)
		return gatehouse.Session{}, "", &gatehouse.RetryError{After: time.Second, Err: err}
	case !ok:
		if err := s.signInFailed(ctx, u.Email, []gatehouse.User{u}); err != nil {
			return gatehouse.Session{}, "", err
		}
		return gatehouse.Session{}, "", gatehouse.ErrBadCredentials
	}
	refund(ctx)
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return gatehouse.Session{}, "", err
	}
	e := s.entry(ctx, u.OrgID, gatehouse.AuditUserPasswordSet, gatehouse.TargetUser)
	if u, err = s.store.SetUserPassword(ctx, e, u.OrgID, u.Email, hash); err != nil {
		return gatehouse.Session{}, "", err
	}
	if !u.SecondFactor { // a session as a sign-in would start: enrol-only where a factor is required
		session, token, _, err := s.signInAs(ctx, u)
		return session, token, err
	}
	session, token, _, err := s.startSession(ctx, u, sessionGiven)
	return session, token, err
}
