package gatehouse

import (
	"context"

	"github.com/google/uuid"
)

// ActorType says who performs an operation.
type ActorType string

// The actors of an operation: a dashboard user, an API key, an operator
// at the command line who named no dashboard user (ActorCLI, labelled by
// the operating-system user and host, "alice@buildbox"), or Gatehouse
// itself (a background job, setup code).
const (
	ActorUser   ActorType = "user"
	ActorKey    ActorType = "key"
	ActorCLI    ActorType = "cli"
	ActorSystem ActorType = "system"
)

// Actor is who performs an operation, and through which request: what an
// audit entry records. The doors build it (the API from the request's key,
// the dashboard from the session, the CLI as the user of --as or as
// ActorCLI) and carry it in
// the context with WithActor; the request id and the client address come
// from the door too, since the root package knows no HTTP.
type Actor struct {
	Type ActorType
	// ID is the user's or the key's id; zero for ActorSystem.
	ID uuid.UUID
	// Label is the user's email, the key's display prefix, or the
	// operating-system user and host of ActorCLI.
	Label string
	// OrgID and Role are a dashboard user's organization and role, what
	// the service checks before acting for them (see Role.Can).
	OrgID uuid.UUID
	Role  Role
	// EnrolOnly: a dashboard user whose organization requires a second
	// factor they have not enrolled yet; they may enrol one, nothing else
	// ([Session.EnrolOnly]).
	EnrolOnly bool
	// Reach is the locations a user's role or a key is limited to (nil:
	// the whole organization); see AuthorizeIn.
	Reach Reach
	// Scopes are an API key's scopes: the service checks those an
	// operation needs beyond its route's (a *ScopeError).
	Scopes        []Scope
	RequestID     string
	ClientAddress string
	// UserAgent is the browser's, for the sessions a dashboard sign-in
	// starts.
	UserAgent string
}

type actorKey struct{}

// WithActor returns ctx carrying a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, or ActorSystem when none.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Type: ActorSystem}
}

// Actor is u acting: what a door that signed u in (the dashboard) or
// acts for them (the CLI's --as) starts from, so that the role and the
// reach the service checks are always u's own.
func (u User) Actor() Actor {
	return Actor{Type: ActorUser, ID: u.ID, Label: u.Email, OrgID: u.OrgID, Role: u.Role, Reach: u.Reach}
}
