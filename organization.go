package gatehouse

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxNameLen bounds the names of organizations, keys, locations, access
// points and users, in characters.
const MaxNameLen = 200

// Organization is a studio: the tenant every other record belongs to.
type Organization struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	CreatedAt Time      `json:"createdAt"`
	// RetentionDays is how long its events are kept, by occurredAt
	// (DefaultRetentionDays unless set).
	RetentionDays int `json:"retentionDays"`
}

// Location groups access points, e.g. a building or a game place.
type Location struct {
	ID    uuid.UUID `json:"id"`
	OrgID uuid.UUID `json:"-"`
	Name  string    `json:"name"`
	// UniverseID is the platform universe the location lives in, if
	// known: its access points' commands go to that universe's servers.
	UniverseID *string `json:"universeId"`
	CreatedAt  Time    `json:"createdAt"`
	// ArchivedAt is when the location was archived (see [Location.Writable]),
	// nil while it is in use.
	ArchivedAt   *Time         `json:"archivedAt"`
	AccessPoints []AccessPoint `json:"accessPoints"`
}

// AccessPoint is a single controlled entry point (a door, a gate, a VIP area)
// that belongs to one location.
type AccessPoint struct {
	ID         uuid.UUID `json:"id"`
	LocationID uuid.UUID `json:"locationId"`
	Name       string    `json:"name"`
	CreatedAt  Time      `json:"createdAt"`
	// ArchivedAt is when the access point was archived (see
	// [AccessPoint.Writable]), nil while it is in use.
	ArchivedAt *Time `json:"archivedAt"`
	// LocationArchived says its location is archived, which archives it
	// too in effect. Set by the reads of one access point (FindAccessPoint),
	// not in the lists of a location's access points.
	LocationArchived bool `json:"-"`
}

// User is a dashboard user of one organization. Events may name the user who
// requested a remote action.
type User struct {
	ID    uuid.UUID
	OrgID uuid.UUID
	Email string
	Name  string
	Role  Role
	// Reach is the locations the role is limited to (nil: the whole
	// organization).
	Reach        Reach
	PasswordHash string // argon2id, PHC string format
	// Proven says the user has proven membership of the organization:
	// set their password through the invitation's link, accepted the
	// invitation while signed in as the same email elsewhere, or was
	// given a password by the operator (gatehouse user create). Until
	// then the user is an invitation and takes no part in sign-in (see
	// service.Service.SignIn).
	Proven bool
	// ProvenAt is when the user was proven (zero while not), and ProvenBy
	// how: a failed sign-in of an email is recorded in the organization of
	// its first proven user, and in those whose user the provider or the
	// operator proved.
	ProvenAt time.Time
	ProvenBy Proof
	// InvitedUntil is when the user's invitation link expires: zero when
	// the user has none (proven, or a link used or never made). Set by
	// the lists of users, not by sign-in's reads.
	InvitedUntil time.Time
	// SecondFactor says the user has enrolled a second factor (TOTP):
	// signing in then asks for its code after the password.
	SecondFactor bool
	// TimeZone is the zone the dashboard shows the user times in: "" for
	// the browser's own, "UTC" or an IANA name (see CheckTimeZone).
	TimeZone  string
	CreatedAt time.Time
}

// CheckName validates a display name: trimmed, non-empty, at most
// MaxNameLen characters, valid UTF-8, and free of control characters and
// invisible direction marks (see unsafeRune), which would reach the
// terminals and pages that show it. It returns the trimmed name, or a
// *ValidationError keyed by field.
func CheckName(field, name string) (string, error) {
	return checkText(field, name, MaxNameLen, "is required")
}

// checkText trims text and checks it is 1 to max characters of valid
// UTF-8 with no unsafe rune; empty says what an empty one is told.
func checkText(field, text string, max int, empty string) (string, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return "", Invalid(field, "%s", empty)
	case !utf8.ValidString(text):
		return "", Invalid(field, "must be valid UTF-8")
	case utf8.RuneCountInString(text) > max:
		return "", Invalid(field, "must be at most %d characters", max)
	case HasUnsafeRune(text):
		return "", Invalid(field, unsafeInText)
	}
	return text, nil
}

// MaxPlayerNameLen bounds a player's display name as a game server
// reports it: the platform's are at most 20 characters.
const MaxPlayerNameLen = 50

// CheckPlayerName validates a player's display name (field names it in
// the error) and returns it trimmed: 1 to [MaxPlayerNameLen] characters
// with no unsafe rune ([HasUnsafeRune]), no invisible formatting rune
// but the zero-width joiners, and at least one that shows: a name of
// fillers alone (U+3164 and its kin, U+2800) would read as no name.
func CheckPlayerName(field, name string) (string, error) {
	name, err := checkText(field, name, MaxPlayerNameLen, "must not be empty (leave it out instead)")
	switch {
	case err != nil:
		return "", err
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.Is(unicode.Cf, r) && r != 0x200c && r != 0x200d }):
		return "", Invalid(field, "must not hold invisible formatting characters")
	case !strings.ContainsFunc(name, shows):
		return "", Invalid(field, "must show at least one letter, digit or sign")
	}
	return name, nil
}

// shows reports whether r prints something: a letter, digit, mark,
// punctuation or symbol that is not one of the blank fillers.
func shows(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800: // Hangul fillers, the blank Braille pattern
		return false
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}

// CheckUser validates a new dashboard user and returns it normalised: the
// email trimmed and lower-cased, the name trimmed. Its *[ValidationError]
// lists every problem.
func CheckUser(u User) (User, error) {
	var errs ValidationError
	u.Email = strings.ToLower(strings.TrimSpace(u.Email))
	if at := strings.IndexByte(u.Email, '@'); at < 1 || at == len(u.Email)-1 || len(u.Email) > 254 || HasUnsafeRune(u.Email) {
		errs.Add("email", "must be an email address")
	}
	switch u.Name = strings.TrimSpace(u.Name); {
	case !utf8.ValidString(u.Name):
		errs.Add("name", "must be valid UTF-8")
	case utf8.RuneCountInString(u.Name) > MaxNameLen:
		errs.Add("name", "must be at most %d characters", MaxNameLen)
	case HasUnsafeRune(u.Name):
		errs.Add("name", unsafeInText)
	}
	if u.PasswordHash == "" && u.Proven { // an invitation sets its password through the link
		errs.Add("password", "is required")
	}
	// No role asked is the least trusted one; the store makes the first
	// user of an organization an admin whatever was asked.
	if u.Role == "" {
		u.Role = RoleViewer
	} else if _, err := ParseRole(string(u.Role)); err != nil {
		errs.Merge("", AsValidation(err))
	}
	return u, errs.Err()
}
