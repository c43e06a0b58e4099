package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testSecondFactors: a user's second factor is stored with its recovery
// codes, ends the user's sessions when set or removed, spends each step
// and each recovery code once (a step only forward), and is nobody's in
// another organization; the organization's requirement is its own.
func testSecondFactors(t *testing.T, f *fixture) {
	o, rival, u := f.opsOfAcme()
	if _, err := f.s.FindSecondFactor(ctx, o.ID, u.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatalf("a new user has a second factor: %v", err)
	}
	if ok, err := f.s.UseTOTPStep(ctx, o.ID, u.ID, 100); ok || err != nil {
		t.Errorf("a step of a user without a factor: %v %v", ok, err)
	}
	s, token := sessions.New(u.ID, f.now)
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))

	codes := [][32]byte{gatehouse.RecoveryHash("secret", "aaaaabbbbb"), gatehouse.RecoveryHash("secret", "cccccddddd")}
	enrolled := f.now.Truncate(time.Millisecond)
	factor := &gatehouse.SecondFactor{Sealed: []byte("sealed"), LastStep: 10, EnrolledAt: enrolled, RecoveryCodes: codes}
	if _, err := f.s.SetSecondFactor(ctx, gatehouse.SystemEntry(gatehouse.AuditSecondFactorEnrolled), rival.ID, u.ID, factor); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("enrolled through another organization: %v", err)
	}
	got, err := f.s.SetSecondFactor(ctx, gatehouse.SystemEntry(gatehouse.AuditSecondFactorEnrolled), o.ID, u.ID, factor)
	must(t, err)
	if !got.SecondFactor || got.ID != u.ID {
		t.Errorf("enrolled: %+v", got)
	}
	// A session without the code is refused; with it, it starts.
	if err := f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s); !errors.Is(err, gatehouse.ErrSecondFactorNeeded) {
		t.Errorf("a session without the code: %v", err)
	}
	given, givenToken := sessions.New(u.ID, f.now)
	given.SecondFactorGiven = true
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), given))
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a session survived the enrolment: %v", err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(givenToken), f.now); err != nil {
		t.Errorf("the session given the code: %v", err)
	}
	if found, _ := f.s.FindUsersByEmail(ctx, u.Email); len(found) != 1 || !found[0].SecondFactor {
		t.Errorf("FindUsersByEmail: %+v", found)
	}
	stored, err := f.s.FindSecondFactor(ctx, o.ID, u.ID)
	must(t, err)
	if string(stored.Sealed) != "sealed" || stored.LastStep != 10 || !stored.EnrolledAt.Equal(enrolled) || stored.RecoveryLeft != 2 || stored.RecoveryCodes != nil {
		t.Errorf("stored %+v", stored)
	}
	if _, err := f.s.FindSecondFactor(ctx, rival.ID, u.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("read through another organization: %v", err)
	}

	// Steps only forward, each once; not through another organization.
	for _, c := range []struct {
		org  *gatehouse.Organization
		step int64
		want bool
	}{{&rival, 11, false}, {&o, 10, false}, {&o, 9, false}, {&o, 11, true}, {&o, 11, false}, {&o, 13, true}, {&o, 12, false}} {
		if ok, err := f.s.UseTOTPStep(ctx, c.org.ID, u.ID, c.step); ok != c.want || err != nil {
			t.Errorf("step %d in %s: %v %v, want %v", c.step, c.org.Name, ok, err, c.want)
		}
	}

	// Each recovery code once, audited with what is left.
	use := func(org gatehouse.Organization, h [32]byte) bool {
		ok, err := f.s.UseRecoveryCode(ctx, gatehouse.SystemEntry(gatehouse.AuditRecoveryCodeUsed), org.ID, u.ID, h)
		must(t, err)
		return ok
	}
	if use(rival, codes[0]) || use(o, gatehouse.RecoveryHash("secret", "zzzzzzzzzz")) {
		t.Error("a recovery code of another organization, or an unknown one, was used")
	}
	if !use(o, codes[0]) || use(o, codes[0]) {
		t.Error("a recovery code is not good exactly once")
	}
	entries := f.log(o.ID, gatehouse.AuditFilter{Action: gatehouse.AuditRecoveryCodeUsed})
	if len(entries) != 1 || entries[0].Target.ID != u.ID || entries[0].Changes["recoveryCodesLeft"].To != "1" {
		t.Errorf("recovery code entries %+v", entries)
	}
	if left, _ := f.s.FindSecondFactor(ctx, o.ID, u.ID); left.RecoveryLeft != 1 {
		t.Errorf("left %d", left.RecoveryLeft)
	}

	// A new enrolment replaces the codes; removal takes all.
	s, token = sessions.New(u.ID, f.now)
	s.SecondFactorGiven = true
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	factor.RecoveryCodes = [][32]byte{gatehouse.RecoveryHash("secret", "eeeeefffff")}
	_, err = f.s.SetSecondFactor(ctx, gatehouse.SystemEntry(gatehouse.AuditSecondFactorEnrolled), o.ID, u.ID, factor)
	must(t, err)
	if use(o, codes[1]) {
		t.Error("a code of the enrolment before is good")
	}
	got, err = f.s.SetSecondFactor(ctx, gatehouse.SystemEntry(gatehouse.AuditSecondFactorReset), o.ID, u.ID, nil)
	must(t, err)
	if got.SecondFactor {
		t.Errorf("removed: %+v", got)
	}
	if _, err := f.s.FindSecondFactor(ctx, o.ID, u.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("after removal: %v", err)
	}
	if use(o, gatehouse.RecoveryHash("secret", "eeeeefffff")) {
		t.Error("a recovery code outlived its factor")
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a session survived the removal: %v", err)
	}
	if n := len(f.log(o.ID, gatehouse.AuditFilter{Action: gatehouse.AuditSecondFactorReset})); n != 1 {
		t.Errorf("%d reset entries", n)
	}

	// The requirements: per organization, each on its own, audited when
	// they change.
	for what, action := range map[gatehouse.SignInRequirement]gatehouse.AuditAction{
		gatehouse.RequireSecondFactor: gatehouse.AuditSecondFactorRequired, gatehouse.RequireProvider: gatehouse.AuditProviderRequired} {
		other := gatehouse.RequireProvider
		if what == other {
			other = gatehouse.RequireSecondFactor
		}
		for _, required := range []bool{true, true, false} {
			must(t, f.s.SetSignInRequired(ctx, gatehouse.SystemEntry(action), o.ID, what, required))
			if got, err := f.s.SignInRequired(ctx, o.ID, what); got != required || err != nil {
				t.Errorf("%s required = %v %v, want %v", what, got, err, required)
			}
			if got, _ := f.s.SignInRequired(ctx, rival.ID, what); got {
				t.Errorf("the requirement %s reached another organization", what)
			}
			if got, _ := f.s.SignInRequired(ctx, o.ID, other); got {
				t.Errorf("requiring %s required %s too", what, other)
			}
		}
		if n := len(f.log(o.ID, gatehouse.AuditFilter{Action: action})); n != 2 {
			t.Errorf("%d %s entries, want 2 (one per change)", n, action)
		}
	}
	if _, err := f.s.SignInRequired(ctx, gatehouse.NewID(), gatehouse.RequireSecondFactor); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown organization: %v", err)
	}

	// A session good only for enrolment says so.
	s, token = sessions.New(u.ID, f.now)
	s.EnrolOnly = true
	must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	if found, _, err := f.s.FindSession(ctx, sessions.Hash(token), f.now); err != nil || !found.EnrolOnly {
		t.Errorf("enrol-only session: %+v %v", found, err)
	}
}
