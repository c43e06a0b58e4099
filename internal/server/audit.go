package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// auditList is the body of GET /audit-log.
type auditList struct {
	Data       []gatehouse.AuditEntry `json:"data"`
	NextCursor *string                `json:"nextCursor"`
}

// listAuditLog serves GET /api/consumer/v1/audit-log: the key's
// organization's log, newest first. No route changes or deletes an entry.
func (s *server) listAuditLog() http.Handler {
	return listPage(s, s.Service.ReadAuditQuery, s.Service.ListAuditLog,
		func(orgID uuid.UUID, f gatehouse.AuditFilter, page gatehouse.AuditPage) any {
			body := auditList{Data: page.Entries}
			if page.Next != nil {
				c := s.Service.AuditCursor(orgID, f, *page.Next)
				body.NextCursor = &c
			}
			return body
		})
}
