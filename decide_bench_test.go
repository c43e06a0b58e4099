package gatehouse

import (
	"testing"
	"time"
)

// benchPolicy is a realistic policy: office hours in Berlin, a weekend
// night, a holiday, a few hundred allow rules of every kind and a deny list.
func benchPolicy(tb testing.TB) *CompiledPolicy {
	tb.Helper()
	rank := 200
	p := Policy{
		Mode: ModeRules,
		Schedule: &Schedule{
			TimeZone: "Europe/Berlin",
			Windows: []Window{
				{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "09:00", To: "17:30"},
				{Days: []string{"SAT"}, From: "22:00", To: "02:00"},
			},
			Exceptions: []Exception{{Date: "2026-12-25", Closed: true}},
		},
		Allow: []AllowRule{{GroupID: "456", MinRank: &rank}, {GamepassID: "789"}, {BadgeID: "1011"}, {Premium: true}},
	}
	for i := range 300 {
		p.Allow = append(p.Allow, AllowRule{PlatformUserID: itoa(1000 + i)})
		p.Deny = append(p.Deny, DenyRule{PlatformUserID: itoa(5000 + i)})
	}
	c, err := p.Compile()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func benchInput() DecisionInput {
	return DecisionInput{
		PlatformUserID: "42",
		ServerJobID:    "job-1",
		Attributes: PlayerAttributes{
			Groups:     map[string]int{"1": 5, "2": 7, "456": 100},
			Gamepasses: []string{"1", "2", "3"},
			Badges:     []string{"1011"},
		},
		Unlocks: []ActiveUnlock{{Scope: ScopePlayer, PlatformUserID: "7", Until: Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))}},
	}
}

// TestDecideAllocatesNothing: a decision is a few map lookups, no garbage,
// whichever branch decides.
func TestDecideAllocatesNothing(t *testing.T) {
	p := benchPolicy(t)
	in := benchInput()
	instants := []time.Time{
		time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), // Wednesday, open: badge
		time.Date(2026, 11, 29, 0, 30, 0, 0, time.UTC), // Sunday 01:30 Berlin: Saturday's night
		time.Date(2026, 12, 25, 10, 0, 0, 0, time.UTC), // closed holiday
		time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC), // outside
	}
	for _, at := range instants {
		if n := testing.AllocsPerRun(1000, func() { Decide(p, in, at) }); n != 0 {
			t.Errorf("Decide at %v: %v allocations, want 0", at, n)
		}
	}
	denied := in
	denied.Attributes = PlayerAttributes{Groups: map[string]int{"9": 1}}
	if n := testing.AllocsPerRun(1000, func() { Decide(p, denied, instants[0]) }); n != 0 {
		t.Errorf("Decide, not on the allowlist: %v allocations, want 0", n)
	}
}

func BenchmarkDecide(b *testing.B) {
	p := benchPolicy(b)
	in := benchInput()
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Decide(p, in, at.Add(time.Duration(i%100000)*time.Minute))
	}
}
