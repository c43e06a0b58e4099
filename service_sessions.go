package gatehouse

import (
	"context"
	"errors"
	"strings"
	"time"
)

// hashWait is how long a sign-in waits for a password-hashing slot before
// it is refused with ErrHashBusy.
const hashWait = 2 * time.Second

// SignIn checks a dashboard user's email and password and, when they
// match, starts a session; token is the raw value for the browser's
// cookie. clientNetwork is the client's address as the limiter counts it.
//
// A failure is spent from the limits (per email and per network) before
// the hash runs and given back on success: checked before and spent after,
// every attempt of a burst sent at once would pass the check and cost a
// full hash. An unknown email is checked against a dummy hash, so that it
// takes as long as a wrong password.
//
// Errors: ErrBadCredentials; a *RetryError with ErrSignInLimited (the
// limit is spent) or ErrHashBusy (no hashing slot came free; nothing was
// tried); a store error (ErrUnavailable).
func (s *Service) SignIn(ctx context.Context, email, password, clientNetwork string) (Session, string, User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	refund, wait, allowed := s.signIns(ctx, email, clientNetwork)
	if !allowed {
		return Session{}, "", User{}, &RetryError{After: wait, Err: ErrSignInLimited}
	}
	user, err := s.store.FindUserByEmail(ctx, email)
	hash := user.PasswordHash
	switch {
	case errors.Is(err, ErrNotFound):
		hash, _ = s.dummy() // a failed dummy verifies nothing: still a mismatch
	case err != nil:
		refund(ctx)
		return Session{}, "", User{}, err
	}
	hashCtx, cancel := context.WithTimeout(ctx, hashWait)
	ok, verr := s.hasher.Verify(hashCtx, password, hash)
	cancel()
	if errors.Is(verr, ErrHashBusy) {
		refund(ctx)
		return Session{}, "", User{}, &RetryError{After: time.Second, Err: ErrHashBusy}
	}
	if err != nil || verr != nil || !ok {
		return Session{}, "", User{}, ErrBadCredentials
	}
	refund(ctx)
	session, token := s.sessions.New(user.ID, s.now())
	if err := s.store.CreateSession(ctx, session); err != nil {
		return Session{}, "", User{}, err
	}
	return session, token, user, nil
}

// FindSession returns the unexpired session of a browser's token and its
// user, or ErrNotFound.
func (s *Service) FindSession(ctx context.Context, token string) (Session, User, error) {
	return s.store.FindSession(ctx, s.sessions.Hash(token), s.now())
}

// SignOut ends a session (ending one that has ended is no error) and
// every session that has expired.
func (s *Service) SignOut(ctx context.Context, session Session) error {
	return s.store.DeleteSession(ctx, session.TokenHash, s.now())
}
