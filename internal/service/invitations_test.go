package service_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestLookAlikeUserReadsNoSignInFailures: an admin of another
// organization adds a member's email as their own viewer. That user is an
// invitation:
//   - the member's failed sign-ins stay out of the other organization's
//     log;
//   - it costs the member's sign-ins no hash;
//   - its password (which the other admin set, so knows) signs nobody in.
//
// Only the member, signed in, can accept it.
func TestLookAlikeUserReadsNoSignInFailures(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	a, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@a.test", Password: "a's own password"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "admin@a.test", "a's own password", "192.0.2.0"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.other.ID, Email: "rival@b.test", Password: "b's own password"}); err != nil {
		t.Fatal(err)
	}
	bAdmin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, OrgID: f.other.ID, Role: gatehouse.RoleAdmin})
	lookAlike, err := f.svc.CreateUser(bAdmin, gatehouse.NewUser{OrgID: f.other.ID, Email: "admin@a.test",
		Password: "set by b's admin", Role: gatehouse.RoleViewer})
	if err != nil || lookAlike.Proven {
		t.Fatalf("the look-alike: %+v %v", lookAlike, err)
	}

	before := f.hasher.verifies.Load()
	if _, _, _, err := f.svc.SignIn(ctx, "admin@a.test", "a typo of a's pw", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatalf("a wrong password: %v", err)
	}
	if n := f.hasher.verifies.Load() - before; n != 1 {
		t.Errorf("a failed sign-in hashed %d times; the invitation costs none, want 1", n)
	}
	if n := len(filter(f.auditLog(t, f.other.ID), gatehouse.AuditSignInFailed)); n != 0 {
		t.Errorf("the look-alike's organization got %d of the member's failed sign-ins", n)
	}
	failed := filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)
	if len(failed) != 1 || failed[0].Target.ID != a.ID {
		t.Errorf("the member's organization has %+v, want its one failed sign-in", failed)
	}

	before = f.hasher.verifies.Load()
	_, _, who, err := f.svc.SignIn(ctx, "admin@a.test", "a's own password", "192.0.2.0")
	if err != nil || who.ID != a.ID || f.hasher.verifies.Load()-before != 1 {
		t.Fatalf("the member's sign-in: %+v %v (%d hashes): no chooser, one hash", who, err, f.hasher.verifies.Load()-before)
	}
	// B's admin knows the look-alike's password, and it proves nothing.
	if _, _, _, err := f.svc.SignIn(ctx, "admin@a.test", "set by b's admin", "198.51.100.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatalf("the look-alike's password: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.other.ID), gatehouse.AuditSignedIn)); n != 0 {
		t.Errorf("the look-alike signed in %d times", n)
	}

	// The member, signed in, sees the invitation and may accept it: from
	// then on the email is a member of both, and both see its failures.
	member := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: a.ID, Label: a.Email, OrgID: f.org.ID, Role: a.Role})
	invites, err := f.svc.Invitations(member)
	if err != nil || len(invites) != 1 || invites[0].User.ID != lookAlike.ID || invites[0].Organization.Name != "Rival" {
		t.Fatalf("invitations: %+v %v", invites, err)
	}
	if invites, _ := f.svc.Invitations(bAdmin); len(invites) != 0 {
		t.Errorf("another user sees %d invitations of the email", len(invites))
	}
	stranger := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: lookAlike.ID, Label: a.Email, OrgID: f.other.ID})
	if _, _, _, err := f.svc.AcceptInvitation(stranger, lookAlike.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unproven user accepts its own invitation: %v", err)
	}
	_, token, joined, err := f.svc.AcceptInvitation(member, lookAlike.ID)
	if err != nil || joined.ID != lookAlike.ID {
		t.Fatalf("accept: %+v %v", joined, err)
	}
	if _, u, err := f.svc.FindSession(ctx, token); err != nil || u.OrgID != f.other.ID || !u.Proven {
		t.Errorf("the accepted session: %+v %v", u, err)
	}
	if _, _, _, err := f.svc.AcceptInvitation(member, lookAlike.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("accepted twice: %v", err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "admin@a.test", "a typo of a's pw", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatal(err)
	}
	if n := len(filter(f.auditLog(t, f.other.ID), gatehouse.AuditSignInFailed)); n != 1 {
		t.Errorf("a member of both: the second organization has %d failed sign-ins, want 1", n)
	}
}

// TestNewUserProvesMembershipOnFirstSignIn: a user whose email is a
// member nowhere signs in with the password set for them, which proves
// the membership; before that, their failures are recorded in no
// organization's log.
func TestNewUserProvesMembershipOnFirstSignIn(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	u, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "new@acme.test", Password: "the initial password"})
	if err != nil || u.Proven {
		t.Fatalf("created: %+v %v", u, err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "new@acme.test", "not the password!", ""); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatal(err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 0 {
		t.Errorf("an invitation's organization got %d failed sign-ins", n)
	}
	if _, _, who, err := f.svc.SignIn(ctx, "new@acme.test", "the initial password", ""); err != nil || who.ID != u.ID {
		t.Fatalf("first sign-in: %+v %v", who, err)
	}
	users, err := f.svc.ListUsers(ctx, f.org.ID)
	if err != nil || len(users) != 1 || !users[0].Proven {
		t.Fatalf("after the first sign-in: %+v %v", users, err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "new@acme.test", "not the password!", ""); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatal(err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 1 {
		t.Errorf("a member's organization got %d failed sign-ins, want 1", n)
	}
}
