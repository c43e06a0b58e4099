package service

import (
	"context"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateOrganization creates an organization. A
// [*gatehouse.ValidationError] keyed "name" for a bad name.
func (s *Service) CreateOrganization(ctx context.Context, name string) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	return s.store.CreateOrganization(ctx, s.entry(ctx, uuid.Nil, gatehouse.AuditOrganizationCreated, gatehouse.TargetOrganization).Change("name", "", name), name)
}

// ListOrganizations returns every organization, oldest first. Only the
// operator's CLI asks it.
func (s *Service) ListOrganizations(ctx context.Context) ([]gatehouse.Organization, error) {
	return s.store.ListOrganizations(ctx)
}

// FindOrganization returns one organization, or [gatehouse.ErrNotFound].
func (s *Service) FindOrganization(ctx context.Context, id uuid.UUID) (gatehouse.Organization, error) {
	return s.store.FindOrganization(ctx, id)
}

// RenameOrganization renames an organization. A
// [*gatehouse.ValidationError] keyed "name" for a bad name;
// [gatehouse.ErrNotFound] for an unknown organization.
func (s *Service) RenameOrganization(ctx context.Context, id uuid.UUID, name string) (gatehouse.Organization, error) {
	name, err := gatehouse.CheckName("name", name)
	if err != nil {
		return gatehouse.Organization{}, err
	}
	return s.store.RenameOrganization(ctx, s.entry(ctx, id, gatehouse.AuditOrganizationRenamed, gatehouse.TargetOrganization), id, name)
}
