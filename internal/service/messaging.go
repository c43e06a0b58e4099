package service

import (
	"context"
	"errors"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// messagingHint is how many last characters of a key its hint shows.
const messagingHint = 4

// SetMessaging stores the Open Cloud API key (Messaging publish
// permission) of one of the organization's universes, replacing the one it
// had: issuing a command for that universe then also publishes it to the
// platform's messaging. The key is:
//   - sealed under the service secret;
//   - recorded in the audit log by its hint only;
//   - never returned: the answer has the hint.
//
// A [*gatehouse.ValidationError] keyed "universeId" or "apiKey";
// [gatehouse.ErrForbidden] unless the acting user is an admin
// ([gatehouse.PermManageMessaging]).
func (s *Service) SetMessaging(ctx context.Context, orgID uuid.UUID, universeID, apiKey string) (gatehouse.MessagingKey, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageMessaging); err != nil {
		return gatehouse.MessagingKey{}, err
	}
	apiKey = strings.TrimSpace(apiKey)
	var errs gatehouse.ValidationError
	if !gatehouse.IsUniverseID(universeID) {
		errs.Add("universeId", "must be a positive integer, as a string")
	}
	if !gatehouse.IsMessagingKey(apiKey) {
		errs.Add("apiKey", "must be %d to %d printable characters without spaces", gatehouse.MinMessagingKey, gatehouse.MaxMessagingKey)
	}
	if err := errs.Err(); err != nil {
		return gatehouse.MessagingKey{}, err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.MessagingKey{}, err
	}
	sealed := sealer.Seal(orgID, universeID, []byte(apiKey))
	hint := apiKey[len(apiKey)-messagingHint:]
	return s.store.SetMessagingKey(ctx, s.entry(ctx, orgID, gatehouse.AuditMessagingSet, gatehouse.TargetMessaging), orgID, universeID, sealed, hint)
}

// RemoveMessaging removes the Open Cloud key of one of the
// organization's universes: its commands are no longer published.
// [gatehouse.ErrNotFound] when it has none; [gatehouse.ErrForbidden]
// unless the acting user is an admin.
func (s *Service) RemoveMessaging(ctx context.Context, orgID uuid.UUID, universeID string) error {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageMessaging); err != nil {
		return err
	}
	if !gatehouse.IsUniverseID(universeID) {
		return gatehouse.Invalid("universeId", "must be a positive integer, as a string")
	}
	return s.store.RemoveMessagingKey(ctx, s.entry(ctx, orgID, gatehouse.AuditMessagingRemoved, gatehouse.TargetMessaging), orgID, universeID)
}

// ListMessaging returns the organization's universes that have an Open
// Cloud key, with the keys' hints. [gatehouse.ErrForbidden] unless the
// acting user is an admin.
func (s *Service) ListMessaging(ctx context.Context, orgID uuid.UUID) ([]gatehouse.MessagingKey, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManageMessaging); err != nil {
		return nil, err
	}
	return s.store.ListMessagingKeys(ctx, orgID)
}

// OpenMessagingKey returns the Open Cloud key of the organization's
// universe, opened. Only the publisher of commands calls it, to publish,
// and it must neither log nor keep it.
//
// [gatehouse.ErrNotFound] when the universe has none;
// [gatehouse.ErrUnsealable] when the stored key does not open (the service
// secret changed: set the key again).
func (s *Service) OpenMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) (string, error) {
	sealed, err := s.store.FindMessagingKey(ctx, orgID, universeID)
	if err != nil {
		return "", err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return "", err
	}
	key, err := sealer.Open(orgID, universeID, sealed)
	return string(key), err
}

// sealing returns the sealer of messaging keys. Its key derives from the
// secret stored in the database ([gatehouse.Store.Secret]), not from a
// secret pinned in one process's settings: every instance and every
// operator's command on the database seal and open alike. An error (the
// database cannot answer) is not remembered: the next call tries again.
func (s *Service) sealing(ctx context.Context) (*gatehouse.Sealer, error) {
	s.sealMu.Lock()
	defer s.sealMu.Unlock()
	if s.sealer != nil {
		return s.sealer, nil
	}
	secret, err := s.store.Secret(ctx)
	if err != nil {
		return nil, err
	}
	sealer, err := gatehouse.NewSealer(secret)
	if err != nil {
		return nil, errors.Join(gatehouse.ErrUnavailable, err)
	}
	s.sealer = sealer
	return sealer, nil
}
