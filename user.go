package gatehouse

import (
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MinPasswordLen is the shortest dashboard password, in characters.
const MinPasswordLen = 12

// NewUser is what a door asks for when it adds a dashboard user.
type NewUser struct {
	OrgID    uuid.UUID
	Email    string
	Name     string
	Password string
	// Role defaults to RoleViewer; the first user of an organization is
	// RoleAdmin whatever is asked.
	Role Role
	// Locations limits the role to those locations (empty: the whole
	// organization; see Reach).
	Locations []uuid.UUID
}

// CheckPassword adds to errs what is wrong with a new dashboard password.
func CheckPassword(errs *ValidationError, password string) {
	if utf8.RuneCountInString(password) < MinPasswordLen {
		errs.Add("password", "must have at least %d characters", MinPasswordLen)
	}
}

// CheckTimeZone validates a user's zone: "" (the browser's own), "UTC" or
// an IANA name the Go time package knows. "Local", the server's zone, is
// refused: it means nothing to the person reading. A *ValidationError
// keyed "timeZone".
func CheckTimeZone(zone string) error {
	if zone == "" {
		return nil
	}
	if _, err := time.LoadLocation(zone); err != nil || zone == "Local" || len(zone) > 64 {
		return Invalid("timeZone", "%q is not a time zone; use an IANA name such as Europe/Berlin, or UTC", zone)
	}
	return nil
}
