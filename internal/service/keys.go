package service

import (
	"context"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// CreateAPIKey creates a key of the organization and returns it with the
// raw key, which exists nowhere else: the caller shows it once. The
// service sets the id, the creation time, the prefix and the hash.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "name", "scopes" or
//     "expiresAt" (every problem at once);
//   - [gatehouse.ErrNotFound] for an unknown organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) CreateAPIKey(ctx context.Context, nk gatehouse.NewAPIKey) (gatehouse.APIKey, string, error) {
	if err := gatehouse.Authorize(ctx, nk.OrgID, gatehouse.PermManageKeys); err != nil {
		return gatehouse.APIKey{}, "", err
	}
	name, scopes, err := s.checkAPIKey(nk)
	if err != nil {
		return gatehouse.APIKey{}, "", err
	}
	raw, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: nk.OrgID, Name: name, Prefix: prefix, Hash: hash, Scopes: scopes,
		RateLimit: nk.RateLimit, CreatedAt: s.Now()}
	if nk.Lifetime > 0 {
		t := k.CreatedAt.Add(nk.Lifetime)
		nk.ExpiresAt = &t
	}
	if nk.ExpiresAt != nil {
		t := gatehouse.Truncate(*nk.ExpiresAt)
		k.ExpiresAt = &t
	}
	e := s.entry(ctx, nk.OrgID, gatehouse.AuditAPIKeyCreated, gatehouse.TargetAPIKey).
		Change("name", "", k.Name).Change("prefix", "", k.Prefix).Change("scopes", "", gatehouse.JoinScopes(k.Scopes))
	if k.ExpiresAt != nil {
		e = e.Change("expiresAt", "", gatehouse.FormatTime(*k.ExpiresAt))
	}
	if err := s.store.CreateAPIKey(ctx, e, k); err != nil {
		return gatehouse.APIKey{}, "", err
	}
	return k, raw, nil
}

// CheckAPIKey reports what [Service.CreateAPIKey] would refuse in nk,
// without creating anything: a form with problems of its own lists them
// all.
func (s *Service) CheckAPIKey(nk gatehouse.NewAPIKey) error {
	_, _, err := s.checkAPIKey(nk)
	return err
}

func (s *Service) checkAPIKey(nk gatehouse.NewAPIKey) (string, []gatehouse.Scope, error) {
	now := s.Now()
	var errs gatehouse.ValidationError
	name, err := gatehouse.CheckName("name", nk.Name)
	errs.Merge("", gatehouse.AsValidation(err))
	scopes := []gatehouse.Scope{}
	for _, sc := range nk.Scopes {
		switch {
		case !slices.Contains(gatehouse.Scopes, sc):
			errs.Add("scopes", "unknown scope %q (known: %s)", sc, gatehouse.JoinScopes(gatehouse.Scopes))
		case !slices.Contains(scopes, sc):
			scopes = append(scopes, sc)
		}
	}
	if len(nk.Scopes) == 0 {
		errs.Add("scopes", "choose at least one scope")
	}
	if nk.Lifetime < 0 || (nk.ExpiresAt != nil && !nk.ExpiresAt.After(now)) {
		errs.Add("expiresAt", "must be in the future")
	}
	if nk.RateLimit != nil && (nk.RateLimit.Count < 1 || nk.RateLimit.Per <= 0) {
		errs.Add("rateLimit", "must be a positive rate")
	}
	return name, scopes, errs.Err()
}

// ListAPIKeys returns the organization's keys, newest first, never a raw
// key. An unknown organization has none.
func (s *Service) ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]gatehouse.APIKey, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageKeys); err != nil {
		return nil, err
	}
	return s.store.ListAPIKeys(ctx, orgID)
}

// FindAPIKey returns one of the organization's keys, whatever its status,
// or [gatehouse.ErrNotFound] (another organization's key included).
func (s *Service) FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (gatehouse.APIKey, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageKeys); err != nil {
		return gatehouse.APIKey{}, err
	}
	return s.store.FindAPIKey(ctx, orgID, id)
}

// RevokeAPIKey revokes one of the organization's keys now, unless it
// already is revoked, and returns it. Every instance refuses it within a
// second.
//
// Errors:
//   - [gatehouse.ErrNotFound] for an unknown key or one of another
//     organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) RevokeAPIKey(ctx context.Context, orgID, id uuid.UUID) (gatehouse.APIKey, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageKeys); err != nil {
		return gatehouse.APIKey{}, err
	}
	now := s.Now()
	e := s.entry(ctx, orgID, gatehouse.AuditAPIKeyRevoked, gatehouse.TargetAPIKey).Change("revokedAt", "", gatehouse.FormatTime(now))
	return s.store.RevokeAPIKey(ctx, e, orgID, id, now)
}

// OrgOfAPIKey returns the organization that owns a key, or
// [gatehouse.ErrNotFound].
// Only the operator's CLI, which spans organizations, asks it.
func (s *Service) OrgOfAPIKey(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return s.store.OrgOfAPIKey(ctx, id)
}
