package gatehouse

import (
	"context"
	"net/url"

	"github.com/google/uuid"
)

// entry is the audit entry of action by the actor of ctx on a record of
// targetType, in the organization orgID: the store completes the record
// (AuditEntry.Of) in the transaction of the change.
func (s *Service) entry(ctx context.Context, orgID uuid.UUID, action AuditAction, targetType string) AuditEntry {
	a := ActorFrom(ctx)
	e := AuditEntry{ID: NewID(), OrgID: orgID, At: s.Now(), Action: action,
		Actor:  AuditActor{Type: a.Type, Label: a.Label},
		Target: AuditTarget{Type: targetType}, Changes: map[string]AuditChange{},
		RequestID: a.RequestID, ClientAddress: a.ClientAddress}
	if a.Type != ActorSystem && a.ID != uuid.Nil {
		id := a.ID
		e.Actor.ID = &id
	}
	if a.Type == ActorSystem {
		e.Actor.Label = ""
	}
	return e
}

// ReadAuditQuery parses the query of an audit log list and opens its
// cursor for orgID (see the package function ReadAuditQuery).
func (s *Service) ReadAuditQuery(orgID uuid.UUID, v url.Values) (AuditFilter, error) {
	return ReadAuditQuery(v, s.cursors, orgID)
}

// ListAuditLog returns a page of the organization's audit log matching
// f, newest first. f.Limit must be between 1 and MaxLimit (a
// *ValidationError keyed "limit"). Reading the log needs an admin among
// dashboard users (ErrForbidden) and the audit:read scope for keys,
// which the API checks.
func (s *Service) ListAuditLog(ctx context.Context, orgID uuid.UUID, f AuditFilter) (AuditPage, error) {
	if err := Authorize(ctx, orgID, PermReadAudit); err != nil {
		return AuditPage{}, err
	}
	if f.Limit < 1 || f.Limit > MaxLimit {
		return AuditPage{}, Invalid("limit", "must be between 1 and %d", MaxLimit)
	}
	return s.store.ListAuditEntries(ctx, orgID, f)
}

// AuditCursor signs the position next of the list of orgID's audit
// entries matching f: the nextCursor of a page.
func (s *Service) AuditCursor(orgID uuid.UUID, f AuditFilter, next AuditKey) string {
	return s.cursors.Sign(CursorAudit, f.Digest(orgID), EncodeAuditKey(next))
}
