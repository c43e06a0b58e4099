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
//   - a [*gatehouse.ValidationError] keyed "name", "scopes",
//     "locations" or "expiresAt" (every problem at once);
//   - [gatehouse.ErrNotFound] for an unknown organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin.
//
// A key made by a user limited to locations is limited to theirs, or to
// those of them nk.Locations lists.
func (s *Service) CreateAPIKey(ctx context.Context, nk gatehouse.NewAPIKey) (gatehouse.APIKey, string, error) {
	within, err := gatehouse.AuthorizeIn(ctx, nk.OrgID, gatehouse.PermManageKeys)
	if err != nil {
		return gatehouse.APIKey{}, "", err
	}
	name, scopes, err := s.checkAPIKey(nk)
	if err != nil {
		return gatehouse.APIKey{}, "", err
	}
	reach, err := s.checkReach(ctx, nk.OrgID, "locations", nk.Locations, within, nil)
	if err != nil {
		return gatehouse.APIKey{}, "", err
	}
	if !reach.Whole() {
		if err := gatehouse.CheckReachScopes(scopes); err != nil {
			return gatehouse.APIKey{}, "", err
		}
	}
	raw, prefix, hash := gatehouse.GenerateKey()
	k := gatehouse.APIKey{ID: gatehouse.NewID(), OrgID: nk.OrgID, Name: name, Prefix: prefix, Hash: hash, Scopes: scopes,
		Reach: reach, RateLimit: nk.RateLimit, CreatedAt: s.Now()}
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
	e = e.Change("locations", "", reach.String())
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
	} else if len(nk.Locations) > 0 {
		errs.Merge("", gatehouse.AsValidation(gatehouse.CheckReachScopes(scopes)))
	}
	_, err = gatehouse.CheckReach("locations", nk.Locations)
	errs.Merge("", gatehouse.AsValidation(err))
	if nk.Lifetime < 0 || (nk.ExpiresAt != nil && !nk.ExpiresAt.After(now)) {
		errs.Add("expiresAt", "must be in the future")
	}
	errs.Merge("", gatehouse.AsValidation(gatehouse.CheckKeyRate(nk.RateLimit)))
	return name, scopes, errs.Err()
}

// ListAPIKeys returns the organization's keys, newest first, never a raw
// key. An unknown organization has none.
// A user limited to locations sees the keys limited to theirs only.
func (s *Service) ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]gatehouse.APIKey, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageKeys)
	if err != nil {
		return nil, err
	}
	keys, err := s.store.ListAPIKeys(ctx, orgID)
	return slices.DeleteFunc(keys, func(k gatehouse.APIKey) bool { return !reach.Covers(k.Reach) }), err
}

// ExpiringAPIKeys counts the organization's active keys that expire
// within [gatehouse.ExpiryWarning]: what the dashboard warns a key's
// managers of before a game's servers fail closed. Errors as
// [Service.ListAPIKeys].
func (s *Service) ExpiringAPIKeys(ctx context.Context, orgID uuid.UUID) (int, error) {
	keys, err := s.ListAPIKeys(ctx, orgID)
	if err != nil {
		return 0, err
	}
	now, n := s.Now(), 0
	for _, k := range keys {
		if k.ExpiresSoon(now) {
			n++
		}
	}
	return n, nil
}

// FindAPIKey returns one of the organization's keys, whatever its status,
// or [gatehouse.ErrNotFound] (another organization's key included).
func (s *Service) FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (gatehouse.APIKey, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageKeys)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	return s.apiKeyIn(ctx, orgID, id, reach)
}

// apiKeyIn is the organization's key id, or [gatehouse.ErrNotFound]
// unless reach covers the key's: a user limited to locations manages
// the keys limited to theirs.
func (s *Service) apiKeyIn(ctx context.Context, orgID, id uuid.UUID, reach gatehouse.Reach) (gatehouse.APIKey, error) {
	k, err := s.store.FindAPIKey(ctx, orgID, id)
	if err == nil && !reach.Covers(k.Reach) {
		return gatehouse.APIKey{}, gatehouse.ErrNotFound
	}
	return k, err
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
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageKeys)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	if _, err := s.apiKeyIn(ctx, orgID, id, reach); err != nil {
		return gatehouse.APIKey{}, err
	}
	now := s.Now()
	e := s.entry(ctx, orgID, gatehouse.AuditAPIKeyRevoked, gatehouse.TargetAPIKey).Change("revokedAt", "", gatehouse.FormatTime(now))
	return s.store.RevokeAPIKey(ctx, e, orgID, id, now)
}

// SetAPIKeyRate sets the rate limit of one of the organization's keys
// (nil: the server's default), whatever its status, and returns the key.
// Every instance applies it within a second, as a revocation: the
// authenticator reads keys again after auth.CacheTTL. The audit log
// records the change once, "default" standing for the server's rate.
//
// Errors:
//   - a [*gatehouse.ValidationError] keyed "rateLimit" for a rate that is
//     not positive;
//   - [gatehouse.ErrNotFound] for an unknown key or one of another
//     organization;
//   - [gatehouse.ErrForbidden] unless the acting user is an admin;
//   - [gatehouse.ErrKeyNotChangeable] when the acting API key asks to
//     change itself or a key with keys:write (see
//     [gatehouse.APIKey.ChangeableBy]).
func (s *Service) SetAPIKeyRate(ctx context.Context, orgID, id uuid.UUID, rate *gatehouse.Rate) (gatehouse.APIKey, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermManageKeys)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	if err := gatehouse.CheckKeyRate(rate); err != nil {
		return gatehouse.APIKey{}, err
	}
	k, err := s.apiKeyIn(ctx, orgID, id, reach)
	if err != nil {
		return gatehouse.APIKey{}, err
	}
	if !k.ChangeableBy(gatehouse.ActorFrom(ctx)) {
		return gatehouse.APIKey{}, gatehouse.ErrKeyNotChangeable
	}
	e := s.entry(ctx, orgID, gatehouse.AuditAPIKeyRateChanged, gatehouse.TargetAPIKey).
		Change("rateLimit", rateText(k.RateLimit), rateText(rate))
	return s.store.SetAPIKeyRate(ctx, e, orgID, id, rate)
}

// rateText is how the audit log writes a key's own rate: "default" when
// it has none.
func rateText(r *gatehouse.Rate) string {
	if r == nil {
		return "default"
	}
	return r.String()
}

// APIKeysExpiring counts the keys of every organization, not revoked,
// that expire within [gatehouse.ExpiryWarning]: the operator's warning,
// which names no organization. Only the operator's metrics ask it.
func (s *Service) APIKeysExpiring(ctx context.Context) (int, error) {
	now := s.Now()
	return s.store.CountAPIKeysExpiring(ctx, now, now.Add(gatehouse.ExpiryWarning))
}

// OrgOfAPIKey returns the organization that owns a key, or
// [gatehouse.ErrNotFound].
// Only the operator's CLI, which spans organizations, asks it.
func (s *Service) OrgOfAPIKey(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return s.store.OrgOfAPIKey(ctx, id)
}
