package server

import (
	"context"
	"net/http"
	"net/url"

	"github.com/google/uuid"
)

// listPage serves a keyset-paged list of the key's organization (GET
// /commands, GET /audit-log): it reads the query with read, lists the page
// with list, and writes as JSON the body that body makes of it. Every
// error is written as the API's problem response.
func listPage[F, P any](s *server,
	read func(orgID uuid.UUID, v url.Values) (F, error),
	list func(ctx context.Context, orgID uuid.UUID, f F) (P, error),
	body func(orgID uuid.UUID, f F, page P) any,
) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		v, err := parseQuery(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		f, err := read(orgID, v)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page, err := list(r.Context(), orgID, f)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, body(orgID, f, page))
	})
}
