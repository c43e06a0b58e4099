package gatehouse

import (
	"strings"
	"time"
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
}

// Location groups access points, e.g. a building or a game place.
type Location struct {
	ID           uuid.UUID     `json:"id"`
	OrgID        uuid.UUID     `json:"-"`
	Name         string        `json:"name"`
	CreatedAt    Time          `json:"createdAt"`
	AccessPoints []AccessPoint `json:"accessPoints"`
}

// AccessPoint is a single controlled entry point (a door, a gate, a VIP area)
// that belongs to one location.
type AccessPoint struct {
	ID         uuid.UUID `json:"id"`
	LocationID uuid.UUID `json:"locationId"`
	Name       string    `json:"name"`
	CreatedAt  Time      `json:"createdAt"`
}

// User is a dashboard user of one organization. Events may name the user who
// requested a remote action.
type User struct {
	ID           uuid.UUID
	OrgID        uuid.UUID
	Email        string
	Name         string
	PasswordHash string // argon2id, PHC string format
	CreatedAt    time.Time
}

// CheckName validates a display name: trimmed, non-empty, at most
// MaxNameLen characters and valid UTF-8. It returns the trimmed name.
func CheckName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", Invalid(field, "is required")
	case !utf8.ValidString(name):
		return "", Invalid(field, "must be valid UTF-8")
	case utf8.RuneCountInString(name) > MaxNameLen:
		return "", Invalid(field, "must be at most %d characters", MaxNameLen)
	}
	return name, nil
}
