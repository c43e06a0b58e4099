package server

import (
	"context"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// maxGrantBody bounds the body of POST /grants: a hundred access point
// ids and a note fit in well under it.
const maxGrantBody = 16 << 10

// grantFields are the fields of a grant request's body.
var grantFields = []string{"platformUserId", "accessPointIds", "locationId", "from", "until", "note", "source"}

// grantSourceFields are the fields of a grant request's source.
var grantSourceFields = []string{"type", "receiptId"}

// createGrant serves POST /api/consumer/v1/grants: 201 with a new grant,
// 200 with the grant already made for the same source.receiptId.
func (s *server) createGrant() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decodeGrant(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		g, created, err := s.Service.CreateGrant(r.Context(), apiKey(r.Context()).OrgID, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/consumer/v1/grants/"+g.ID.String())
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		writeJSON(w, status, g)
	})
}

// decodeGrant reads a grant request as strictly as a command's, its
// source included: an unknown, repeated or mistyped field is reported by
// its path ("source.kind").
func decodeGrant(w http.ResponseWriter, r *http.Request) (gatehouse.GrantRequest, error) {
	var req gatehouse.GrantRequest
	data, err := readJSON(w, r, maxGrantBody)
	if err != nil {
		return req, err
	}
	var errs gatehouse.ValidationError
	obj, err := gatehouse.DecodeFields(data, &req, grantFields)
	errs.Absorb("", err)
	if src := obj["source"]; len(src) > 0 && string(src) != "null" && !errs.Reported("source") {
		var s gatehouse.GrantSource
		_, err := gatehouse.DecodeFields(src, &s, grantSourceFields)
		errs.Absorb("source", err)
	}
	return req, errs.Err()
}

// listGrants serves GET /api/consumer/v1/grants: newest first, in keyset
// pages as GET /commands.
func (s *server) listGrants() http.Handler {
	return listPage(s, s.Service.ReadGrantQuery, s.Service.ListGrants,
		func(orgID uuid.UUID, f gatehouse.GrantFilter, page gatehouse.GrantPage) any {
			return newPageBody(page.Grants, page.Next, func(k gatehouse.GrantKey) string {
				return s.Service.GrantCursor(orgID, f, k)
			})
		})
}

// showGrant serves GET /api/consumer/v1/grants/{id}.
func (s *server) showGrant() http.Handler {
	return grantHandler(s, s.Service.FindGrant)
}

// revokeGrant serves DELETE /api/consumer/v1/grants/{id}: 200 with the
// grant and its revokedAt, also when it was revoked already.
func (s *server) revokeGrant() http.Handler {
	return grantHandler(s, s.Service.RevokeGrant)
}

// grantHandler serves a route of one grant, {id}, with do.
func grantHandler(s *server, do func(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Grant, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := gatehouse.ParseUUID(r.PathValue("id"))
		if err != nil {
			s.writeError(w, r, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"))
			return
		}
		g, err := do(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, g)
	})
}
