package cli

import (
	"context"
	"os"
	"os/user"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// operator is the actor of a change made at the command line by someone
// who named no dashboard user (--as, GATEHOUSE_ACTOR): the operating-system
// user and host, "alice@buildbox", as an ActorCLI, so that the audit log
// says who it was rather than "system".
func operator() gatehouse.Actor {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	} else if v := os.Getenv("USER"); v != "" {
		name = v
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return gatehouse.Actor{Type: gatehouse.ActorCLI, Label: name + "@" + host}
}

// actor defines --as, whose default is GATEHOUSE_ACTOR: the dashboard user
// of the organization a change is made for, checked and credited as the
// dashboard would (see act).
func (f *flags) actor(usage string) *string {
	f.as = f.setting("as", "GATEHOUSE_ACTOR", "", usage)
	return f.as
}

// act returns ctx acting as the organization's dashboard user named by
// --as (or GATEHOUSE_ACTOR): their role is checked and the audit log names
// them. Without either, ctx is returned as Run made it, acting as the
// operator (the operating-system user and host).
func (f *flags) act(ctx context.Context, svc *service.Service, orgID uuid.UUID) (context.Context, error) {
	if f.as == nil || *f.as == "" {
		return ctx, nil
	}
	return asUser(ctx, svc, orgID, *f.as)
}

// asUsage is the usage of --as for a change.
const asUsage = "email of the organization's dashboard user making the change: their role is checked and the audit log names them (default: the operating-system user and host)"

// locationsUsage is the --locations flag of users and keys.
const locationsUsage = "comma-separated location ids the role or key is limited to (empty: the whole organization)"

// asServer is ctx for a command that serves: a server acts as Gatehouse
// itself, each request and background job naming its own actor, never
// the operator who started the process.
func asServer(ctx context.Context) context.Context {
	return gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorSystem})
}
