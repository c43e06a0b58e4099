package gatehouse

import (
	"context"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// MaxReach is the most locations a role or a key may be limited to.
const MaxReach = 100

// Reach is the locations a dashboard user's role, or an API key, is
// limited to: nil for the whole organization. A limited actor sees and
// acts on those locations' access points, events, commands, lockdowns,
// grants and insights only (AuthorizeIn), and is refused what belongs
// to the whole organization (Authorize). A limited reach is never empty:
// a location deleted later stays in it and matches nothing, so deleting
// a user's last location never widens their reach to everything.
type Reach []uuid.UUID

// Whole reports whether r is the whole organization.
func (r Reach) Whole() bool { return r == nil }

// Has reports whether r reaches the location id.
func (r Reach) Has(id uuid.UUID) bool { return r == nil || slices.Contains(r, id) }

// Covers reports whether r reaches everything other reaches.
func (r Reach) Covers(other Reach) bool {
	if r == nil {
		return true
	}
	return other != nil && !slices.ContainsFunc(other, func(id uuid.UUID) bool { return !slices.Contains(r, id) })
}

// CheckReach validates a list of locations asked for a user or a key:
// empty means the whole organization (nil); otherwise at most MaxReach
// distinct ids, in the order given. A *ValidationError keyed field.
func CheckReach(field string, ids []uuid.UUID) (Reach, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out := make(Reach, 0, len(ids))
	for _, id := range ids {
		if id == uuid.Nil {
			return nil, Invalid(field, "must list location ids")
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) > MaxReach {
		return nil, Invalid(field, "may list at most %d locations", MaxReach)
	}
	return out, nil
}

// ParseReach reads a comma-separated list of location ids ("" is the
// whole organization), for the CLI and the dashboard's forms.
func ParseReach(field, s string) (Reach, error) {
	var ids []uuid.UUID
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		id, err := uuid.Parse(part)
		if err != nil {
			return nil, Invalid(field, "%q is not a location id", part)
		}
		ids = append(ids, id)
	}
	return CheckReach(field, ids)
}

// AuthorizeIn is Authorize for an operation the actor's reach narrows:
// it lets a limited actor through when its role grants p and p is one a
// limited role keeps (reachPermissions), and returns the reach the
// operation must keep to (nil: the whole organization). An API key's
// reach is returned too, its scopes having been checked by the API.
func AuthorizeIn(ctx context.Context, orgID uuid.UUID, p Permission) (Reach, error) {
	a := ActorFrom(ctx)
	if err := authorize(a, orgID, p); err != nil {
		return nil, err
	}
	if a.Reach != nil && !slices.Contains(reachPermissions, p) {
		return nil, ErrOutsideReach
	}
	return a.Reach, nil
}

// InReach returns [ErrNotFound] when reach does not hold the location
// id: a record outside an actor's locations does not exist for them, as
// one of another organization does not.
func InReach(reach Reach, locationID uuid.UUID) error {
	if !reach.Has(locationID) {
		return ErrNotFound
	}
	return nil
}

// String is the ids comma-separated, "" for the whole organization: the
// form of audit entries and of the CLI's flag.
func (r Reach) String() string {
	ids := make([]string, len(r))
	for i, id := range r {
		ids[i] = id.String()
	}
	return strings.Join(ids, ",")
}

// WholeAdmin reports whether u is an admin of the whole organization:
// an organization keeps at least one.
func (u User) WholeAdmin() bool { return u.Role == RoleAdmin && u.Reach.Whole() }

// Can reports whether u may do p somewhere: their role grants it, and,
// when the role is limited to locations, p is one a limited role keeps.
// The dashboard shows what u can do by it; the service decides by
// Authorize and AuthorizeIn.
func (u User) Can(p Permission) bool {
	return u.Role.Can(p) && (u.Reach.Whole() || slices.Contains(reachPermissions, p))
}

// RefuseReach returns ErrOutsideReach when the actor of ctx is limited
// to locations: for the operations no role may do, whose callers are
// keys of the whole organization (writing events, a game server's
// sync), which check no permission and so must refuse a limit
// themselves.
func RefuseReach(ctx context.Context) error {
	if !ActorFrom(ctx).Reach.Whole() {
		return ErrOutsideReach
	}
	return nil
}
