package gatehouse_test

import (
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestMatchesQFoldsCase pins the one case-folding rule of q (docs/api.md):
// the lower case of the upper case, character by character.
func TestMatchesQFoldsCase(t *testing.T) {
	for _, c := range []struct {
		text, q string
		want    bool
	}{
		{"Front Door", "front door", true},
		{"İstanbul", "istanbul", true}, // Turkish dotted capital I
		{"istanbul", "İSTANBUL", true},
		{"ıstanbul", "ISTANBUL", true}, // Turkish dotless small i
		{"ſtraße", "STRASSE", false},   // ß stays one character
		{"ſtraße", "straße", true},     // long s
		{"ΟΔΟΣ", "οδος", true},         // final sigma
		{"οδος", "ΟΔΟΣ", true},
		{"µmol", "ΜMOL", true},  // micro sign and capital mu
		{"Kelvin", "kel", true}, // Kelvin sign
		{"Café Ñandú", "cafe", false},
		{"Café Ñandú", "CAFÉ ñ", true},
	} {
		if got := gatehouse.MatchesQ(c.q, uuid.Nil, c.text); got != c.want {
			t.Errorf("MatchesQ(%q, %q) = %v, want %v", c.text, c.q, got, c.want)
		}
	}
}

// TestIDPrefix pins how q matches event ids: by prefix of at least four
// hexadecimal digits, in any case, with the canonical hyphens or none.
func TestIDPrefix(t *testing.T) {
	id := uuid.MustParse("0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"0193", true},
		{"0193A5B2", true},
		{"0193a5b2-", true},
		{"0193a5b2-7c1e-7d", true},
		{"0193a5b27c1e7d3f", true},
		{id.String(), true},
		{"019", false},       // too short
		{"a5b2", false},      // not the start
		{"0193-a5b2", false}, // a hyphen the canonical form does not have
		{"0193a5b2-7c1e7d3f", false},
		{"0193a5b27c1e-7d3f", false}, // hyphens where the form has them, or none
		{"0194", false},
		{"0192", false},
	} {
		if got := gatehouse.MatchesQ(c.q, id, ""); got != c.want {
			t.Errorf("MatchesQ(%q) on %s = %v, want %v", c.q, id, got, c.want)
		}
	}
	// The range of a prefix of all f's has no upper end; others end at the
	// prefix raised by one, carrying.
	if _, hi, ok := gatehouse.IDPrefix("ffff"); !ok || hi != nil {
		t.Errorf(`IDPrefix("ffff") = %v, %v; want no upper end`, hi, ok)
	}
	if lo, hi, ok := gatehouse.IDPrefix("12fff"); !ok || lo.String() != "12fff000-0000-0000-0000-000000000000" ||
		hi == nil || hi.String() != "13000000-0000-0000-0000-000000000000" {
		t.Errorf(`IDPrefix("12fff") = %v, %v, %v`, lo, hi, ok)
	}
}
