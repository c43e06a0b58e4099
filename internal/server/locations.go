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
	ID           uuid.UUID            `json:"id"`
	Name         string               `json:"name"`
	UniverseID   *string              `json:"universeId"`
	CreatedAt    gatehouse.Time       `json:"createdAt"`
	AccessPoints []gatehouse.NamedRef `json:"accessPoints"`
}

var locationParams = []string{"limit", "cursor"}

// listLocations serves GET /api/consumer/v1/locations.
func (s *server) listLocations() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		limit, after, err := s.locationQuery(r, orgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		locs, next, err := s.Service.ListLocations(r.Context(), orgID, limit, after)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body := locationList{Data: make([]locationBody, len(locs))}
		for i, l := range locs {
			aps := make([]gatehouse.NamedRef, len(l.AccessPoints))
			for j, ap := range l.AccessPoints {
				aps[j] = gatehouse.NamedRef{ID: ap.ID, Name: ap.Name}
			}
			body.Data[i] = locationBody{ID: l.ID, Name: l.Name, UniverseID: l.UniverseID, CreatedAt: l.CreatedAt, AccessPoints: aps}
		}
		if next != nil {
			c := s.Service.LocationCursor(orgID, *next)
			body.NextCursor = &c
		}
		writeJSON(w, http.StatusOK, body)
	})
}

func (s *server) locationQuery(r *http.Request, orgID uuid.UUID) (int, *gatehouse.LocationKey, error) {
	v, err := parseQuery(r)
	if err != nil {
		return 0, nil, err
	}
	var errs gatehouse.ValidationError
	for name := range v {
		if !slices.Contains(locationParams, name) {
			errs.Add(gatehouse.Redact(name), "is not a parameter of this endpoint (known: %s)", strings.Join(locationParams, ", "))
		}
	}
	limit, err := gatehouse.ParseLimit(v)
	if ve := (*gatehouse.ValidationError)(nil); err != nil && errors.As(err, &ve) {
		errs.Merge("", ve)
	}
	var after *gatehouse.LocationKey
	switch cursors := slices.DeleteFunc(slices.Clone(v["cursor"]), func(s string) bool { return s == "" }); {
	case len(cursors) > 1:
		errs.Add("cursor", "must be given at most once")
	case len(cursors) == 1:
		k, err := s.Service.OpenLocationCursor(orgID, cursors[0])
		after = &k
		if err != nil {
			errs.Add("cursor", "%s", err.Error())
		}
	}
	return limit, after, errs.Err()
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
