package gatehouse

import (
	"crypto/sha256"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"
)

// CursorCommands is the cursor kind of command lists.
const CursorCommands = 'c'

// CommandQueryParams lists the query parameters ReadCommandQuery reads.
var CommandQueryParams = []string{"status", "accessPointId", "locationId", "scope", paramLimit, paramCursor}

// ReadCommandQuery parses the query of a command list (GET /commands,
// the dashboard, the CLI) and opens its cursor for orgID, as
// ReadAuditQuery does for the audit log: an empty value counts as absent,
// every parameter may appear once, and every problem is reported at once
// in a *ValidationError keyed by parameter (an unknown parameter, status
// or scope, a malformed id, a bad limit, a cursor that is forged or was
// issued for other filters).
func ReadCommandQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (CommandFilter, error) {
	var (
		f    CommandFilter
		errs ValidationError
	)
	q := newListQuery(v, CommandQueryParams, &errs)
	if s, ok := q.one("status"); ok {
		if st := CommandStatus(s); slices.Contains(CommandStatuses, st) {
			f.Status = &st
		} else {
			errs.Add("status", "must be one of %s", joinStatuses())
		}
	}
	if s, ok := q.one("scope"); ok {
		if sc := CommandScope(s); slices.Contains(CommandScopes, sc) {
			f.Scope = &sc
		} else {
			errs.Add("scope", "must be one of UNIVERSE, SERVER, PLAYER")
		}
	}
	if s, ok := q.one("accessPointId"); ok {
		f.AccessPointID = parseUUID(&errs, "accessPointId", s)
	}
	if s, ok := q.one("locationId"); ok {
		f.LocationID = parseUUID(&errs, "locationId", s)
	}
	f.Limit = q.limit()
	f.After = openListCursor(q, cursors, CursorCommands, f.Digest(orgID), DecodeCommandKey)
	return f, errs.Err()
}

// Digest binds a cursor to the organization and the filters (not the
// limit or the position).
func (f CommandFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("commands\x00"))
	h.Write(orgID[:])
	var status, scope string
	if f.Status != nil {
		status = string(*f.Status)
	}
	if f.Scope != nil {
		scope = string(*f.Scope)
	}
	h.Write([]byte("\x00" + status + "\x00" + scope + "\x00"))
	for _, id := range []*uuid.UUID{f.AccessPointID, f.LocationID} {
		if id != nil {
			h.Write(id[:])
		}
		h.Write([]byte{0})
	}
	return [8]byte(h.Sum(nil)[:8])
}

// EncodeCommandKey writes a command position as cursor bytes.
func EncodeCommandKey(k CommandKey) []byte {
	return EncodeEventKey(EventKey{OccurredAt: k.IssuedAt, ID: k.ID})
}

// DecodeCommandKey reads cursor bytes written by EncodeCommandKey.
func DecodeCommandKey(b []byte) (CommandKey, error) {
	k, err := DecodeEventKey(b)
	return CommandKey{IssuedAt: k.OccurredAt, ID: k.ID}, err
}

// CommandFilter selects commands of one organization, newest first.
type CommandFilter struct {
	Status        *CommandStatus
	Scope         *CommandScope
	AccessPointID *uuid.UUID
	LocationID    *uuid.UUID
	// Within, when not nil, keeps the commands for access points of
	// those locations: the actor's reach (set by the service).
	Within Reach
	Limit  int
	After  *CommandKey
}

// Check returns the first problem of a filter built by hand rather than
// read by [ReadCommandQuery]: a Limit outside 1 to [MaxLimit], or a
// status or scope that does not exist, as a *[ValidationError] keyed by
// the field.
func (f CommandFilter) Check() error {
	switch {
	case f.Limit < 1 || f.Limit > MaxLimit:
		return Invalid("limit", "must be between 1 and %d", MaxLimit)
	case f.Status != nil && !slices.Contains(CommandStatuses, *f.Status):
		return Invalid("status", "must be one of %s", joinStatuses())
	case f.Scope != nil && !slices.Contains(CommandScopes, *f.Scope):
		return Invalid("scope", "must be one of UNIVERSE, SERVER, PLAYER")
	}
	return nil
}

// CommandKey is a command's position in the list order: issuedAt
// descending, then id descending.
type CommandKey struct {
	IssuedAt time.Time
	ID       uuid.UUID
}

// Key returns the command's position in the list order.
func (c Command) Key() CommandKey {
	return CommandKey{IssuedAt: time.Time(c.IssuedAt), ID: c.ID}
}

// CommandPage is one page of commands; Next is set when more follow.
type CommandPage struct {
	Commands []Command
	Next     *CommandKey
}

// joinStatuses is the command statuses as a message lists them.
func joinStatuses() string {
	s := ""
	for i, st := range CommandStatuses {
		if i > 0 {
			s += ", "
		}
		s += string(st)
	}
	return s
}
