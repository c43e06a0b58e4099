package gatehouse_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// A feed cursor holds its position sealed for its organization: the
// same position always makes the same cursor, which says nothing of the
// position (not even as the first form's text), does not open for
// another organization or under another secret, and does not open once
// altered. Cursors of the first form, handed out before, still open, and
// say so.
func TestFeedCursorsAreSealedForTheirOrganization(t *testing.T) {
	c := gatehouse.NewFeedCursors([]byte("0123456789abcdef0123456789abcdef"))
	a, b := gatehouse.NewID(), gatehouse.NewID()
	p := gatehouse.FeedPosition{Txn: 746299, Seq: 412}
	s := c.Seal(a, p)
	if s != c.Seal(a, p) {
		t.Errorf("one position, two cursors")
	}
	if s == c.Seal(b, p) || s == c.Seal(a, gatehouse.FeedPosition{Txn: 746299, Seq: 413}) {
		t.Errorf("one cursor for two organizations or positions")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || strings.Contains(string(raw), "746299") || strings.Contains(string(raw), "f1.") {
		t.Errorf("cursor %q (%q) shows its position", s, raw)
	}
	got, legacy, err := c.Open(a, s)
	if err != nil || got != p || legacy {
		t.Fatalf("Open = %+v, %t, %v", got, legacy, err)
	}
	if _, _, err := c.Open(b, s); err == nil {
		t.Errorf("another organization opened the cursor")
	}
	if _, _, err := gatehouse.NewFeedCursors([]byte("another secret of thirty-two bytes")).Open(a, s); err == nil {
		t.Errorf("another secret opened the cursor")
	}
	for i := range raw {
		altered := append([]byte(nil), raw...)
		altered[i] ^= 1
		if _, _, err := c.Open(a, base64.RawURLEncoding.EncodeToString(altered)); err == nil {
			t.Fatalf("a cursor altered at byte %d opened", i)
		}
	}

	old := base64.RawURLEncoding.EncodeToString([]byte("f1.746299.412"))
	if got, legacy, err := c.Open(b, old); err != nil || got != p || !legacy {
		t.Errorf("a cursor of the first form: %+v, %t, %v", got, legacy, err)
	}
	for _, bad := range []string{"", "nope!", base64.RawURLEncoding.EncodeToString([]byte("f1.1.-2")), strings.Repeat("A", 200)} {
		if _, _, err := c.Open(a, bad); err == nil || errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("Open(%q) = %v", bad, err)
		}
	}
}
