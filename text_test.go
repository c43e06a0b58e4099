package gatehouse_test

import (
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
)

func TestCheckNameRefusesControlAndDirectionCharacters(t *testing.T) {
	for _, name := range []string{
		"HQ\x00", "Door\x1b[2J", "a\tb", "a\nb", "a\x7fb", "a\u0085b", "Acme\u009b31m",
		"\u202erood tnorF", "a\u2066b\u2069", "a\u200fb", "a\u061cb", "a\u2028b",
	} {
		if _, err := gatehouse.CheckName("name", name); !errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("CheckName(%q) = %v, want ErrInvalid", name, err)
		}
	}
	for _, name := range []string{"İstanbul", "Çarşı kapısı", "باب", "👩‍👩‍👧 room", "नमस्ते", "  Front door\n"} {
		if _, err := gatehouse.CheckName("name", name); err != nil {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}
