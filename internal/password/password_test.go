package password

import (
	"strings"
	"testing"
)

func TestHashAndVerify(t *testing.T) {
	h, err := Hash("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=1$") {
		t.Errorf("hash %q is not a PHC argon2id string with the documented costs", h)
	}
	if h2, _ := Hash("correct horse battery"); h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := Verify(pw, h); ok != want || err != nil {
			t.Errorf("Verify(%q) = %v, %v", pw, ok, err)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=x$AA$AA", "$argon2id$v=19$m=8,t=1,p=1$!!$AA"} {
		if _, err := Verify("x", bad); err != ErrMalformedHash {
			t.Errorf("Verify(%q) err = %v", bad, err)
		}
	}
}
