package gatehouse

import (
	"context"
	"errors"
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
}

// CreateUser adds a dashboard user to the organization, hashing the
// password. A *ValidationError keyed "email", "name" or "password";
// ErrConflict when the email is taken; ErrNotFound for an unknown
// organization.
func (s *Service) CreateUser(ctx context.Context, nu NewUser) (User, error) {
	var errs ValidationError
	checkPassword(&errs, nu.Password)
	u, err := CheckUser(User{OrgID: nu.OrgID, Email: nu.Email, Name: nu.Name, PasswordHash: "unset"})
	errs.Merge("", asValidation(err))
	if err := errs.Err(); err != nil {
		return User{}, err
	}
	if u.PasswordHash, err = s.hasher.Hash(nu.Password); err != nil {
		return User{}, err
	}
	return s.store.CreateUser(ctx, u)
}

// SetPassword replaces the password of the user with that email and ends
// the user's sessions. A *ValidationError keyed "password"; ErrNotFound
// when there is no such user.
func (s *Service) SetPassword(ctx context.Context, email, password string) (User, error) {
	var errs ValidationError
	if checkPassword(&errs, password); errs.Err() != nil {
		return User{}, errs.Err()
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return User{}, err
	}
	return s.store.SetUserPassword(ctx, email, hash)
}

// SetUpUser gives the user with that email a new password, adding the
// user to the organization when there is none: the demo's account.
// Errors as CreateUser's.
func (s *Service) SetUpUser(ctx context.Context, nu NewUser) (User, error) {
	u, err := s.SetPassword(ctx, nu.Email, nu.Password)
	if errors.Is(err, ErrNotFound) {
		return s.CreateUser(ctx, nu)
	}
	return u, err
}

func checkPassword(errs *ValidationError, password string) {
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

// SetTimeZone remembers the zone the organization's user reads times in
// (see CheckTimeZone). A *ValidationError keyed "timeZone"; ErrNotFound
// when the organization has no such user.
func (s *Service) SetTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error {
	if err := CheckTimeZone(zone); err != nil {
		return err
	}
	return s.store.SetUserTimeZone(ctx, orgID, userID, zone)
}
