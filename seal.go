package gatehouse

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"

	"github.com/google/uuid"
)

// sealPurpose labels the key derived from the service secret for sealing
// messaging keys: another use of the secret (cursors, sessions) derives
// another key, so no value made for one opens as another.
const sealPurpose = "gatehouse messaging key seal v1"

// sealVersion is the first byte of a sealed value: a later format (or a
// rotated purpose) is told apart before anything is tried.
const sealVersion byte = 1

// ErrUnsealable: a sealed value does not open under this secret for this
// organization and universe (another secret, a value moved between rows,
// or a damaged one).
var ErrUnsealable = errors.New("the sealed value does not open")

// Sealer seals and opens the secrets Gatehouse stores for an
// organization's universe (an Open Cloud API key) under a key derived from
// the service secret: AES-256-GCM with a random nonce, and the
// organization and universe as additional data, so a sealed value copied
// to another organization's or universe's row does not open there.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer derives the sealing key from secret with HKDF-SHA256 and the
// purpose label. An empty secret is an error: nothing would be sealed.
func NewSealer(secret []byte) (*Sealer, error) {
	if len(secret) == 0 {
		return nil, errors.New("sealing needs the service secret")
	}
	aead, err := derivedAEAD(secret, sealPurpose)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// derivedAEAD is AES-256-GCM under the key HKDF-SHA256 derives from the
// service secret for purpose: each use of the secret has its own label,
// so nothing sealed for one opens for another.
func derivedAEAD(secret []byte, purpose string) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, purpose, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal returns plain sealed for the organization's universe: the
// version byte, the nonce, then the ciphertext with its tag.
func (s *Sealer) Seal(orgID uuid.UUID, universeID string, plain []byte) []byte {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	out[0] = sealVersion
	rand.Read(out[1:]) // never fails (crypto/rand)
	return s.aead.Seal(out, out[1:], plain, sealAD(orgID, universeID))
}

// Open returns what Seal sealed for the same organization and universe,
// or ErrUnsealable.
func (s *Sealer) Open(orgID uuid.UUID, universeID string, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, ErrUnsealable
	}
	plain, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], sealAD(orgID, universeID))
	if err != nil {
		return nil, ErrUnsealable
	}
	return plain, nil
}

// The labels the secrets Gatehouse seals are bound to, beside their
// organization (the [Sealer]'s universe slot, which a messaging key fills
// with its universe id): a sealed value opens only in its own row and for
// its own use. Whoever opens or seals one again (the service, a move of
// an organization to another database) names it by these.
const (
	ErasureTokenSealLabel  = "erasure webhook token"  // the right-to-erasure webhook's token
	ErasureSecretSealLabel = "erasure webhook secret" // and its signing secret
)

// WebhookSealLabel binds a sealed secret to its webhook endpoint: no
// universe id can equal it.
func WebhookSealLabel(id uuid.UUID) string { return "webhook:" + id.String() }

// AlertRuleSealLabel binds a sealed secret to its alert rule.
func AlertRuleSealLabel(id uuid.UUID) string { return "alert-rule:" + id.String() }

// sealAD binds a sealed value to its row: the version, the organization
// id (fixed length, so the concatenation is unambiguous) and the universe.
func sealAD(orgID uuid.UUID, universeID string) []byte {
	ad := make([]byte, 0, 1+len(orgID)+len(universeID))
	ad = append(ad, sealVersion)
	ad = append(ad, orgID[:]...)
	return append(ad, universeID...)
}
