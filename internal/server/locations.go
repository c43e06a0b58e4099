package server

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// locationList is the body of GET /locations.
type locationList struct {
	Data       []locationBody `json:"data"`
	NextCursor *string        `json:"nextCursor"`
}

type locationBody struct {
	ID           uuid.UUID        `json:"id"`
	Name         string           `json:"name"`
	UniverseID   *string          `json:"universeId"`
	CreatedAt    gatehouse.Time   `json:"createdAt"`
	ArchivedAt   *gatehouse.Time  `json:"archivedAt"`
	AccessPoints []accessPointRef `json:"accessPoints"`
}

// accessPointRef is an access point as a location lists it.
type accessPointRef struct {
	ID         uuid.UUID       `json:"id"`
	Name       string          `json:"name"`
	ArchivedAt *gatehouse.Time `json:"archivedAt"`
}

// newLocationBody is l as the API shows it.
func newLocationBody(l gatehouse.Location) locationBody {
	aps := make([]accessPointRef, len(l.AccessPoints))
	for j, ap := range l.AccessPoints {
		aps[j] = accessPointRef{ID: ap.ID, Name: ap.Name, ArchivedAt: ap.ArchivedAt}
	}
	return locationBody{ID: l.ID, Name: l.Name, UniverseID: l.UniverseID, CreatedAt: l.CreatedAt, ArchivedAt: l.ArchivedAt, AccessPoints: aps}
}

var locationParams = []string{"limit", "cursor", "archived"}

// listLocations serves GET /api/consumer/v1/locations.
func (s *server) listLocations() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		q, err := s.locationQuery(r, orgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		locs, next, err := s.Service.ListLocations(r.Context(), orgID, q.limit, q.after, q.archived)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body := locationList{Data: make([]locationBody, len(locs))}
		for i, l := range locs {
			body.Data[i] = newLocationBody(l)
		}
		if next != nil {
			c := s.Service.LocationCursor(orgID, *next, q.archived)
			body.NextCursor = &c
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// locationQuery is what GET /locations reads from its query string.
type locationQuery struct {
	limit int
	after *gatehouse.LocationKey
	// archived: archived locations and access points are listed too.
	archived bool
}

func (s *server) locationQuery(r *http.Request, orgID uuid.UUID) (locationQuery, error) {
	v, err := parseQuery(r)
	if err != nil {
		return locationQuery{}, err
	}
	var errs gatehouse.ValidationError
	for name := range v {
		if !slices.Contains(locationParams, name) {
			errs.Add(gatehouse.Redact(name), "is not a parameter of this endpoint (known: %s)", strings.Join(locationParams, ", "))
		}
	}
	var q locationQuery
	q.limit, err = gatehouse.ParseLimit(v)
	if ve := (*gatehouse.ValidationError)(nil); err != nil && errors.As(err, &ve) {
		errs.Merge("", ve)
	}
	switch archived := v["archived"]; {
	case len(archived) > 1:
		errs.Add("archived", "must be given at most once")
	case len(archived) == 1 && archived[0] == "true":
		q.archived = true
	case len(archived) == 1 && archived[0] != "false":
		errs.Add("archived", "must be true or false")
	}
	switch cursors := slices.DeleteFunc(slices.Clone(v["cursor"]), func(s string) bool { return s == "" }); {
	case len(cursors) > 1:
		errs.Add("cursor", "must be given at most once")
	case len(cursors) == 1:
		k, err := s.Service.OpenLocationCursor(orgID, cursors[0], q.archived)
		q.after = &k
		if err != nil {
			errs.Add("cursor", "%s", err.Error())
		}
	}
	return q, errs.Err()
}

// locationLive serves GET /api/consumer/v1/locations/{id}/live: the
// location's access points as they stand now and its universe's live
// game servers.
func (s *server) locationLive() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		live, err := s.Service.LocationLive(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, live)
	})
}
