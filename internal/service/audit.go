package service

import (
	"context"
	"net/url"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// entry is the audit entry of action by the actor of ctx on a record of
// targetType, in the organization orgID: the store completes the record
// ([gatehouse.AuditEntry.Of]) in the transaction of the change.
func (s *Service) entry(ctx context.Context, orgID uuid.UUID, action gatehouse.AuditAction, targetType string) gatehouse.AuditEntry {
	a := gatehouse.ActorFrom(ctx)
	e := gatehouse.AuditEntry{ID: gatehouse.NewID(), OrgID: orgID, At: s.Now(), Action: action,
		Actor:  gatehouse.AuditActor{Type: a.Type, Label: a.Label},
		Target: gatehouse.AuditTarget{Type: targetType}, Changes: map[string]gatehouse.AuditChange{},
		RequestID: a.RequestID, ClientAddress: a.ClientAddress}
	if a.Type != gatehouse.ActorSystem && a.ID != uuid.Nil {
		id := a.ID
		e.Actor.ID = &id
	}
	if a.Type == gatehouse.ActorSystem {
		e.Actor.Label = ""
	}
	return e
}

// ReadAuditQuery parses the query of an audit log list and opens its
// cursor for orgID (see [gatehouse.ReadAuditQuery]).
func (s *Service) ReadAuditQuery(orgID uuid.UUID, v url.Values) (gatehouse.AuditFilter, error) {
	return gatehouse.ReadAuditQuery(v, s.cursors, orgID)
}

// ListAuditLog returns a page of the organization's audit log matching f,
// newest first. f.Limit must be between 1 and [gatehouse.MaxLimit] (a
// [*gatehouse.ValidationError] keyed "limit"). Reading the log needs:
//   - an admin among dashboard users ([gatehouse.ErrForbidden]);
//   - the audit:read scope for keys, which the API checks.
func (s *Service) ListAuditLog(ctx context.Context, orgID uuid.UUID, f gatehouse.AuditFilter) (gatehouse.AuditPage, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermReadAudit); err != nil {
		return gatehouse.AuditPage{}, err
	}
	if f.Limit < 1 || f.Limit > gatehouse.MaxLimit {
		return gatehouse.AuditPage{}, gatehouse.Invalid("limit", "must be between 1 and %d", gatehouse.MaxLimit)
	}
	return s.store.ListAuditEntries(ctx, orgID, f)
}

// AuditCursor signs the position next of the list of orgID's audit
// entries matching f: the nextCursor of a page.
func (s *Service) AuditCursor(orgID uuid.UUID, f gatehouse.AuditFilter, next gatehouse.AuditKey) string {
	return s.cursors.Sign(gatehouse.CursorAudit, f.Digest(orgID), gatehouse.EncodeAuditKey(next))
}
