package gatehouse_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

func TestCursorRoundTripAndBinding(t *testing.T) {
	c := gatehouse.NewCursors([]byte("secret one"))
	key := gatehouse.EventKey{OccurredAt: time.UnixMilli(1763641296789).UTC(), ID: gatehouse.NewID()}
	digest := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	s := c.Sign(gatehouse.CursorEvents, digest, gatehouse.EncodeEventKey(key))

	b, err := c.Open(s, gatehouse.CursorEvents, digest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gatehouse.DecodeEventKey(b)
	if err != nil || !got.OccurredAt.Equal(key.OccurredAt) || got.ID != key.ID {
		t.Fatalf("DecodeEventKey = %v, %v; want %v", got, err, key)
	}

	// Another instance with the same secret accepts it.
	if _, err := gatehouse.NewCursors([]byte("secret one")).Open(s, gatehouse.CursorEvents, digest); err != nil {
		t.Errorf("same secret: %v", err)
	}
	if _, err := c.Open(s, gatehouse.CursorEvents, [8]byte{9}); err != gatehouse.ErrCursorMismatch {
		t.Errorf("other filters: %v, want ErrCursorMismatch", err)
	}
	if _, err := c.Open(s, gatehouse.CursorLocations, digest); err != gatehouse.ErrCursorInvalid {
		t.Errorf("other list: %v, want ErrCursorInvalid", err)
	}
	if _, err := gatehouse.NewCursors([]byte("secret two")).Open(s, gatehouse.CursorEvents, digest); err != gatehouse.ErrCursorInvalid {
		t.Errorf("other secret: %v, want ErrCursorInvalid", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(s)
	for i := range raw {
		tampered := append([]byte(nil), raw...)
		tampered[i] ^= 1
		if _, err := c.Open(base64.RawURLEncoding.EncodeToString(tampered), gatehouse.CursorEvents, digest); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
	for _, junk := range []string{"", "x", "!!!!", s[:len(s)-1], s + "A"} {
		if _, err := c.Open(junk, gatehouse.CursorEvents, digest); err == nil {
			t.Errorf("Open(%q) accepted", junk)
		}
	}
}

func TestLocationKeyRoundTrip(t *testing.T) {
	k := gatehouse.LocationKey{Name: "Café Ñandú", ID: gatehouse.NewID()}
	got, err := gatehouse.DecodeLocationKey(gatehouse.EncodeLocationKey(k))
	if err != nil || got != k {
		t.Fatalf("round trip = %v, %v", got, err)
	}
}
