package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// sessions signs the suite's session tokens.
var sessions = gatehouse.NewSessions([]byte("storetest secret"))

func testSessions(t *testing.T, f *fixture) {
	o := f.org("Acme")
	u, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "Ops@Acme.test", Name: "Ops", PasswordHash: "x"}, nil)
	must(t, err)
	if found, _ := f.s.FindUsersByEmail(ctx, u.Email); u.Proven || len(found) != 1 || found[0].Proven {
		t.Errorf("a new user is proven: %+v %+v", u, found)
	}
	s, token := sessions.New(u.ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))

	got, user, err := f.s.FindSession(ctx, sessions.Hash(token), f.now.Add(time.Hour))
	must(t, err)
	if got.CSRF != s.CSRF || !got.ExpiresAt.Equal(s.ExpiresAt) || user.ID != u.ID || user.OrgID != o.ID || user.Email != "ops@acme.test" || !user.Proven {
		t.Fatalf("found %+v %+v", got, user)
	}
	// A session proves its user's membership (see User.Proven).
	if found, _ := f.s.FindUsersByEmail(ctx, u.Email); len(found) != 1 || !found[0].Proven {
		t.Errorf("a signed-in user is not proven: %+v", found)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token+"x"), f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another token: %v", err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), s.ExpiresAt); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("at expiry: %v", err)
	}

	other, otherToken := sessions.New(u.ID, f.now.Add(-gatehouse.SessionLifetime-time.Minute)) // already expired
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), other))
	must(t, f.s.DeleteSession(ctx, sessions.Hash(token), f.now))
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("after sign-out: %v", err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(otherToken), other.CreatedAt); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an expired session survived the sweep: %v", err)
	}
	must(t, f.s.DeleteSession(ctx, sessions.Hash("never issued"), f.now))
}

func testSetUserPassword(t *testing.T, f *fixture) {
	o := f.org("Acme")
	u, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "ops@acme.test", Name: "Ops", PasswordHash: "old"}, nil)
	must(t, err)
	s, token := sessions.New(u.ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	got, err := f.s.SetUserPassword(ctx, gatehouse.SystemEntry(gatehouse.AuditUserPasswordSet), o.ID, "OPS@acme.test", "new")
	must(t, err)
	if got.ID != u.ID || got.PasswordHash != "new" {
		t.Errorf("set: %+v", got)
	}
	if found, _ := f.s.FindUsersByEmail(ctx, "ops@acme.test"); len(found) != 1 || found[0].PasswordHash != "new" {
		t.Errorf("stored %+v", found)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a session survived the password change: %v", err)
	}
	if _, err := f.s.SetUserPassword(ctx, gatehouse.SystemEntry(gatehouse.AuditUserPasswordSet), o.ID, "nobody@acme.test", "x"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown email: %v", err)
	}
	if _, err := f.s.SetUserPassword(ctx, gatehouse.SystemEntry(gatehouse.AuditUserPasswordSet), f.org("Beta").ID, "ops@acme.test", "x"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the email in another organization: %v", err)
	}
}

// testUserTimeZone: the zone is stored per user, comes with the user's
// session, and only the user's own organization can set it.
func testUserTimeZone(t *testing.T, f *fixture) {
	o, rival := f.org("Acme"), f.org("Rival")
	u, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: o.ID, Email: "ops@acme.test", Name: "Ops", PasswordHash: "x"}, nil)
	must(t, err)
	if u.TimeZone != "" {
		t.Errorf("a new user's zone is %q, want the browser's (\"\")", u.TimeZone)
	}
	must(t, f.s.SetUserTimeZone(ctx, o.ID, u.ID, "Europe/Berlin"))
	s, token := sessions.New(u.ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	if _, user, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); err != nil || user.TimeZone != "Europe/Berlin" {
		t.Errorf("the session's user: %q, %v", user.TimeZone, err)
	}
	if err := f.s.SetUserTimeZone(ctx, rival.ID, u.ID, "UTC"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization set the zone: %v", err)
	}
	if err := f.s.SetUserTimeZone(ctx, o.ID, gatehouse.NewID(), "UTC"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown user: %v", err)
	}
	if _, user, _ := f.s.FindSession(ctx, sessions.Hash(token), f.now); user.TimeZone != "Europe/Berlin" {
		t.Errorf("the zone after refused changes: %q", user.TimeZone)
	}
}
