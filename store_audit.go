package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// AuditStore is the part of [Store] that reads the audit log, and
// appends the entries that record no change.
type AuditStore interface {
	// AppendAudit appends an entry that records no change of its own: a
	// failed sign-in. e.OrgID may be uuid.Nil (an email no organization
	// knows). [ErrInvalid] without an action.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// ListAuditEntries returns a page of an organization's audit log
	// matching f, newest first, then by id descending. f.Limit must be set.
	ListAuditEntries(ctx context.Context, orgID uuid.UUID, f AuditFilter) (AuditPage, error)
}
