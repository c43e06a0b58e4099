package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// CommandStore is the part of [Store] that keeps remote commands: their
// issue, the game servers that sync, the deliveries to them and their
// answers, and the wakes that tell waiting syncs.
type CommandStore interface {
	// CreateCommand stores c, PENDING or FAILED at issue, and returns it
	// as [CommandStore.FindCommand] does. In one transaction it:
	//   - stores one delivery row per c.TargetJobIDs (Target true, not
	//     delivered);
	//   - records the command's REMOTE_UNLOCK event: id c.ID, occurredAt
	//     c.IssuedAt, scope, job and player ids, the access point and
	//     location with their current names, requestedBy
	//     c.RequestedByUser, command c.ID;
	//   - remembers c.Idempotency;
	//   - leaves c.Wakes() for [CommandStore.WatchCommands] of other
	//     processes.
	//
	// [ErrConflict] when c.Idempotency's key is already stored for the
	// organization (the caller reads it again).
	CreateCommand(ctx context.Context, e AuditEntry, c IssuedCommand) (Command, error)
	// FindIdempotencyKey returns the command and request digest stored
	// with an organization's key at or after since, or [ErrNotFound].
	FindIdempotencyKey(ctx context.Context, orgID uuid.UUID, key string, since time.Time) (uuid.UUID, [32]byte, error)
	// FindCommand returns an organization's issued command with its
	// Targets counts and its Deliveries (targets first, then by job id),
	// or [ErrNotFound]. Commands only known from ingested events are not
	// commands Gatehouse issued: [ErrNotFound].
	FindCommand(ctx context.Context, orgID, id uuid.UUID) (Command, error)
	// ListCommands returns a page of an organization's issued commands
	// matching f, newest first (issuedAt, then id, descending), with their
	// Targets counts and no Deliveries. f.Limit must be set.
	ListCommands(ctx context.Context, orgID uuid.UUID, f CommandFilter) (CommandPage, error)
	// CancelCommand moves an organization's unsettled command to
	// CANCELLED at time at, and returns it. It leaves the wake of the
	// command's universe (every server) for [CommandStore.WatchCommands].
	// Errors:
	//   - [ErrNotFound];
	//   - [ErrConflict], with the command as it is, when it is settled
	//     already: nothing is recorded.
	CancelCommand(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at time.Time) (Command, error)
	// SweepCommands does the periodic work of commands for every
	// organization, and returns how many commands moved by [Expire]:
	//   - an unsettled command every target of which answered moves by
	//     [Settle] (the move of [CommandStore.AckCommands] was lost with
	//     its process);
	//   - every other unsettled command whose expiresAt ≤ now moves by
	//     [Expire] (status_at now);
	//   - idempotency keys older than [IdempotencyWindow], servers unseen
	//     for [ServerForgetAfter] and wakes older than a minute are
	//     deleted.
	//
	// Several instances may run it at once: each command moves once.
	SweepCommands(ctx context.Context, now time.Time) (expired int, err error)

	// Heartbeat records a sync of the organization's server s: it is live
	// from s.SeenAt, in s.UniverseID, hosting s.Players (replacing the
	// list it sent before). StartedAt is kept from its first sync.
	//
	// A server the organization does not hold yet is [ErrTooManyServers],
	// and nothing is stored, when:
	//   - the organization holds caps.Servers servers already, or
	//   - its players and the organization's would be more than
	//     caps.Players.
	//
	// A server it holds is always recorded. When its list would take the
	// organization past caps.Players, only its first players that fit are
	// stored; the rest are tried again at each sync.
	Heartbeat(ctx context.Context, orgID uuid.UUID, s GameServer, caps ServerCaps) error
	// LiveServers returns the organization's servers of the universe seen
	// at or after since, most recently seen first; with player set, only
	// those hosting that player.
	LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) ([]GameServer, error)
	// AckCommands applies the acknowledgements of the organization's
	// server jobID at time at, and returns the command ids of those that
	// did not count: they change nothing.
	//
	// An ack counts when it names a command delivered to that server that
	// the server has not answered yet. Then its delivery row takes the
	// result, detail and time, and the command moves by [Settle]: in the
	// same transaction, or once it committed, on the counts of every
	// answer committed by then (so that the last answer settles it).
	AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []Ack, at time.Time) (rejected []uuid.UUID, err error)
	// TakeCommands returns the commands due to the organization's server
	// jobID of universeID at now, and marks them delivered. At most
	// [MaxSyncCommands] come, oldest first, each with RemainingSeconds
	// ([Command.Remaining]).
	//
	// cursor is the one the server sent back (0 for none). A command is
	// due when it is one of these:
	//   - an unsettled, unexpired command with a delivery row for jobID
	//     that has no result and either was not delivered, or was
	//     delivered under a generation after cursor (the answer was lost);
	//   - a CANCELLED command delivered to jobID and unanswered, last sent
	//     with another status, or sent CANCELLED under a generation after
	//     cursor (the server locks again);
	//   - a CANCELLED command that jobID answered EXECUTED before it learnt
	//     of the cancel, on the same terms, while the unlock runs (the door
	//     it opened closes early);
	//   - a UNIVERSE command of the universe with no row for jobID (a
	//     server that joined), neither CANCELLED nor EXPIRED, while its
	//     unlock runs: not started and unexpired, or started and
	//     now < startedAt + duration.
	//
	// Marking them delivered is one transaction:
	//   - the server's generation becomes one more than the larger of it
	//     and cursor, so a server the sweep forgot keeps its cursor
	//     meaningful;
	//   - each row (created with Target false for a server that joined)
	//     keeps its first deliveredAt, and takes the new generation and
	//     the status sent;
	//   - startedAt is set on first delivery, and PENDING moves to
	//     DELIVERED (status_at now).
	//
	// The cursor returned is the new generation, or the server's current
	// one when nothing was due.
	TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]Command, int64, error)
	// TakeCommandsBatch is TakeCommands for many servers of the
	// organization's universe at once: the answer to reqs[i] is
	// taken[i], as TakeCommands would answer it. A job id that comes
	// more than once is taken once per request, in order. One UNIVERSE
	// unlock wakes every waiting sync of its universe: taking for all of
	// them in a few set-based statements costs the database far less than
	// a transaction each.
	TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []TakeRequest, now time.Time) ([]Taken, error)
	// WatchCommands calls wake, within a second, for every wake left by
	// [CommandStore.CreateCommand] or [CommandStore.CancelCommand] in any
	// process sharing the database, until ctx ends; it returns ctx's
	// error. wake(Wake{}) means "anything may have changed" (after a
	// reconnection).
	WatchCommands(ctx context.Context, wake func(Wake)) error
}
