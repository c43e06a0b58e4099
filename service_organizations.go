package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// CreateOrganization creates an organization. A *ValidationError keyed
// "name" for a bad name.
func (s *Service) CreateOrganization(ctx context.Context, name string) (Organization, error) {
	name, err := CheckName("name", name)
	if err != nil {
		return Organization{}, err
	}
	return s.store.CreateOrganization(ctx, s.entry(ctx, uuid.Nil, AuditOrganizationCreated, TargetOrganization).Change("name", "", name), name)
}

// ListOrganizations returns every organization, oldest first. Only the
// operator's CLI asks it.
func (s *Service) ListOrganizations(ctx context.Context) ([]Organization, error) {
	return s.store.ListOrganizations(ctx)
}

// FindOrganization returns one organization, or ErrNotFound.
func (s *Service) FindOrganization(ctx context.Context, id uuid.UUID) (Organization, error) {
	return s.store.FindOrganization(ctx, id)
}

// RenameOrganization renames an organization. A *ValidationError keyed
// "name" for a bad name; ErrNotFound for an unknown organization.
func (s *Service) RenameOrganization(ctx context.Context, id uuid.UUID, name string) (Organization, error) {
	name, err := CheckName("name", name)
	if err != nil {
		return Organization{}, err
	}
	return s.store.RenameOrganization(ctx, s.entry(ctx, id, AuditOrganizationRenamed, TargetOrganization), id, name)
}
