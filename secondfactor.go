package gatehouse

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"image/png"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"
)

// A dashboard user's second factor is a TOTP authenticator (RFC 6238) as
// every authenticator app speaks it: 30-second steps, 6 digits, SHA-1.
// Beside it, RecoveryCodeCount recovery codes, each good once, for the
// day the phone is lost. docs/security.md, "Two factors".
const (
	TOTPPeriod = 30 * time.Second
	// TOTPSkew is how many steps either side of the server's clock a code
	// may be from: a phone a few seconds off, a code typed as it turned.
	TOTPSkew = 1
	// RecoveryCodeCount is how many recovery codes an enrolment gives.
	RecoveryCodeCount = 10
	// EnrolmentLifetime is how long an enrolment begun may take to
	// finish with a code from the new secret.
	EnrolmentLifetime = 10 * time.Minute
	// totpIssuer names Gatehouse in the authenticator app.
	totpIssuer = "Gatehouse"
)

// SecondFactor is a user's enrolled second factor as the store keeps it.
type SecondFactor struct {
	// Sealed is the TOTP secret sealed with the service's [Sealer] for
	// the user's organization and SecondFactorSealLabel(user id).
	Sealed []byte
	// LastStep is the last time step whose code signed in: a code is good
	// once, and an older step is never good again.
	LastStep   int64
	EnrolledAt time.Time
	// RecoveryCodes are the hashes ([RecoveryHash]) of the
	// recovery codes, written by an enrolment; a read gives only
	// RecoveryLeft, the count of those not used.
	RecoveryCodes [][32]byte
	RecoveryLeft  int
}

// SecondFactorSealLabel binds a sealed TOTP secret to its user.
func SecondFactorSealLabel(userID uuid.UUID) string { return "totp:" + userID.String() }

// EnrolmentSealLabel binds the secret of an enrolment begun, not yet
// confirmed, to its user: it opens as nothing else.
func EnrolmentSealLabel(userID uuid.UUID) string { return "totp-enrolment:" + userID.String() }

// TOTPKey is a new TOTP secret for a user to enrol.
type TOTPKey struct {
	// Secret is the base32 secret, what an app takes typed in.
	Secret string
	// URI is the otpauth:// URI the QR code holds.
	URI string
	// QR is the QR code of URI, a PNG.
	QR []byte
}

// NewTOTPKey returns the key of secret (base32), or of a new random
// secret when it is "", for the user with that email.
func NewTOTPKey(email, secret string) (TOTPKey, error) {
	opts := totp.GenerateOpts{Issuer: totpIssuer, AccountName: email}
	if secret != "" {
		raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
		if err != nil {
			return TOTPKey{}, err
		}
		opts.Secret = raw
	}
	key, err := totp.Generate(opts)
	if err != nil {
		return TOTPKey{}, err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return TOTPKey{}, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return TOTPKey{}, err
	}
	return TOTPKey{Secret: key.Secret(), URI: key.URL(), QR: b.Bytes()}, nil
}

// TOTPStep returns the time step, within TOTPSkew of now, whose code is
// code for secret, and whether there is one. The codes of every step are
// compared in constant time.
func TOTPStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.Join(strings.Fields(code), "")
	if len(code) != 6 {
		return 0, false
	}
	opts := hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	current := now.Unix() / int64(TOTPPeriod/time.Second)
	var step int64
	found := false
	for s := current - TOTPSkew; s <= current+TOTPSkew; s++ {
		want, err := hotp.GenerateCodeCustom(secret, uint64(s), opts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			step, found = s, true
		}
	}
	return step, found
}

// recoveryEncoding spells recovery codes in Crockford's base32, lower
// case: no i, l, o or u, which pass for digits or for each other.
var recoveryEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// NewRecoveryCodes returns RecoveryCodeCount new recovery codes of 50
// random bits each, spelled "xxxxx-xxxxx".
func NewRecoveryCodes() []string {
	codes := make([]string, RecoveryCodeCount)
	for i := range codes {
		var b [7]byte
		rand.Read(b[:])                                 // never fails (crypto/rand)
		s := recoveryEncoding.EncodeToString(b[:])[:10] // 50 bits
		codes[i] = s[:5] + "-" + s[5:]
	}
	return codes
}

// RecoveryHash is the stored form of a recovery code, given as
// NormalRecoveryCode spells it: its HMAC keyed with the TOTP secret it
// goes with. A copy of the database, where that secret is sealed, cannot
// test guesses against it; a move of the organization to another
// database, which seals the secret again, keeps the codes good.
func RecoveryHash(totpSecret, code string) [32]byte {
	mac := hmac.New(sha256.New, []byte(totpSecret))
	mac.Write([]byte("gatehouse recovery code\x00"))
	mac.Write([]byte(code))
	return [32]byte(mac.Sum(nil))
}

// NormalRecoveryCode is a recovery code as typed, lower-cased, with its
// dash and spaces taken out and the letters read as digits (i and l as 1,
// o as 0); "" when it cannot be one.
func NormalRecoveryCode(code string) string {
	code = strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ':
			return -1
		case 'i', 'l', 'I', 'L':
			return '1'
		case 'o', 'O':
			return '0'
		}
		return unicode.ToLower(r)
	}, code)
	if len(code) != 10 || strings.Trim(code, "0123456789abcdefghjkmnpqrstvwxyz") != "" {
		return ""
	}
	return code
}
