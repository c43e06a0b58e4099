package service_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
)

// code is the TOTP code of secret at t, as an authenticator app shows it.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// countingLimiter counts the sign-in attempts it reserves, by key, and
// refuses once limit were spent (not refunded).
type countingLimiter struct {
	mu    sync.Mutex
	spent map[string]int
	limit int
}

func (l *countingLimiter) reserve(_ context.Context, key, network string) (func(context.Context), time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spent[key] >= l.limit || l.spent[network] >= l.limit {
		return func(context.Context) {}, time.Minute, false
	}
	l.spent[key]++
	l.spent[network]++
	return func(context.Context) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.spent[key]--
		l.spent[network]--
	}, 0, true
}

// TestSecondFactorSignIn: a user enrols TOTP with a code from the new
// secret; every session of theirs ends. Signing in then takes a second
// step: a wrong code is refused, audited and spent from the limit; the
// right code signs in once (the same code, or one of an earlier step,
// never again); a recovery code signs in once and is audited; the codes
// of another user, or a step token altered or expired, sign nobody in.
func TestSecondFactorSignIn(t *testing.T) {
	limiter := &countingLimiter{spent: map[string]int{}, limit: 5}
	f := newService(t, nil, func(c *service.Config) { c.SecondFactorLimiter = limiter.reserve })
	ctx := context.Background()
	u, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	_, token, _, err := f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", "192.0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: u.ID, Label: u.Email, OrgID: f.org.ID, Role: u.Role})

	e, err := f.svc.BeginEnrolment(as)
	if err != nil || len(e.Secret) < 32 || len(e.QR) < 100 || e.Pending == "" {
		t.Fatalf("begin: %+v %v", e, err)
	}
	if _, _, _, err := f.svc.EnrolSecondFactor(as, e.Pending, "000000"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a wrong code enrolled: %v", err)
	}
	other := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(), Label: u.Email, OrgID: f.org.ID})
	if _, _, _, err := f.svc.EnrolSecondFactor(other, e.Pending, code(t, e.Secret, f.now)); err == nil {
		t.Error("another user enrolled this user's secret")
	}
	late := f.now
	f.now = f.now.Add(gatehouse.EnrolmentLifetime)
	if _, _, _, err := f.svc.EnrolSecondFactor(as, e.Pending, code(t, e.Secret, f.now)); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("an expired enrolment: %v", err)
	}
	f.now = late
	_, fresh, codes, err := f.svc.EnrolSecondFactor(as, e.Pending, code(t, e.Secret, f.now))
	if err != nil || len(codes) != gatehouse.RecoveryCodeCount || fresh == "" {
		t.Fatalf("enrol: %v %d codes", err, len(codes))
	}
	if _, _, err := f.svc.FindSession(ctx, token); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the session of before the enrolment lives: %v", err)
	}
	if _, _, err := f.svc.FindSession(ctx, fresh); err != nil {
		t.Errorf("the enrolment's own session: %v", err)
	}
	if _, err := f.svc.BeginEnrolment(as); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a second enrolment: %v", err)
	}

	// The password alone no longer signs in.
	_, _, _, err = f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", "192.0.2.0")
	var step *gatehouse.SecondFactorError
	if !errors.As(err, &step) || step.Token == "" {
		t.Fatalf("sign-in after enrolment: %v", err)
	}
	// The enrolment's code used its step.
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, code(t, e.Secret, f.now), "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("the enrolment's code again: %v", err)
	}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, "123456", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a wrong code: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 2 {
		t.Errorf("%d failed sign-ins audited, want 2", n)
	}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token+"x", code(t, e.Secret, f.now), "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("an altered step: %v", err)
	}

	f.now = f.now.Add(30 * time.Second)
	_, signedIn, who, err := f.svc.SignInSecondFactor(ctx, step.Token, code(t, e.Secret, f.now), "192.0.2.0")
	if err != nil || who.ID != u.ID || signedIn == "" {
		t.Fatalf("the next step's code: %+v %v", who, err)
	}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, code(t, e.Secret, f.now), "198.51.100.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a code replayed: %v", err)
	}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, code(t, e.Secret, f.now.Add(-30*time.Second)), "198.51.100.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a code of an earlier step: %v", err)
	}

	// A recovery code, typed loosely, once.
	loose := " " + codes[3][:5] + " " + codes[3][6:] + " "
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, loose, "198.51.100.0"); err != nil {
		t.Fatalf("a recovery code: %v", err)
	}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, codes[3], "203.0.113.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a recovery code twice: %v", err)
	}
	used := filter(f.auditLog(t, f.org.ID), gatehouse.AuditRecoveryCodeUsed)
	if len(used) != 1 || used[0].Changes["recoveryCodesLeft"].To != "9" {
		t.Errorf("recovery code entries: %+v", used)
	}

	// Wrong codes are spent from the user's limit (5 here), not given back.
	var retry *gatehouse.RetryError
	for range 4 {
		_, _, _, err = f.svc.SignInSecondFactor(ctx, step.Token, "999999", "203.0.113.0")
	}
	if !errors.As(err, &retry) || !errors.Is(err, gatehouse.ErrSignInLimited) {
		t.Errorf("wrong codes past the limit: %v", err)
	}

	f.now = f.now.Add(gatehouse.SecondStepLifetime)
	limiter.spent = map[string]int{}
	if _, _, _, err := f.svc.SignInSecondFactor(ctx, step.Token, codes[4], "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("an expired step: %v", err)
	}
}

// TestSecondFactorRequired: once an admin requires a second factor, a
// member without one signs in to a session good only for enrolment: the
// service refuses everything else. Enrolling gives a full session. An
// admin's reset takes the factor away and ends the user's sessions; the
// user's own removal needs a good code.
func TestSecondFactorRequired(t *testing.T) {
	limiter := &countingLimiter{spent: map[string]int{}, limit: 3}
	f := newService(t, nil, func(c *service.Config) { c.SecondFactorLimiter = limiter.reserve })
	ctx := context.Background()
	admin, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	asAdmin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, Label: admin.Email, OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	viewer, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "viewer@acme.test", Password: "another long password", Role: gatehouse.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	asViewer := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: viewer.ID, Label: viewer.Email, OrgID: f.org.ID, Role: gatehouse.RoleViewer})
	if err := f.svc.RequireSecondFactor(asViewer, f.org.ID, true); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a viewer required a second factor: %v", err)
	}
	if err := f.svc.RequireSecondFactor(asAdmin, f.other.ID, true); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an admin of another organization: %v", err)
	}
	if err := f.svc.RequireSecondFactor(asAdmin, f.org.ID, true); err != nil {
		t.Fatal(err)
	}

	session, token, _, err := f.svc.SignIn(ctx, "viewer@acme.test", "another long password", "192.0.2.0")
	if err != nil || !session.EnrolOnly {
		t.Fatalf("a member without a factor: %+v %v", session, err)
	}
	found, _, err := f.svc.FindSession(ctx, token)
	if err != nil || !found.EnrolOnly {
		t.Fatalf("FindSession: %+v %v", found, err)
	}
	enrolOnly := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: viewer.ID, Label: viewer.Email, OrgID: f.org.ID,
		Role: gatehouse.RoleViewer, EnrolOnly: true})
	if _, _, err := f.svc.ListLocations(enrolOnly, f.org.ID, 10, nil, false); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an enrol-only session read locations: %v", err)
	}
	if err := f.svc.SetTimeZone(enrolOnly, f.org.ID, viewer.ID, "UTC"); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an enrol-only session set its zone: %v", err)
	}
	e, err := f.svc.BeginEnrolment(enrolOnly)
	if err != nil {
		t.Fatal(err)
	}
	full, fullToken, _, err := f.svc.EnrolSecondFactor(enrolOnly, e.Pending, code(t, e.Secret, f.now))
	if err != nil || full.EnrolOnly {
		t.Fatalf("enrolled: %+v %v", full, err)
	}
	if _, _, err := f.svc.FindSession(ctx, token); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the enrol-only session lives on: %v", err)
	}

	// Removal needs a good code; under the requirement it leaves a
	// session for enrolment only.
	if _, _, err := f.svc.RemoveSecondFactor(asViewer, "000000", "192.0.2.0"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("removed with a wrong code: %v", err)
	}
	var retry *gatehouse.RetryError
	for range 3 { // the limit is 3 here: a session alone cannot guess its way
		_, _, err = f.svc.RemoveSecondFactor(asViewer, "000000", "192.0.2.0")
	}
	if !errors.As(err, &retry) {
		t.Errorf("wrong codes past the limit: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 3 {
		t.Errorf("%d wrong codes audited, want 3", n)
	}
	limiter.spent = map[string]int{}
	f.now = f.now.Add(30 * time.Second)
	after, _, err := f.svc.RemoveSecondFactor(asViewer, code(t, e.Secret, f.now), "192.0.2.0")
	if err != nil || !after.EnrolOnly {
		t.Fatalf("removed: %+v %v", after, err)
	}
	if _, _, err := f.svc.FindSession(ctx, fullToken); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a session outlived the removal: %v", err)
	}

	// An admin's reset, for a lost phone.
	e, _ = f.svc.BeginEnrolment(asViewer)
	if _, _, _, err := f.svc.EnrolSecondFactor(asViewer, e.Pending, code(t, e.Secret, f.now)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ResetSecondFactor(asViewer, f.org.ID, "admin@acme.test"); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a viewer reset a factor: %v", err)
	}
	if _, err := f.svc.ResetSecondFactor(asAdmin, f.org.ID, "admin@acme.test"); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("an admin reset their own factor, with no code: %v", err)
	}
	u, err := f.svc.ResetSecondFactor(asAdmin, f.org.ID, "Viewer@acme.test")
	if err != nil || u.SecondFactor {
		t.Fatalf("reset: %+v %v", u, err)
	}
	reset := filter(f.auditLog(t, f.org.ID), gatehouse.AuditSecondFactorReset)
	if len(reset) != 1 || reset[0].Target.ID != viewer.ID || reset[0].Actor.Label != admin.Email {
		t.Errorf("reset entries %+v", reset)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSecondFactorEnrolled)); n != 2 {
		t.Errorf("%d enrolments audited, want 2", n)
	}
	if _, err := f.svc.ResetSecondFactor(asAdmin, f.org.ID, "viewer@acme.test"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a reset of no factor: %v", err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "viewer@acme.test", "another long password", "192.0.2.0"); err != nil {
		t.Errorf("signing in after the reset: %v", err)
	}
}

// enrolsMeanwhile is a store on which the user enrols a second factor
// right after a sign-in has read them, while the password is checked.
type enrolsMeanwhile struct {
	gatehouse.Store
	orgID, userID uuid.UUID
}

func (s enrolsMeanwhile) FindUsersByEmail(ctx context.Context, email string) ([]gatehouse.User, error) {
	users, err := s.Store.FindUsersByEmail(ctx, email)
	if err == nil {
		_, err = s.Store.SetSecondFactor(ctx, gatehouse.SystemEntry(gatehouse.AuditSecondFactorEnrolled), s.orgID, s.userID,
			&gatehouse.SecondFactor{Sealed: []byte("sealed"), EnrolledAt: time.Now()})
	}
	return users, err
}

// TestEnrolmentDuringASignInAsksForTheCode: a password checked while
// its user enrols a second factor signs nobody in by itself: the store
// refuses the session, and the sign-in asks for the code.
func TestEnrolmentDuringASignInAsksForTheCode(t *testing.T) {
	race := &enrolsMeanwhile{}
	f := newServiceOn(t, nil, func(s gatehouse.Store) gatehouse.Store { race.Store = s; return race })
	u, err := f.svc.CreateUser(context.Background(), gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	race.orgID, race.userID = f.org.ID, u.ID
	_, _, _, err = f.svc.SignIn(context.Background(), "ops@acme.test", "correct horse battery", "192.0.2.0")
	var step *gatehouse.SecondFactorError
	if !errors.As(err, &step) {
		t.Fatalf("a sign-in that read the user before the enrolment: %v, want the code step", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignedIn)); n != 0 {
		t.Errorf("%d sign-ins recorded", n)
	}
}
