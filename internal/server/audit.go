package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// auditList is the body of GET /audit-log.
type auditList struct {
	Data       []gatehouse.AuditEntry `json:"data"`
	NextCursor *string                `json:"nextCursor"`
}

// listAuditLog serves GET /api/consumer/v1/audit-log: the key's
// organization's log, newest first. No route changes or deletes an entry.
func (s *server) listAuditLog() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		v, err := parseQuery(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		f, err := s.Service.ReadAuditQuery(orgID, v)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page, err := s.Service.ListAuditLog(r.Context(), orgID, f)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body := auditList{Data: page.Entries}
		if page.Next != nil {
			c := s.Service.AuditCursor(orgID, f, *page.Next)
			body.NextCursor = &c
		}
		writeJSON(w, http.StatusOK, body)
	})
}
