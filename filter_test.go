package gatehouse_test

import (
	"testing"

	"github.com/gatehouse/gatehouse"
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
		if got := gatehouse.MatchesQ(c.text, c.q); got != c.want {
			t.Errorf("MatchesQ(%q, %q) = %v, want %v", c.text, c.q, got, c.want)
		}
	}
}
