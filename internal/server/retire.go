package server

import (
	"context"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// The writes of locations and access points the API takes (scope
// locations:write): archive, restore and delete (docs/api.md, "Archive
// and delete"). Another organization's id is a 404, as an unknown one.

// archiveLocation serves POST /api/consumer/v1/locations/{id}/archive and
// .../restore (archive false): the location as it is then.
func (s *server) archiveLocation(archive bool) http.Handler {
	change := s.Service.RestoreLocation
	if archive {
		change = s.Service.ArchiveLocation
	}
	return retireHandler(s, func(ctx context.Context, orgID, id uuid.UUID) (any, int, error) {
		l, err := change(ctx, orgID, id)
		return newLocationBody(l), http.StatusOK, err
	})
}

// deleteLocation serves DELETE /api/consumer/v1/locations/{id}.
func (s *server) deleteLocation() http.Handler {
	return retireHandler(s, func(ctx context.Context, orgID, id uuid.UUID) (any, int, error) {
		return nil, http.StatusNoContent, s.Service.DeleteLocation(ctx, orgID, id)
	})
}

// archiveAccessPoint serves POST /api/consumer/v1/access-points/{id}/archive
// and .../restore (archive false): the access point as it is then.
func (s *server) archiveAccessPoint(archive bool) http.Handler {
	change := s.Service.RestoreAccessPoint
	if archive {
		change = s.Service.ArchiveAccessPoint
	}
	return retireHandler(s, func(ctx context.Context, orgID, id uuid.UUID) (any, int, error) {
		ap, err := change(ctx, orgID, id)
		return ap, http.StatusOK, err
	})
}

// deleteAccessPoint serves DELETE /api/consumer/v1/access-points/{id}.
func (s *server) deleteAccessPoint() http.Handler {
	return retireHandler(s, func(ctx context.Context, orgID, id uuid.UUID) (any, int, error) {
		return nil, http.StatusNoContent, s.Service.DeleteAccessPoint(ctx, orgID, id)
	})
}

// retireHandler reads the path's {id}, which must be the only input (no
// query string), runs do in the key's organization and writes its answer:
// the body with status, or nothing for a 204.
func retireHandler(s *server, do func(ctx context.Context, orgID, id uuid.UUID) (any, int, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err == nil {
			err = noQuery(r)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body, status, err := do(r.Context(), apiKey(r.Context()).OrgID, id)
		switch {
		case err != nil:
			s.writeError(w, r, err)
		case status == http.StatusNoContent:
			w.WriteHeader(status)
		default:
			writeJSON(w, status, body)
		}
	})
}

// noQuery refuses a query string: these routes take none.
func noQuery(r *http.Request) error {
	v, err := parseQuery(r)
	if err != nil {
		return err
	}
	var errs gatehouse.ValidationError
	for name := range v {
		errs.Add(gatehouse.Redact(name), "is not a parameter of this endpoint (it takes none)")
	}
	return errs.Err()
}
