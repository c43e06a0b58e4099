package gatehouse_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestTOTPStep: RFC 6238's SHA-1 vectors (the secret "12345678901234567890",
// six digits of each eight-digit code), a step either side of the clock
// and no further, and codes that cannot be one.
func TestTOTPStep(t *testing.T) {
	const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // base32 of "12345678901234567890"
	for _, c := range []struct {
		unix int64
		code string
	}{{59, "287082"}, {1111111109, "081804"}, {1234567890, "005924"}, {2000000000, "279037"}} {
		at := time.Unix(c.unix, 0)
		step, ok := gatehouse.TOTPStep(secret, c.code, at)
		if !ok || step != c.unix/30 {
			t.Errorf("at %d: %v step %d", c.unix, ok, step)
		}
		for _, skew := range []time.Duration{-30 * time.Second, 30 * time.Second} {
			if s, ok := gatehouse.TOTPStep(secret, c.code, at.Add(skew)); !ok || s != c.unix/30 {
				t.Errorf("at %d%+v: %v step %d", c.unix, skew, ok, s)
			}
		}
		for _, far := range []time.Duration{-61 * time.Second, 61 * time.Second} {
			if c.unix+int64(far/time.Second) < 0 {
				continue // before 1970: no step to speak of
			}
			if _, ok := gatehouse.TOTPStep(secret, c.code, at.Add(far)); ok {
				t.Errorf("at %d%+v: a code two steps away passed", c.unix, far)
			}
		}
	}
	for _, bad := range []string{"", "28708", "2870821", "abcdef", "287 083"} {
		if _, ok := gatehouse.TOTPStep(secret, bad, time.Unix(59, 0)); ok {
			t.Errorf("%q passed", bad)
		}
	}
	if _, ok := gatehouse.TOTPStep(secret, " 287 082 ", time.Unix(59, 0)); !ok {
		t.Error("a code typed with spaces was refused")
	}
}

// TestRecoveryCodes: ten codes of ten base32 characters, all different,
// read back however they are typed; a look-alike letter reads as its
// digit.
func TestRecoveryCodes(t *testing.T) {
	codes := gatehouse.NewRecoveryCodes()
	seen := map[string]bool{}
	for _, c := range codes {
		n := gatehouse.NormalRecoveryCode(c)
		if len(c) != 11 || c[5] != '-' || n != c[:5]+c[6:] || seen[n] {
			t.Errorf("code %q (normal %q)", c, n)
		}
		seen[n] = true
		if got := gatehouse.NormalRecoveryCode(" " + strings.ToUpper(c) + " "); got != n {
			t.Errorf("typed loosely: %q, want %q", got, n)
		}
	}
	if len(codes) != gatehouse.RecoveryCodeCount {
		t.Errorf("%d codes", len(codes))
	}
	if got := gatehouse.NormalRecoveryCode("OIL23-45678"); got != "0112345678" {
		t.Errorf("look-alikes: %q", got)
	}
	for _, bad := range []string{"", "123456", "abcde-fghij-k", "uuuuu-uuuuu", "abcde-fghi!"} {
		if got := gatehouse.NormalRecoveryCode(bad); got != "" {
			t.Errorf("%q read as %q", bad, got)
		}
	}
}

// TestSecondStepToken: the token of a sign-in's second step names its
// user and organization until it expires, opens for nothing else (nor
// does a choice's token open as one), and an altered one not at all.
func TestSecondStepToken(t *testing.T) {
	s := gatehouse.NewSessions([]byte("secret"))
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	u := gatehouse.User{ID: uuid.New(), OrgID: uuid.New(), Email: "ops@acme.test"}
	token := s.SecondStep(u, now)
	if user, org, ok := s.OpenSecondStep(token, now.Add(gatehouse.SecondStepLifetime-time.Millisecond)); !ok || user != u.ID || org != u.OrgID {
		t.Errorf("opened %v %v %v", user, org, ok)
	}
	if _, _, ok := s.OpenSecondStep(token, now.Add(gatehouse.SecondStepLifetime)); ok {
		t.Error("an expired step opened")
	}
	if _, _, ok := gatehouse.NewSessions([]byte("another")).OpenSecondStep(token, now); ok {
		t.Error("a step opened under another secret")
	}
	if _, _, ok := s.OpenSecondStep(token[:len(token)-2]+"AA", now); ok {
		t.Error("an altered step opened")
	}
	if _, _, ok := s.OpenChoice(token, now); ok {
		t.Error("a step opened as a choice")
	}
	choice := s.Choice(u.Email, []gatehouse.User{u}, now)
	if _, _, ok := s.OpenSecondStep(choice, now); ok {
		t.Error("a choice opened as a step")
	}
	if email, ids, ok := s.OpenChoice(choice, now); !ok || email != u.Email || len(ids) != 1 || ids[0] != u.ID {
		t.Errorf("the choice: %q %v %v", email, ids, ok)
	}
}
