// Package password hashes dashboard passwords with argon2id and checks
// them in constant time, running at most one hash per core at once (each
// costs 64 MiB), so that a burst of sign-ins cannot exhaust memory.
package password

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/gatehouse/gatehouse"
	"golang.org/x/crypto/argon2"
)

// params are the argon2id costs: 64 MiB, two passes, one lane (the OWASP
// recommendation for argon2id).
var params = struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
}{64 * 1024, 2, 1}

const (
	saltLen = 16
	keyLen  = 32
)

// ErrMalformedHash: the stored hash is not an argon2id PHC string.
var ErrMalformedHash = errors.New("password: malformed hash")

// ErrBusy: no hashing slot came free before the context ended. It is a
// gatehouse.ErrHashBusy, which the service answers as "retry".
var ErrBusy = fmt.Errorf("password: every hashing slot is busy: %w", gatehouse.ErrHashBusy)

// Hasher is Hash and Verify as the service.PasswordHasher the service
// takes.
type Hasher struct{}

// Hash is the package's Hash.
func (Hasher) Hash(password string) (string, error) { return Hash(password) }

// Verify is the package's Verify.
func (Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	return Verify(ctx, password, encoded)
}

// slots bounds the argon2id runs in progress at once to the number of
// cores. Each run holds its memory cost (64 MiB) until it ends, and runs
// beyond the cores would only queue for a CPU while holding theirs, so
// without a bound a few hundred sign-ins at once exhaust memory; with it
// the process needs at most cores × 64 MiB for hashing, however many
// arrive.
var slots = make(chan struct{}, runtime.GOMAXPROCS(0))

// idKey is argon2.IDKey; tests replace it to watch runs.
var idKey = argon2.IDKey

// acquire takes a slot, waiting until ctx ends (ErrBusy).
func acquire(ctx context.Context) error {
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ErrBusy
	}
}

func release() { <-slots }

// Hash returns the PHC string of password:
// $argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>. It waits for a hashing
// slot as long as it takes.
func Hash(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	acquire(context.Background())
	sum := idKey([]byte(password), salt, params.time, params.memory, params.threads, keyLen)
	release()
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version,
		params.memory, params.time, params.threads, b64.EncodeToString(salt), b64.EncodeToString(sum)), nil
}

// Verify reports whether password matches encoded, comparing in constant
// time with the costs recorded in encoded. It waits for a hashing slot
// until ctx ends, then gives up with ErrBusy; ErrMalformedHash for a
// string Hash did not write.
func Verify(ctx context.Context, password, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false, ErrMalformedHash
	}
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil || threads == 0 || time == 0 {
		return false, ErrMalformedHash
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, ErrMalformedHash
	}
	if err := acquire(ctx); err != nil {
		return false, err
	}
	defer release()
	got := idKey([]byte(password), salt, time, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
