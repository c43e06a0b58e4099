package dashboard_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/password"
)

// TestBrowserSecondFactor drives the dashboard's two-factor sign-in in
// Debian's chromium, headless, with playwright-core
// (browsertest/secondfactor.mjs), in real time: a user enrols an
// authenticator from the Account page, keeps the recovery codes, and signs
// in again with the password and a code; a wrong code, a code used
// already and a recovery code used already are refused. It takes up to
// half a minute more than the rest, waiting for the TOTP step after the
// one the enrolment used. Then the store holds the factor and the audit
// log its enrolment and the one recovery code used. Screenshots as
// TestBrowser's; without node, chromium or playwright-core it skips.
func TestBrowserSecondFactor(t *testing.T) {
	b := newBrowserRun(t, "dashboard-second-factor")
	s := newSiteWithClock(t, time.Now)
	ctx := context.Background()
	org, err := s.store.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Factor Club")
	if err != nil {
		t.Fatal(err)
	}
	const email = "factor@demo.test"
	hash, _ := password.Hash(testPassword)
	user, err := s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: org.ID, Email: email, Name: "Factor Admin", Role: gatehouse.RoleAdmin, PasswordHash: hash, Proven: true}, nil)
	if err != nil {
		t.Fatal(err)
	}

	b.run(s, "secondfactor.mjs", "EMAIL="+email, "PASSWORD="+testPassword)

	users, err := s.store.ListUsers(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 || users[0].ID != user.ID || !users[0].SecondFactor {
		t.Errorf("the user has no second factor: %+v", users)
	}
	for action, want := range map[gatehouse.AuditAction]int{gatehouse.AuditSecondFactorEnrolled: 1, gatehouse.AuditRecoveryCodeUsed: 1} {
		log, err := s.store.ListAuditEntries(ctx, org.ID, gatehouse.AuditFilter{Action: action, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(log.Entries) != want {
			t.Errorf("%d %s entries, want %d: %+v", len(log.Entries), action, want, log.Entries)
		}
		for _, e := range log.Entries {
			if e.Target.ID != user.ID || e.Actor.ID == nil || *e.Actor.ID != user.ID {
				t.Errorf("%s is not of the user %s: %+v", action, user.ID, e)
			}
		}
	}
}
