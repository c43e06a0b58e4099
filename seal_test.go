package gatehouse_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
)

func newSealer(t *testing.T, secret string) *gatehouse.Sealer {
	t.Helper()
	s, err := gatehouse.NewSealer([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealOpens(t *testing.T) {
	s := newSealer(t, "the service secret")
	org := gatehouse.NewID()
	key := []byte("open-cloud-key-123456")
	sealed := s.Seal(org, "42", key)
	if bytes.Contains(sealed, key) {
		t.Fatal("the sealed value contains the key in clear")
	}
	got, err := s.Open(org, "42", sealed)
	if err != nil || !bytes.Equal(got, key) {
		t.Fatalf("Open = %q, %v; want the key", got, err)
	}
	// The nonce is random: sealing twice differs, and both open.
	again := s.Seal(org, "42", key)
	if bytes.Equal(again, sealed) {
		t.Fatal("two seals of the same key are equal: the nonce is not random")
	}
	if got, err := newSealer(t, "the service secret").Open(org, "42", again); err != nil || !bytes.Equal(got, key) {
		t.Fatalf("a sealer of the same secret: Open = %q, %v", got, err)
	}
}

func TestSealDoesNotOpenElsewhere(t *testing.T) {
	s := newSealer(t, "the service secret")
	org := gatehouse.NewID()
	sealed := s.Seal(org, "42", []byte("open-cloud-key"))
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	version := bytes.Clone(sealed)
	version[0] = 2
	for name, open := range map[string]func() ([]byte, error){
		"another organization": func() ([]byte, error) { return s.Open(gatehouse.NewID(), "42", sealed) },
		"another universe":     func() ([]byte, error) { return s.Open(org, "420", sealed) },
		"another secret":       func() ([]byte, error) { return newSealer(t, "another secret").Open(org, "42", sealed) },
		"a flipped bit":        func() ([]byte, error) { return s.Open(org, "42", flipped) },
		"another version":      func() ([]byte, error) { return s.Open(org, "42", version) },
		"a truncated value":    func() ([]byte, error) { return s.Open(org, "42", sealed[:10]) },
		"nothing":              func() ([]byte, error) { return s.Open(org, "42", nil) },
	} {
		if got, err := open(); !errors.Is(err, gatehouse.ErrUnsealable) || got != nil {
			t.Errorf("%s: Open = %q, %v; want ErrUnsealable", name, got, err)
		}
	}
}

func TestSealNeedsASecret(t *testing.T) {
	if _, err := gatehouse.NewSealer(nil); err == nil {
		t.Fatal("NewSealer(nil) succeeded")
	}
}
