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

// RoleOfNewUser is u with the role and reach it is stored with, given the
// number of users the organization has already: the first user is an
// admin of the whole organization whatever was asked, so that every
// organization can manage itself.
func RoleOfNewUser(u gatehouse.User, others int) gatehouse.User {
	if others == 0 {
		u.Role, u.Reach = gatehouse.RoleAdmin, nil
	}
	return u
}

// KeepAnAdmin returns ErrConflict when removing, demoting or limiting
// admin would leave its organization with no admin of all of it: others
// is the number of the organization's other such admins
// ([gatehouse.User.WholeAdmin]), counted in the transaction of the
// change.
func KeepAnAdmin(admin gatehouse.User, others int) error {
	if others == 0 {
		return fmt.Errorf("%s is the organization's last admin of every location; make another user admin first: %w", admin.Email, gatehouse.ErrConflict)
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

// RoleChanged is what setting a user's role and reach makes.
type RoleChanged struct {
	// User is the user as changed, and Entry its audit entry, appended
	// only when Changed.
	User    gatehouse.User
	Entry   gatehouse.AuditEntry
	Changed bool
	// Lowered: the change lowers what the user may do, which ends their
	// sessions.
	Lowered bool
	// LeavesWhole: the user stops being an admin of the whole
	// organization (KeepAnAdmin).
	LeavesWhole bool
}

// RoleChange is what setting u's role and reach makes, with e.
func RoleChange(e gatehouse.AuditEntry, u gatehouse.User, role gatehouse.Role, reach gatehouse.Reach) RoleChanged {
	was := u
	u.Role, u.Reach = role, reach
	return RoleChanged{User: u,
		Entry:   UserEntry(e, u).Change("role", string(was.Role), string(role)).Change("locations", was.Reach.String(), reach.String()),
		Changed: was.Role != role || was.Reach.String() != reach.String(),
		Lowered: role.Below(was.Role) || !reach.Covers(was.Reach), LeavesWhole: was.WholeAdmin() && !u.WholeAdmin()}
}
