package service

import (
	"context"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ImportDecoder reads the lines of an import into one organization
// ([gatehouse.DecodeImportEvent]) and resolves what they refer to in it:
//   - the access point: by its id when it is one of the organization's
//     (a renamed door keeps its id, so the names of an export are not
//     compared); otherwise by the names a whole event gives, its
//     location's and its own, when exactly one access point of the
//     organization has them;
//   - the requester of a whole event (requestedBy {id, email, name}): by
//     its id when it is a user of the organization, otherwise by its
//     email; one with no email (a user since removed) is left out.
//
// A line that names neither is rejected. An export of one organization
// is thereby imported into another (another database, a fresh
// organization set up with the same names) unchanged. One goroutine uses
// an ImportDecoder at a time.
type ImportDecoder struct {
	s            *Service
	org          uuid.UUID
	accessPoints map[uuid.UUID]bool
	byName       map[[2]string][]uuid.UUID // location name, access point name
	users        map[uuid.UUID]bool
	byEmail      map[string]uuid.UUID // lowercase
}

// NewImportDecoder reads the organization's access points and users for
// the lines of an import.
func (s *Service) NewImportDecoder(ctx context.Context, orgID uuid.UUID) (*ImportDecoder, error) {
	if _, err := s.FindOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	d := &ImportDecoder{s: s, org: orgID, accessPoints: map[uuid.UUID]bool{}, byName: map[[2]string][]uuid.UUID{},
		users: map[uuid.UUID]bool{}, byEmail: map[string]uuid.UUID{}}
	locs, err := s.AllLocations(ctx, orgID, true)
	if err != nil {
		return nil, err
	}
	for _, l := range locs {
		for _, ap := range l.AccessPoints {
			d.accessPoints[ap.ID] = true
			k := [2]string{l.Name, ap.Name}
			d.byName[k] = append(d.byName[k], ap.ID)
		}
	}
	users, err := s.store.ListUsers(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		d.users[u.ID] = true
		d.byEmail[strings.ToLower(u.Email)] = u.ID
	}
	return d, nil
}

// Decode reads one line on the service's clock and resolves its access
// point and requester in the organization.
func (d *ImportDecoder) Decode(line []byte) (gatehouse.NewEvent, error) {
	ev, names, err := gatehouse.DecodeImportEvent(d.org, line, d.s.now())
	if err != nil {
		return ev, err
	}
	var issues gatehouse.ValidationError
	if !d.accessPoints[ev.AccessPointID] {
		d.resolveAccessPoint(&issues, &ev, names)
	}
	switch {
	case ev.RequestedBy == nil || d.users[*ev.RequestedBy]:
	case names.RequesterEmail != "":
		if id, ok := d.byEmail[strings.ToLower(names.RequesterEmail)]; ok {
			ev.RequestedBy = &id
		} else {
			issues.Add("requestedBy", "is not a user of this organization, and none has the email %q", names.RequesterEmail)
		}
	case names.Requester:
		// An export names a removed user by id alone: the event keeps
		// no requester, as it shows none where it came from.
		ev.RequestedBy = nil
	}
	return ev, issues.Err()
}

// resolveAccessPoint finds the access point of a line whose id is not one
// of the organization's by the names the line gives.
func (d *ImportDecoder) resolveAccessPoint(issues *gatehouse.ValidationError, ev *gatehouse.NewEvent, names gatehouse.ImportNames) {
	if names.AccessPoint == "" || names.Location == "" {
		field := "accessPointId"
		if names.AccessPoint != "" || names.Location != "" {
			field = "accessPoint"
		}
		issues.Add(field, "is not an access point of this organization")
		return
	}
	switch ids := d.byName[[2]string{names.Location, names.AccessPoint}]; len(ids) {
	case 1:
		ev.AccessPointID = ids[0]
	case 0:
		issues.Add("accessPoint", "is not an access point of this organization, and none is named %q at a location named %q", names.AccessPoint, names.Location)
	default:
		issues.Add("accessPoint", "is not an access point of this organization, and %d are named %q at a location named %q", len(ids), names.AccessPoint, names.Location)
	}
}
