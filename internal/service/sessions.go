package service

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// hashWait is how long a sign-in waits for a password-hashing slot before
// it is refused with [gatehouse.ErrHashBusy].
const hashWait = 2 * time.Second

// SignIn starts a session for the dashboard user whose email and password
// match; token is the raw value for the browser's cookie. clientNetwork is
// the client's network as the limiter counts it.
//
// An email is unique per organization only, and each of its users has its
// own password, so the password is checked against every member with that
// email:
//   - when it matches one, that user is signed in (see [Service.signInAs]
//     for a second factor and an organization that requires one);
//   - when it matches several, nobody is yet: the error is a
//     [*gatehouse.ChoiceError] listing them, and the person picks one with
//     [Service.ChooseSignIn].
//
// A member is a user who proved membership ([gatehouse.User.Proven]).
// Only members take part: a user an admin adds is an invitation until
// the person sets their password through its link ([Service.Join]) or
// accepts it through the OpenID provider, since anyone may add any email
// to their own organization. An invitation costs no hash, is never
// offered, and receives no failed sign-ins.
//
// A failure is spent from the limits before the hash runs, and given back
// on success: checked before and spent after, every attempt of a burst
// sent at once would pass the check and cost a full hash. A failure is
// recorded in the log of the organization where the email was proven
// first, and of those where its owner was proven ([Service.signInFailed]);
// an email with no member is recorded in none. An email with nobody to
// check is checked against a dummy hash, so that it takes as long as a
// wrong password.
//
// Errors:
//   - [gatehouse.ErrBadCredentials];
//   - [gatehouse.ErrProviderRequired] when the password matched, but only
//     users whose organizations sign in through the OpenID provider;
//   - a [*gatehouse.ChoiceError] ([gatehouse.ErrChooseOrganization]);
//   - a [*gatehouse.SecondFactorError] ([gatehouse.ErrSecondFactorNeeded])
//     when the user matched has a second factor: no session yet, the
//     code comes next ([Service.SignInSecondFactor]);
//   - a [*gatehouse.RetryError] with [gatehouse.ErrSignInLimited] (the
//     limit is spent) or [gatehouse.ErrHashBusy] (no hashing slot came
//     free; nothing was tried);
//   - a store error ([gatehouse.ErrUnavailable]).
func (s *Service) SignIn(ctx context.Context, email, password, clientNetwork string) (gatehouse.Session, string, gatehouse.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	refund, wait, allowed := s.signIns(ctx, email, clientNetwork)
	if !allowed {
		return gatehouse.Session{}, "", gatehouse.User{}, &gatehouse.RetryError{After: wait, Err: gatehouse.ErrSignInLimited}
	}
	users, err := s.store.FindUsersByEmail(ctx, email)
	if err != nil {
		refund(ctx)
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	members, _ := splitProven(users)
	matched, err := s.checkPasswords(ctx, members, password)
	switch {
	case errors.Is(err, gatehouse.ErrHashBusy):
		refund(ctx)
		return gatehouse.Session{}, "", gatehouse.User{}, &gatehouse.RetryError{After: time.Second, Err: gatehouse.ErrHashBusy}
	case err != nil || len(matched) == 0:
		if err := s.signInFailed(ctx, email, members); err != nil {
			return gatehouse.Session{}, "", gatehouse.User{}, err
		}
		return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrBadCredentials
	}
	refund(ctx)
	if matched, err = s.passwordsAllowed(ctx, matched); err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	if len(matched) > 1 {
		return gatehouse.Session{}, "", gatehouse.User{}, s.choice(ctx, email, matched)
	}
	return s.signInAs(ctx, matched[0])
}

// splitProven parts users into members (proven) and invitations.
func splitProven(users []gatehouse.User) (members, invitations []gatehouse.User) {
	for _, u := range users {
		if u.Proven {
			members = append(members, u)
		} else {
			invitations = append(invitations, u)
		}
	}
	return members, invitations
}

// checkPasswords returns the users whose hash password matches. With no
// user, a dummy hash is checked, so that an unknown email costs what a
// wrong password does. Errors: [gatehouse.ErrHashBusy].
func (s *Service) checkPasswords(ctx context.Context, users []gatehouse.User, password string) ([]gatehouse.User, error) {
	if len(users) == 0 {
		hash, _ := s.dummy() // a failed dummy verifies nothing: still a mismatch
		_, err := s.verify(ctx, password, hash)
		return nil, err
	}
	var matched []gatehouse.User
	for _, u := range users {
		ok, err := s.verify(ctx, password, u.PasswordHash)
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, u)
		}
	}
	return matched, nil
}

// verify checks one hash, waiting at most hashWait for a hashing slot.
// Only [gatehouse.ErrHashBusy] is reported; any other failure is a
// mismatch.
func (s *Service) verify(ctx context.Context, password, hash string) (bool, error) {
	hashCtx, cancel := context.WithTimeout(ctx, hashWait)
	defer cancel()
	ok, err := s.hasher.Verify(hashCtx, password, hash)
	if errors.Is(err, gatehouse.ErrHashBusy) {
		return false, err
	}
	return ok && err == nil, nil
}

// signInFailed records a failed sign-in in the log of the organization
// where the email was proven first (its home), and of those whose member
// the OpenID provider or the operator proved ([gatehouse.Proof.OwnsEmail]):
// a member an admin proved later through a link, a look-alike, reads
// none of it. An email that is a member nowhere is recorded once, with
// no organization and no user id. Never the password.
func (s *Service) signInFailed(ctx context.Context, email string, members []gatehouse.User) error {
	if len(members) == 0 {
		e := s.signInEntry(ctx, gatehouse.AuditSignInFailed, gatehouse.User{Email: email})
		return s.store.AppendAudit(ctx, e)
	}
	home := slices.MinFunc(members, func(a, b gatehouse.User) int {
		// A member whose proof has no time (one an instance of the
		// release before proved) comes last, not first.
		return cmp.Or(cmp.Compare(provenOrder(a), provenOrder(b)), a.CreatedAt.Compare(b.CreatedAt))
	})
	for _, u := range members {
		if u.ID == home.ID || u.ProvenBy.OwnsEmail() {
			if err := s.store.AppendAudit(ctx, s.signInEntry(ctx, gatehouse.AuditSignInFailed, u)); err != nil {
				return err
			}
		}
	}
	return nil
}

// provenOrder orders members by when they were proven, those with no
// time last.
func provenOrder(u gatehouse.User) int64 {
	if u.ProvenAt.IsZero() {
		return math.MaxInt64
	}
	return u.ProvenAt.UnixMilli()
}

// signInEntry is the entry of a sign-in of u: the user is both the actor
// and the target, since nobody is signed in yet.
func (s *Service) signInEntry(ctx context.Context, action gatehouse.AuditAction, u gatehouse.User) gatehouse.AuditEntry {
	e := s.entry(ctx, u.OrgID, action, gatehouse.TargetUser)
	e.Actor = gatehouse.AuditActor{Type: gatehouse.ActorUser, Label: u.Email}
	e.Target = gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: u.ID, Name: u.Email}
	if u.ID != uuid.Nil {
		id := u.ID
		e.Actor.ID = &id
	}
	return e
}

// startSession stores a new session of u, as kind says. A user who
// enrolled a second factor while their password was checked gets the
// code step instead: the store refuses their session without it.
func (s *Service) startSession(ctx context.Context, u gatehouse.User, kind sessionKind) (gatehouse.Session, string, gatehouse.User, error) {
	session, token := s.sessions.New(u.ID, s.now())
	session.EnrolOnly, session.SecondFactorGiven = kind == sessionEnrolOnly, kind == sessionGiven
	a := gatehouse.ActorFrom(ctx)
	session.UserAgent, session.ClientAddress = userAgent(a.UserAgent), a.ClientAddress
	err := s.store.CreateSession(ctx, s.signInEntry(ctx, gatehouse.AuditSignedIn, u), session)
	if errors.Is(err, gatehouse.ErrSecondFactorNeeded) {
		return gatehouse.Session{}, "", gatehouse.User{}, s.secondStep(u)
	}
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	return session, token, u, nil
}

// choice is the [*gatehouse.ChoiceError] for a password that matched
// several users.
func (s *Service) choice(ctx context.Context, email string, users []gatehouse.User) error {
	ce := &gatehouse.ChoiceError{Token: s.sessions.Choice(email, users, s.now())}
	for _, u := range users {
		o, err := s.store.FindOrganization(ctx, u.OrgID)
		if err != nil {
			return err
		}
		ce.Choices = append(ce.Choices, gatehouse.SignInChoice{User: u, Organization: o})
	}
	return ce
}

// ChooseSignIn finishes a sign-in whose password matched several users,
// and starts a session as the user picked: token is the
// [*gatehouse.ChoiceError]'s, userID the user picked among its choices.
//
// Errors:
//   - [gatehouse.ErrBadCredentials] when the token is not one
//     [Service.SignIn] issued, has expired, or does not list userID, or
//     when that user has since been removed;
//   - a store error.
func (s *Service) ChooseSignIn(ctx context.Context, token string, userID uuid.UUID) (gatehouse.Session, string, gatehouse.User, error) {
	email, ids, ok := s.sessions.OpenChoice(token, s.now())
	if !ok || !slices.Contains(ids, userID) {
		return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrBadCredentials
	}
	users, err := s.store.FindUsersByEmail(ctx, email)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	for _, u := range users {
		if u.ID == userID {
			return s.signInAs(ctx, u)
		}
	}
	return gatehouse.Session{}, "", gatehouse.User{}, gatehouse.ErrBadCredentials
}

// FindSession returns the unexpired session of a browser's token and its
// user, or [gatehouse.ErrNotFound]. It records the session's use when
// the last was [gatehouse.SessionSeenEvery] ago or more; a failure to
// record it fails nothing.
func (s *Service) FindSession(ctx context.Context, token string) (gatehouse.Session, gatehouse.User, error) {
	now := s.now()
	session, u, err := s.store.FindSession(ctx, s.sessions.Hash(token), now)
	if err == nil && now.Sub(session.LastSeenAt) >= gatehouse.SessionSeenEvery && s.seen.due(session.TokenHash, now) {
		// Its own short deadline, apart from the page's: a write that
		// waits (SQLite's writer busy with an import) costs the page at
		// most seenWait, and a failure is not tried again for a minute.
		seenCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), seenWait)
		if s.store.SeenSession(seenCtx, u.OrgID, session.TokenHash, now) == nil {
			session.LastSeenAt = gatehouse.Truncate(now)
		}
		cancel()
	}
	return session, u, err
}

// seenWait bounds the write of a session's last use.
const seenWait = time.Second

// seenSessions remembers when this instance last wrote each session's
// last use, so that a write failing or slow is tried once a minute, not
// on every request.
type seenSessions struct {
	mu sync.Mutex
	at map[[32]byte]time.Time
}

// due says whether the session's last use is to be written at now, and
// notes it if so. The memory is cleared past 10,000 sessions: at worst,
// a write again.
func (t *seenSessions) due(h [32]byte, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.at[h]) < gatehouse.SessionSeenEvery {
		return false
	}
	if t.at == nil || len(t.at) >= 10_000 {
		t.at = map[[32]byte]time.Time{}
	}
	t.at[h] = now
	return true
}

// SignOut ends a session (ending one that has ended is no error) and
// every session that has expired.
func (s *Service) SignOut(ctx context.Context, session gatehouse.Session) error {
	return s.store.DeleteSession(ctx, session.TokenHash, s.now())
}
