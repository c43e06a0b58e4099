package cli

import (
	"context"

	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// runUserDataErase erases one player from an organization: every event
// and command of that platform user id, with an audit entry that names
// the player by a keyed hash only.
func runUserDataErase(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "user-data erase", "PLATFORM_USER_ID", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, player string) error {
		er, err := svc.ErasePlatformUser(ctx, orgID, player)
		if err != nil {
			return err
		}
		return f.print(er, "erased %d events and %d commands of the player", er.Events, er.Commands)
	})
}
