package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestSessionsUnderControl: a sign-in keeps the browser and address of
// its door; its use is recorded once a minute at most; the user lists
// their sessions and ends another browser's; an admin, and only an
// admin, signs a user out everywhere.
func TestSessionsUnderControl(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	admin, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	door := func(ua, addr string) context.Context {
		return gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, UserAgent: ua, ClientAddress: addr})
	}
	long := "Mozilla/5.0 \x00(X11)" + strings.Repeat("é", 400)
	laptop, laptopToken, _, err := f.svc.SignIn(door(long, "192.0.2.7"), "admin@acme.test", "correct horse battery", "192.0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	_, phoneToken, _, err := f.svc.SignIn(door("Mozilla/5.0 (iPhone)", "2001:db8::7"), "admin@acme.test", "correct horse battery", "2001:db8::")
	if err != nil {
		t.Fatal(err)
	}
	if len(laptop.UserAgent) > gatehouse.MaxUserAgentLen || strings.ContainsRune(laptop.UserAgent, 0) || !strings.HasPrefix(laptop.UserAgent, "Mozilla/5.0 (X11)é") {
		t.Errorf("the kept user agent: %q", laptop.UserAgent)
	}

	f.now = f.now.Add(10 * time.Minute)
	found, _, err := f.svc.FindSession(ctx, laptopToken)
	if err != nil || !found.LastSeenAt.Equal(f.now) {
		t.Errorf("found %v, last seen %v, want now", err, found.LastSeenAt)
	}
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, Label: admin.Email, OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	list, err := f.svc.Sessions(as)
	if err != nil || len(list) != 2 || list[0].ID != laptop.ID || list[1].ClientAddress != "2001:db8::7" {
		t.Fatalf("sessions %+v %v", list, err)
	}
	if err := f.svc.EndSession(as, list[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.FindSession(ctx, phoneToken); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the phone's session after it was ended: %v", err)
	}
	if err := f.svc.EndSession(as, list[1].ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("ended twice: %v", err)
	}

	viewer, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "viewer@acme.test", Password: "another long password", Role: gatehouse.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	_, viewerToken, _, err := f.svc.SignIn(ctx, "viewer@acme.test", "another long password", "192.0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	asViewer := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: viewer.ID, Label: viewer.Email, OrgID: f.org.ID, Role: gatehouse.RoleViewer})
	if _, _, err := f.svc.EndUserSessions(asViewer, f.org.ID, "admin@acme.test"); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a viewer signed the admin out: %v", err)
	}
	if err := f.svc.EndSession(asViewer, laptop.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a viewer ended the admin's session: %v", err)
	}
	if _, n, err := f.svc.EndUserSessions(as, f.org.ID, "Viewer@acme.test"); n != 1 || err != nil {
		t.Errorf("an admin signed the viewer out: %d %v", n, err)
	}
	if _, _, err := f.svc.FindSession(ctx, viewerToken); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the viewer's session lives: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSessionsEnded)); n != 2 {
		t.Errorf("%d sessions_ended entries, want 2", n)
	}
}

// TestChangePassword: a user changes their own password given the
// current one; every other session ends, the new one works, the old
// password no longer does. A wrong current password is a failed
// sign-in, audited, that ends nothing; an enrol-only session may not,
// nor does a change escape the organization's requirement of a factor.
func TestChangePassword(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	u, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	_, other, _, err := f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", "192.0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: u.ID, Label: u.Email, OrgID: f.org.ID, Role: u.Role})
	if _, _, err := f.svc.ChangePassword(as, "a wrong guess!!", "a brand new password", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a wrong current password: %v", err)
	}
	if n := len(filter(f.auditLog(t, f.org.ID), gatehouse.AuditSignInFailed)); n != 1 {
		t.Errorf("%d failed sign-ins audited, want 1", n)
	}
	if _, _, err := f.svc.ChangePassword(as, "correct horse battery", "short", "192.0.2.0"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a short new password: %v", err)
	}
	if _, _, err := f.svc.FindSession(ctx, other); err != nil {
		t.Fatalf("a refused change ended a session: %v", err)
	}
	enrolOnly := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: u.ID, Label: u.Email, OrgID: f.org.ID, EnrolOnly: true})
	if _, _, err := f.svc.ChangePassword(enrolOnly, "correct horse battery", "a brand new password", "192.0.2.0"); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an enrol-only session: %v", err)
	}
	_, mine, err := f.svc.ChangePassword(as, "correct horse battery", "a brand new password", "192.0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.FindSession(ctx, other); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another session outlived the change: %v", err)
	}
	if _, _, err := f.svc.FindSession(ctx, mine); err != nil {
		t.Errorf("the changing browser's new session: %v", err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "ops@acme.test", "correct horse battery", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("the old password: %v", err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "ops@acme.test", "a brand new password", "192.0.2.0"); err != nil {
		t.Errorf("the new password: %v", err)
	}
	// Under a requirement of a second factor the user has not enrolled,
	// the new session is good for enrolment only, as a sign-in's.
	if err := f.svc.RequireSecondFactor(ctx, f.org.ID, true); err != nil {
		t.Fatal(err)
	}
	s, _, err := f.svc.ChangePassword(as, "a brand new password", "yet another new password", "192.0.2.0")
	if err != nil || !s.EnrolOnly {
		t.Errorf("a change under the requirement: %+v %v, want a session for enrolment only", s, err)
	}
}
