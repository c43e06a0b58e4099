package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestLookAlikeUserReadsNoSignInFailures: an admin of another
// organization adds a member's email as their own viewer, and joins it
// through the link they were shown. That look-alike is B's own member,
// with B's admin's password, and no more:
//   - until it joins it costs the member's sign-ins no hash;
//   - the member's failed sign-ins stay in the log of the organization
//     that proved the email first;
//   - the member's password signs in to the member's organization only;
//   - it reaches no other organization's invitation of the email: with
//     no provider to prove the email, nothing is accepted across
//     organizations.
func TestLookAlikeUserReadsNoSignInFailures(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	a, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@a.test", Password: "a's own password"})
	if err != nil {
		t.Fatal(err)
	}
	bAdmin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, OrgID: f.other.ID, Role: gatehouse.RoleAdmin})
	lookAlike, link, err := f.svc.InviteUser(bAdmin, gatehouse.NewUser{OrgID: f.other.ID, Email: "admin@a.test", Role: gatehouse.RoleViewer})
	if err != nil || lookAlike.Proven || lookAlike.PasswordHash != "" {
		t.Fatalf("the look-alike: %+v %v", lookAlike, err)
	}
	failOnce := func(wantHashes int64) {
		t.Helper()
		before := f.hasher.verifies.Load()
		if _, _, _, err := f.svc.SignIn(ctx, "admin@a.test", "a typo of a's pw", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
			t.Fatalf("a wrong password: %v", err)
		}
		if n := f.hasher.verifies.Load() - before; n != wantHashes {
			t.Errorf("a failed sign-in hashed %d times, want %d", n, wantHashes)
		}
	}
	failOnce(1) // the invitation costs none
	f.now = f.now.Add(time.Minute)
	if _, _, who, err := f.svc.Join(ctx, link, "set by b's admin"); err != nil || who.ID != lookAlike.ID {
		t.Fatalf("B's admin joins through the look-alike's link: %+v %v", who, err)
	}
	failOnce(2) // a member now: its hash is checked too
	if n := len(filter(f.auditLog(t, f.other.ID), gatehouse.AuditSignInFailed)); n != 0 {
		t.Errorf("the look-alike's organization got %d of the member's failed sign-ins", n)
	}
	failed := filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)
	if len(failed) != 2 || failed[0].Target.ID != a.ID {
		t.Errorf("the member's organization has %+v, want its two failed sign-ins", failed)
	}
	if _, _, who, err := f.svc.SignIn(ctx, "admin@a.test", "a's own password", "192.0.2.0"); err != nil || who.ID != a.ID {
		t.Fatalf("the member's sign-in: %+v %v, want A's user, no chooser", who, err)
	}
	if _, _, who, err := f.svc.SignIn(ctx, "admin@a.test", "set by b's admin", "198.51.100.0"); err != nil || who.ID != lookAlike.ID {
		t.Fatalf("B's admin's password: %+v %v, want B's own look-alike", who, err)
	}

	// A's own invitation of a new email, which B's admin claims first in
	// B: B's member reaches none of A's.
	newcomer, aLink, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "new@a.test", Role: gatehouse.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	_, bLink, err := f.svc.InviteUser(bAdmin, gatehouse.NewUser{OrgID: f.other.ID, Email: "new@a.test"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, claimed, err := f.svc.Join(ctx, bLink, "claimed by b's admin")
	if err != nil {
		t.Fatal(err)
	}
	if claimed.OrgID != f.other.ID {
		t.Fatalf("claimed: %+v", claimed)
	}
	if _, _, who, err := f.svc.Join(ctx, aLink, "the newcomer's own"); err != nil || who.ID != newcomer.ID {
		t.Errorf("the real person joins A through A's link: %+v %v", who, err)
	}
}

// TestInvitationLink: a user an admin adds has no password and takes no
// part in sign-in; the link the admin is shown sets the user's own
// password, once, before it expires, and signs them in; a new link
// replaces the old one; a user the operator creates with a password is
// a member at once, and a dashboard user cannot.
func TestInvitationLink(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	admin, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil || !admin.Proven {
		t.Fatalf("the operator's user: %+v %v", admin, err)
	}
	asAdmin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, Label: admin.Email, OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	if _, err := f.svc.CreateUser(asAdmin, gatehouse.NewUser{OrgID: f.org.ID, Email: "x@acme.test", Password: "correct horse battery"}); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an admin sets a new user's password: %v, want ErrForbidden", err)
	}
	u, link, err := f.svc.InviteUser(asAdmin, gatehouse.NewUser{OrgID: f.org.ID, Email: "New@Acme.test", Name: "Nova", Role: gatehouse.RoleOperator})
	if err != nil || u.Proven || u.PasswordHash != "" || !u.InvitedUntil.Equal(f.now.Add(gatehouse.InvitationLifetime)) || len(link) < 43 {
		t.Fatalf("invited: %+v %q %v", u, link, err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "new@acme.test", "", ""); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("an invitation with no password signs in: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 0 {
		t.Errorf("an invitation's organization got %d failed sign-ins", n)
	}

	j, err := f.svc.Invitation(ctx, link)
	if err != nil || j.User.ID != u.ID || j.Organization.ID != f.org.ID || j.ProviderOnly {
		t.Fatalf("the link: %+v %v", j, err)
	}
	if _, err := f.svc.Invitation(ctx, link+"x"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a link that was never made: %v", err)
	}
	if _, _, _, err := f.svc.Join(ctx, link, "short"); err == nil {
		t.Fatal("a short password joined")
	} else {
		wantIssues(t, "a short password", err, "password")
	}
	session, token, joined, err := f.svc.Join(ctx, link, "nova's own password")
	if err != nil || joined.ID != u.ID || !joined.Proven || session.EnrolOnly {
		t.Fatalf("join: %+v %v", joined, err)
	}
	if _, who, err := f.svc.FindSession(ctx, token); err != nil || who.ID != u.ID {
		t.Errorf("the session joining started: %+v %v", who, err)
	}
	if _, _, _, err := f.svc.Join(ctx, link, "another password!!"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the link twice: %v, want ErrNotFound", err)
	}
	if _, _, who, err := f.svc.SignIn(ctx, "new@acme.test", "nova's own password", ""); err != nil || who.ID != u.ID {
		t.Errorf("signing in with the password chosen: %+v %v", who, err)
	}
	accepted := only(t, f.auditLog(t, f.org.ID), gatehouse.AuditInvitationAccepted)
	if a := accepted.Actor; a.Type != gatehouse.ActorUser || a.ID == nil || *a.ID != u.ID || accepted.Target.ID != u.ID {
		t.Errorf("user.invitation_accepted: %+v", accepted)
	}
	if _, _, err := f.svc.RenewInvitation(asAdmin, f.org.ID, "new@acme.test"); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a new link for a member: %v, want ErrConflict", err)
	}

	// A link expires; a new one replaces it, and only the new one works.
	late, old, err := f.svc.InviteUser(asAdmin, gatehouse.NewUser{OrgID: f.org.ID, Email: "late@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(gatehouse.InvitationLifetime)
	if _, _, _, err := f.svc.Join(ctx, old, "late's own password"); !errors.Is(err, gatehouse.ErrInvitationExpired) {
		t.Fatalf("an expired link: %v, want ErrInvitationExpired", err)
	}
	users, err := f.svc.ListUsers(asAdmin, f.org.ID)
	if err != nil || len(users) != 3 || users[1].ID != late.ID || users[1].Proven || users[1].InvitedUntil.After(f.now) {
		t.Fatalf("the users: %+v %v", users, err)
	}
	_, renewed, err := f.svc.RenewInvitation(asAdmin, f.org.ID, "late@acme.test")
	if err != nil || renewed == old {
		t.Fatalf("renew: %q %v", renewed, err)
	}
	if _, err := f.svc.Invitation(ctx, old); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the replaced link: %v, want ErrNotFound", err)
	}
	if _, _, who, err := f.svc.Join(ctx, renewed, "late's own password"); err != nil || who.ID != late.ID {
		t.Errorf("joining through the new link: %+v %v", who, err)
	}
}

// TestJoiningUnderARequiredSecondFactor: an organization that requires a
// second factor lets a new user join into a session good only for
// enrolling one.
func TestJoiningUnderARequiredSecondFactor(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	if err := f.svc.RequireSecondFactor(ctx, f.org.ID, true); err != nil {
		t.Fatal(err)
	}
	_, link, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "new@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	session, _, _, err := f.svc.Join(ctx, link, "nova's own password")
	if err != nil || !session.EnrolOnly {
		t.Fatalf("join: %+v %v, want a session for enrolment only", session, err)
	}
}
