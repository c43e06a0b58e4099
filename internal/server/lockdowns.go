package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// maxLockdownBody bounds the body of POST /lockdowns: a few hundred bytes.
const maxLockdownBody = 16 << 10

// lockdownFields are the fields of a lockdown request's body.
var lockdownFields = []string{"scope", "universeId", "locationId", "reason", "until"}

// lockdownList is the body of GET /lockdowns.
type lockdownList struct {
	Data       []gatehouse.Lockdown `json:"data"`
	NextCursor *string              `json:"nextCursor"`
}

// startLockdown serves POST /api/consumer/v1/lockdowns.
func (s *server) startLockdown() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req gatehouse.LockdownRequest
		data, err := readJSON(w, r, maxLockdownBody)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if _, err := gatehouse.DecodeFields(data, &req, lockdownFields); err != nil {
			s.writeError(w, r, err)
			return
		}
		l, err := s.Service.StartLockdown(r.Context(), apiKey(r.Context()).OrgID, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/consumer/v1/lockdowns/"+l.ID.String())
		writeJSON(w, http.StatusCreated, l)
	})
}

// listLockdowns serves GET /api/consumer/v1/lockdowns: newest first, in
// keyset pages, ?active=true for those running.
func (s *server) listLockdowns() http.Handler {
	return listPage(s, s.Service.ReadLockdownQuery, s.Service.ListLockdowns,
		func(orgID uuid.UUID, f gatehouse.LockdownFilter, page gatehouse.LockdownPage) any {
			body := lockdownList{Data: page.Lockdowns}
			if body.Data == nil {
				body.Data = []gatehouse.Lockdown{}
			}
			if page.Next != nil {
				c := s.Service.LockdownCursor(orgID, f, *page.Next)
				body.NextCursor = &c
			}
			return body
		})
}

// showLockdown serves GET /api/consumer/v1/lockdowns/{id}.
func (s *server) showLockdown() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		l, err := s.Service.FindLockdown(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
}

// releaseLockdown serves POST /api/consumer/v1/lockdowns/{id}/release:
// 200 with the lockdown, released now or before.
func (s *server) releaseLockdown() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		l, err := s.Service.ReleaseLockdown(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
}

// pathID reads the {id} of a path: a lockdown's, a location's.
func pathID(r *http.Request) (uuid.UUID, error) {
	id, err := gatehouse.ParseUUID(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
	}
	return id, nil
}
