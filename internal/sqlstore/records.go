package sqlstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// The New functions check a record's fields and give it what every new
// record gets, an id and a creation time (to the millisecond that both
// stores keep), so that both stores store the same thing.

// NewOrganization is the organization to store for name, created at now.
//
// Errors: a gatehouse.ValidationError (ErrInvalid) for a bad name.
func NewOrganization(name string, now time.Time) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	return gatehouse.Organization{ID: gatehouse.NewID(), Name: name, CreatedAt: gatehouse.Time(gatehouse.Truncate(now)),
		RetentionDays: gatehouse.DefaultRetentionDays}, nil
}

// NewLocation is the location to store for name in the organization,
// created at now, with no access points yet.
//
// Errors: a gatehouse.ValidationError (ErrInvalid) for a bad name.
func NewLocation(orgID uuid.UUID, name string, now time.Time) (gatehouse.Location, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Location{}, err
	}
	return gatehouse.Location{ID: gatehouse.NewID(), OrgID: orgID, Name: name,
		CreatedAt: gatehouse.Time(gatehouse.Truncate(now)), AccessPoints: []gatehouse.AccessPoint{}}, nil
}

// NewAccessPoint is the access point to store for name under the
// location, created at now.
//
// Errors: a gatehouse.ValidationError (ErrInvalid) for a bad name.
func NewAccessPoint(locationID uuid.UUID, name string, now time.Time) (gatehouse.AccessPoint, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.AccessPoint{}, err
	}
	return gatehouse.AccessPoint{ID: gatehouse.NewID(), LocationID: locationID, Name: name,
		CreatedAt: gatehouse.Time(gatehouse.Truncate(now))}, nil
}

// NewUser is the dashboard user to store for u (email lower-cased, see
// gatehouse.CheckUser), created at now.
//
// Errors: a gatehouse.ValidationError (ErrInvalid) for bad fields, with u
// as checked.
func NewUser(u gatehouse.User, now time.Time) (gatehouse.User, error) {
	u, err := gatehouse.CheckUser(u)
	if err != nil {
		return u, err
	}
	u.ID, u.CreatedAt = gatehouse.NewID(), gatehouse.Truncate(now)
	return u, nil
}

// NormalEmail is an email as the stores keep and look it up: trimmed and
// lower-cased.
func NormalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// RoleOfNewUser is the role a new user is stored with, given the number of
// users the organization has already: the first user is an admin whatever
// was asked, so that every organization can manage itself.
func RoleOfNewUser(asked gatehouse.Role, others int) gatehouse.Role {
	if others == 0 {
		return gatehouse.RoleAdmin
	}
	return asked
}

// KeepAnAdmin returns ErrConflict when removing or demoting admin would
// leave its organization with no admin: others is the number of the
// organization's other admins, counted in the transaction of the change.
func KeepAnAdmin(admin gatehouse.User, others int) error {
	if others == 0 {
		return fmt.Errorf("%s is the organization's last admin; make another user admin first: %w", admin.Email, gatehouse.ErrConflict)
	}
	return nil
}

// LocationPage finishes a page of an organization's locations, read one
// beyond limit: it trims the page, sets each location's organization, and
// returns the key of the next page (nil on the last).
func LocationPage(locs []gatehouse.Location, limit int, orgID uuid.UUID) ([]gatehouse.Location, *gatehouse.LocationKey) {
	locs, last := TrimPage(locs, limit)
	for i := range locs {
		locs[i].OrgID = orgID
	}
	if last == nil {
		return locs, nil
	}
	return locs, &gatehouse.LocationKey{Name: last.Name, ID: last.ID}
}

// AttachAccessPoints appends each access point, in the order given, to
// its location among locs.
func AttachAccessPoints(locs []gatehouse.Location, aps []gatehouse.AccessPoint) {
	index := make(map[uuid.UUID]int, len(locs))
	for i, l := range locs {
		index[l.ID] = i
	}
	for _, ap := range aps {
		i := index[ap.LocationID]
		locs[i].AccessPoints = append(locs[i].AccessPoints, ap)
	}
}

// RetentionEntry is e recording an organization's retention changed from
// old days to o's.
func RetentionEntry(e gatehouse.AuditEntry, o gatehouse.Organization, old int) gatehouse.AuditEntry {
	return e.Of(o.ID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: o.ID, Name: o.Name}).
		Change("retentionDays", strconv.Itoa(old), strconv.Itoa(o.RetentionDays))
}

// OptionalHash is hash as a statement's argument: nil (SQL NULL) for the
// zero hash, which matches any.
func OptionalHash(hash [32]byte) []byte {
	if hash == ([32]byte{}) {
		return nil
	}
	return hash[:]
}

// ProofOfUse is how the use of an invitation proves its user: through
// its link (a hash), or through the OpenID provider (the zero hash).
func ProofOfUse(hash [32]byte) gatehouse.Proof {
	if hash == ([32]byte{}) {
		return gatehouse.ProvenByProvider
	}
	return gatehouse.ProvenByLink
}
