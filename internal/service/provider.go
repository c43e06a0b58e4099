package service

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// IdentityProvider is the OpenID provider dashboard users sign in
// through ([sso.Provider]).
type IdentityProvider interface {
	// Name is what the sign-in page calls it.
	Name() string
	// AuthURL is the provider's page that begins the flow.
	AuthURL(ctx context.Context, f gatehouse.ProviderFlow) (string, error)
	// Identify exchanges the flow's code and says who signed in, its ID
	// token verified and its nonce the flow's; what it refuses is a
	// [gatehouse.ErrProviderSignInFailed].
	Identify(ctx context.Context, code string, f gatehouse.ProviderFlow) (gatehouse.ProviderIdentity, error)
}

// ProviderName is the OpenID provider's name, "" when there is none.
func (s *Service) ProviderName() string {
	if s.provider == nil {
		return ""
	}
	return s.provider.Name()
}

// BeginProviderSignIn begins a sign-in through the OpenID provider that
// goes on to next: the browser is sent to url, keeping cookie until it
// comes back ([gatehouse.ProviderFlowLifetime] at most).
// [gatehouse.ErrNoProvider] when none is configured; a
// [gatehouse.ErrUnavailable] when the provider's discovery fails.
func (s *Service) BeginProviderSignIn(ctx context.Context, next string) (url, cookie string, err error) {
	if s.provider == nil {
		return "", "", gatehouse.ErrNoProvider
	}
	cookie, f := s.sessions.NewProviderFlow(next, s.now())
	url, err = s.provider.AuthURL(ctx, f)
	return url, cookie, err
}

// FinishProviderSignIn finishes the sign-in of the browser's cookie, to
// which the provider sent back state and code, and returns the page to
// go on to. The provider's verified email decides who signs in:
//   - when organizations invited the email (links not expired), nothing
//     yet: a [*gatehouse.InvitationsError] lists them, and the person
//     picks one to join ([Service.AcceptThroughProvider]) or goes on
//     without ([Service.ContinueThroughProvider]), each by a form of
//     this site. The provider proved the email, which is what an
//     invitation waits for; a link to click is not a choice made.
//   - otherwise, as a password does ([Service.SignIn]), the member with
//     that email, or a choice when several organizations have one.
//
// A user with a second factor still gives its code.
//
// Errors:
//   - [gatehouse.ErrProviderSignInFailed]: no flow of this browser, an
//     expired one, a state of another, or an answer the provider's keys
//     and rules refuse (a code used or not this flow's, an ID token not
//     for Gatehouse, a nonce of another flow);
//   - [gatehouse.ErrEmailNotVerified];
//   - [gatehouse.ErrNotFound]: the email is neither a member nor invited;
//   - a [*gatehouse.InvitationsError], a [*gatehouse.ChoiceError] or a
//     [*gatehouse.SecondFactorError];
//   - [gatehouse.ErrNoProvider]; a [gatehouse.ErrUnavailable].
func (s *Service) FinishProviderSignIn(ctx context.Context, cookie, state, code string) (gatehouse.Session, string, gatehouse.User, string, error) {
	fail := func(err error) (gatehouse.Session, string, gatehouse.User, string, error) {
		return gatehouse.Session{}, "", gatehouse.User{}, "", err
	}
	if s.provider == nil {
		return fail(gatehouse.ErrNoProvider)
	}
	f, ok := s.sessions.OpenProviderFlow(cookie, s.now())
	if !ok || subtle.ConstantTimeCompare([]byte(state), []byte(f.State)) != 1 {
		return fail(fmt.Errorf("%w: it expired, or began in another browser", gatehouse.ErrProviderSignInFailed))
	}
	id, err := s.provider.Identify(ctx, code, f)
	switch {
	case err != nil:
		return fail(err)
	case !id.EmailVerified:
		return fail(gatehouse.ErrEmailNotVerified)
	}
	email := strings.ToLower(strings.TrimSpace(id.Email))
	members, invitations, err := s.byVerifiedEmail(ctx, email)
	if err != nil {
		return fail(err)
	}
	if len(invitations) > 0 {
		ie := &gatehouse.InvitationsError{Token: s.sessions.VerifiedEmail(email, s.now()), Email: email, Members: len(members)}
		for _, u := range invitations {
			o, err := s.store.FindOrganization(ctx, u.OrgID)
			if err != nil {
				return fail(err)
			}
			ie.Invitations = append(ie.Invitations, gatehouse.SignInChoice{User: u, Organization: o})
		}
		return gatehouse.Session{}, "", gatehouse.User{}, f.Next, ie
	}
	session, token, u, err := s.signInMembers(ctx, email, members)
	return session, token, u, f.Next, err
}

// byVerifiedEmail returns the members of email and its invitations
// whose links have not expired, oldest first.
func (s *Service) byVerifiedEmail(ctx context.Context, email string) (members, invitations []gatehouse.User, err error) {
	users, err := s.store.FindUsersByEmail(ctx, email)
	if err != nil {
		return nil, nil, err
	}
	members, invitations = splitProven(users)
	invitations = slices.DeleteFunc(invitations, func(u gatehouse.User) bool { return !u.InvitedUntil.After(s.now()) })
	return members, invitations, nil
}

// openVerified returns the email a token of a
// [*gatehouse.InvitationsError] carries, with its members and live
// invitations; [gatehouse.ErrProviderSignInFailed] for a token altered
// or expired.
func (s *Service) openVerified(ctx context.Context, token string) (email string, members, invitations []gatehouse.User, err error) {
	email, ok := s.sessions.OpenVerifiedEmail(token, s.now())
	if !ok {
		return "", nil, nil, fmt.Errorf("%w: the page of invitations expired", gatehouse.ErrProviderSignInFailed)
	}
	members, invitations, err = s.byVerifiedEmail(ctx, email)
	return email, members, invitations, err
}

// signInMembers signs in the member of email, or asks which when there
// are several. [gatehouse.ErrNotFound] when there is none.
func (s *Service) signInMembers(ctx context.Context, email string, members []gatehouse.User) (gatehouse.Session, string, gatehouse.User, error) {
	switch len(members) {
	case 0:
		return gatehouse.Session{}, "", gatehouse.User{}, fmt.Errorf("no member of Gatehouse has the email %s; ask an admin of your organization to invite it: %w", email, gatehouse.ErrNotFound)
	case 1:
		return s.signInAs(ctx, members[0])
	}
	return gatehouse.Session{}, "", gatehouse.User{}, s.choice(ctx, email, members)
}

// AcceptThroughProvider joins the invitation userID of the email the
// token of a [*gatehouse.InvitationsError] carries, which the person
// picked, and starts a session as it. The new member has no password:
// they sign in through the provider.
//
// [gatehouse.ErrProviderSignInFailed] for a token altered or expired;
// [gatehouse.ErrNotFound] when userID is no unexpired invitation of that
// email.
func (s *Service) AcceptThroughProvider(ctx context.Context, token string, userID uuid.UUID) (gatehouse.Session, string, gatehouse.User, error) {
	email, _, invitations, err := s.openVerified(ctx, token)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	i := slices.IndexFunc(invitations, func(u gatehouse.User) bool { return u.ID == userID })
	if i < 0 {
		return gatehouse.Session{}, "", gatehouse.User{}, fmt.Errorf("the invitation is not waiting for %s (any more): %w", email, gatehouse.ErrNotFound)
	}
	u, err := s.useInvitation(ctx, invitations[i], [32]byte{}, "")
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	return s.signInAs(ctx, u)
}

// ContinueThroughProvider goes on from a [*gatehouse.InvitationsError]
// without joining: the member of its email signs in, or picks among
// several. Errors as [Service.AcceptThroughProvider]'s, and a
// [*gatehouse.ChoiceError].
func (s *Service) ContinueThroughProvider(ctx context.Context, token string) (gatehouse.Session, string, gatehouse.User, error) {
	email, members, _, err := s.openVerified(ctx, token)
	if err != nil {
		return gatehouse.Session{}, "", gatehouse.User{}, err
	}
	return s.signInMembers(ctx, email, members)
}

// RequireProvider sets whether the organization's members sign in
// through the OpenID provider only; their passwords then sign nobody in.
// [gatehouse.ErrNoProvider] when a dashboard user requires it of a
// Gatehouse with none configured, which would lock everyone out; the
// operator's CLI, which serves nothing, may set it before the servers
// start with one.
func (s *Service) RequireProvider(ctx context.Context, orgID uuid.UUID, required bool) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageUsers); err != nil {
		return err
	}
	if required && s.provider == nil && gatehouse.ActorFrom(ctx).Type == gatehouse.ActorUser {
		return fmt.Errorf("%w: start Gatehouse with --oidc-issuer first", gatehouse.ErrNoProvider)
	}
	return s.store.SetSignInRequired(ctx, s.entry(ctx, orgID, gatehouse.AuditProviderRequired, gatehouse.TargetOrganization), orgID, gatehouse.RequireProvider, required)
}

// ProviderRequired says whether the organization's members sign in
// through the OpenID provider only; any member may know.
func (s *Service) ProviderRequired(ctx context.Context, orgID uuid.UUID) (bool, error) {
	if _, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView); err != nil {
		return false, err
	}
	return s.store.SignInRequired(ctx, orgID, gatehouse.RequireProvider)
}

// passwordsAllowed returns the users among matched whose organization
// lets them sign in with a password; [gatehouse.ErrProviderRequired]
// when none does.
func (s *Service) passwordsAllowed(ctx context.Context, matched []gatehouse.User) ([]gatehouse.User, error) {
	var out []gatehouse.User
	for _, u := range matched {
		only, err := s.store.SignInRequired(ctx, u.OrgID, gatehouse.RequireProvider)
		if err != nil {
			return nil, err
		}
		if !only {
			out = append(out, u)
		}
	}
	if len(out) == 0 && len(matched) > 0 {
		return nil, gatehouse.ErrProviderRequired
	}
	return out, nil
}
