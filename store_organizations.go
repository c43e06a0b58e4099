package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// OrganizationStore is the part of [Store] that keeps organizations and
// finds the organization that owns a record.
type OrganizationStore interface {
	// CreateOrganization stores a new organization. [ErrInvalid] for a bad name.
	CreateOrganization(ctx context.Context, e AuditEntry, name string) (Organization, error)
	// ListOrganizations returns every organization, oldest first.
	ListOrganizations(ctx context.Context) ([]Organization, error)
	// FindOrganization returns one organization, or [ErrNotFound].
	FindOrganization(ctx context.Context, id uuid.UUID) (Organization, error)
	// RenameOrganization renames an organization. [ErrNotFound], [ErrInvalid].
	RenameOrganization(ctx context.Context, e AuditEntry, id uuid.UUID, name string) (Organization, error)

	// OrgOfAPIKey, OrgOfLocation and OrgOfAccessPoint return the
	// organization that owns a record, or [ErrNotFound]: the operator's CLI
	// spans organizations and is given a bare record id. No door that acts
	// for an organization's key or user may call them.
	OrgOfAPIKey(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	OrgOfLocation(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	// OrgOfCommand is OrgOfAccessPoint for an issued command.
	OrgOfCommand(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
}
