package service

// Sessions under control: a user's own sessions, seen and ended, and an
// admin's ending of all of a user's (docs/security.md, "Sessions").

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// userAgent is a browser's user agent as a session keeps it: at most
// gatehouse.MaxUserAgentLen bytes of valid UTF-8, without control
// characters.
func userAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
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
