package gatehouse

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Store persists Gatehouse's records. Every method that reads or writes an
// organization's data takes the organization id and applies it before
// anything else, so no filter or id can reach another organization's rows:
// a foreign id behaves exactly like an unknown one.
//
// A Store is persistence only: the doors (API, dashboard, CLI) reach it
// through Service, which owns validation, ids, times and tenant checks.
//
// Implementations: internal/sqlite (embedded default) and
// internal/postgres. Their shared behaviour is specified by
// internal/storetest.
type Store interface {
	// Every method that changes records takes the AuditEntry of the
	// change, built by the service, and appends it (completed with the
	// organization and the record: AuditEntry.Of) in the transaction of
	// the change: a change that fails leaves no entry, and none is stored
	// unrecorded. An entry without an action is ErrInvalid. A method that
	// changes nothing (revoking a revoked key, setting the role a user
	// has) appends nothing.

	// CreateOrganization stores a new organization. ErrInvalid for a bad name.
	CreateOrganization(ctx context.Context, e AuditEntry, name string) (Organization, error)
	// ListOrganizations returns every organization, oldest first.
	ListOrganizations(ctx context.Context) ([]Organization, error)
	// FindOrganization returns one organization, or ErrNotFound.
	FindOrganization(ctx context.Context, id uuid.UUID) (Organization, error)
	// RenameOrganization renames an organization. ErrNotFound, ErrInvalid.
	RenameOrganization(ctx context.Context, e AuditEntry, id uuid.UUID, name string) (Organization, error)
	// OrgOfAPIKey, OrgOfLocation and OrgOfAccessPoint return the
	// organization that owns a record, or ErrNotFound: the operator's CLI
	// spans organizations and is given a bare record id. No door that acts
	// for an organization's key or user may call them.
	OrgOfAPIKey(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	OrgOfLocation(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (uuid.UUID, error)
	// OrgOfCommand is OrgOfAccessPoint for an issued command.
	OrgOfCommand(ctx context.Context, id uuid.UUID) (uuid.UUID, error)

	// CreateAPIKey stores k, whose ID, OrgID, Name, Prefix, Hash, Scopes and
	// CreatedAt are set by the caller. ErrNotFound when the organization does
	// not exist, ErrInvalid for a bad name.
	CreateAPIKey(ctx context.Context, e AuditEntry, k APIKey) error
	// ListAPIKeys returns an organization's keys, newest first.
	ListAPIKeys(ctx context.Context, orgID uuid.UUID) ([]APIKey, error)
	// FindAPIKeyByHash returns the key with that hash, whatever its status,
	// or ErrNotFound.
	FindAPIKeyByHash(ctx context.Context, hash KeyHash) (APIKey, error)
	// FindAPIKey returns an organization's key, whatever its status, or
	// ErrNotFound (another organization's key included).
	FindAPIKey(ctx context.Context, orgID, id uuid.UUID) (APIKey, error)
	// RevokeAPIKey marks an organization's key revoked at time at, unless
	// it already is, and returns it. ErrNotFound for an unknown key or one
	// of another organization.
	RevokeAPIKey(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at time.Time) (APIKey, error)
	// MarkAPIKeysUsed records last-use times in one write; unknown ids are
	// ignored and a time never moves backwards.
	MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) error

	// CreateLocation stores a location. ErrNotFound for an unknown
	// organization, ErrInvalid for a bad name.
	CreateLocation(ctx context.Context, e AuditEntry, orgID uuid.UUID, name string) (Location, error)
	// RenameLocation renames an organization's location; events keep the
	// name they were recorded with. ErrNotFound, ErrInvalid.
	RenameLocation(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, name string) (Location, error)
	// FindLocation returns an organization's location with its access
	// points, or ErrNotFound.
	FindLocation(ctx context.Context, orgID, id uuid.UUID) (Location, error)
	// CreateAccessPoint stores an access point under an organization's
	// location. ErrNotFound for a location of another organization.
	CreateAccessPoint(ctx context.Context, e AuditEntry, orgID, locationID uuid.UUID, name string) (AccessPoint, error)
	// RenameAccessPoint renames an organization's access point; events
	// keep the name they were recorded with. Nothing is recorded when the
	// name is unchanged. ErrNotFound, ErrInvalid.
	RenameAccessPoint(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, name string) (AccessPoint, error)
	// MoveAccessPoint re-homes an organization's access point under
	// another of its locations; events keep the location they were
	// recorded with. Nothing is recorded when the location is unchanged.
	// ErrNotFound for an unknown access point or a location of another
	// organization.
	MoveAccessPoint(ctx context.Context, e AuditEntry, orgID, id, locationID uuid.UUID) (AccessPoint, error)
	// ListLocations returns a page of an organization's locations ordered by
	// name then id, each with its access points ordered by name then id.
	// after, when set, is the last location of the previous page; next is
	// set when more locations follow.
	ListLocations(ctx context.Context, orgID uuid.UUID, limit int, after *LocationKey) (page []Location, next *LocationKey, err error)

	// CreateUser stores a dashboard user with u's OrgID, Email, Name, Role
	// and PasswordHash, not proven (an invitation; see User.Proven). The
	// first user of an organization is made RoleAdmin whatever u.Role
	// says (checked in the same transaction).
	// ErrConflict when the email is taken in the organization (it may be
	// used in others), ErrNotFound for an unknown organization.
	CreateUser(ctx context.Context, e AuditEntry, u User) (User, error)
	// FindUsersByEmail returns every user with that email
	// (case-insensitive), one per organization, oldest first; none is no
	// error. Only sign-in and the operator's CLI, which span
	// organizations, ask it.
	FindUsersByEmail(ctx context.Context, email string) ([]User, error)
	// ListUsers returns an organization's users ordered by email.
	ListUsers(ctx context.Context, orgID uuid.UUID) ([]User, error)
	// SetUserPassword replaces the password hash of the organization's
	// user with that email and ends the user's sessions; ErrNotFound when
	// there is none.
	SetUserPassword(ctx context.Context, e AuditEntry, orgID uuid.UUID, email, passwordHash string) (User, error)
	// SetUserRole changes the role of the organization's user with that
	// email and returns the user. When the role is lowered (Role.Below),
	// the user's sessions end in the same transaction. ErrNotFound when
	// there is no such user; ErrConflict when it would leave the
	// organization without an admin.
	SetUserRole(ctx context.Context, e AuditEntry, orgID uuid.UUID, email string, role Role) (User, error)
	// RemoveUser deletes the organization's user with that email and their
	// sessions, in one transaction, and returns the user. Events keep the
	// id of the user who requested them. ErrNotFound when there is no such
	// user; ErrConflict when it is the organization's last admin.
	RemoveUser(ctx context.Context, e AuditEntry, orgID uuid.UUID, email string) (User, error)
	// SetUserTimeZone stores the zone of the organization's user with that
	// id; ErrNotFound when the organization has no such user.
	SetUserTimeZone(ctx context.Context, orgID, userID uuid.UUID, zone string) error

	// CreateSession stores a dashboard session and marks its user
	// proven (User.Proven), in one transaction.
	CreateSession(ctx context.Context, e AuditEntry, s Session) error
	// FindSession returns the unexpired session with that token hash and
	// its user, or ErrNotFound.
	FindSession(ctx context.Context, tokenHash [32]byte, now time.Time) (Session, User, error)
	// DeleteSession ends a session; ending one that does not exist is no error.
	// It also deletes every session that has expired.
	DeleteSession(ctx context.Context, tokenHash [32]byte, now time.Time) error

	// SetLocationUniverse sets the platform universe of an organization's
	// location ("" clears it). Nothing is recorded when it is unchanged.
	// ErrNotFound.
	SetLocationUniverse(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, universeID string) (Location, error)
	// NamesUniverse reports whether any of the organization's locations
	// names universeID; an unknown organization names none.
	NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (bool, error)
	// FindAccessPoint returns an organization's access point, or
	// ErrNotFound.
	FindAccessPoint(ctx context.Context, orgID, id uuid.UUID) (AccessPoint, error)

	// CreateCommand stores c (PENDING, or FAILED at issue) with one
	// delivery row (Target true, not delivered) per c.TargetJobIDs,
	// records its REMOTE_UNLOCK event (id c.ID, occurredAt c.IssuedAt,
	// scope, job and player ids, the access point and location with their
	// current names, requestedBy c.RequestedByUser, command c.ID) and
	// remembers c.Idempotency, all in one transaction, and leaves
	// c.Wakes() for WatchCommands of other processes. It returns the command as
	// FindCommand does. ErrConflict when c.Idempotency's key is already
	// stored for the organization (the caller reads it again).
	CreateCommand(ctx context.Context, e AuditEntry, c IssuedCommand) (Command, error)
	// FindIdempotencyKey returns the command and request digest stored
	// with an organization's key at or after since, or ErrNotFound.
	FindIdempotencyKey(ctx context.Context, orgID uuid.UUID, key string, since time.Time) (uuid.UUID, [32]byte, error)
	// FindCommand returns an organization's issued command with its
	// Targets counts and its Deliveries (targets first, then by job id),
	// or ErrNotFound. Commands only known from ingested events are not
	// commands Gatehouse issued: ErrNotFound.
	FindCommand(ctx context.Context, orgID, id uuid.UUID) (Command, error)
	// ListCommands returns a page of an organization's issued commands
	// matching f, newest first (issuedAt, then id, descending), with their
	// Targets counts and no Deliveries. f.Limit must be set.
	ListCommands(ctx context.Context, orgID uuid.UUID, f CommandFilter) (CommandPage, error)
	// CancelCommand moves an organization's unsettled command to
	// CANCELLED at time at, leaves the wake of its universe (every
	// server) for WatchCommands, and returns
	// it. ErrNotFound; ErrConflict (with the command as it is) when it is
	// settled already, in which case nothing is recorded.
	CancelCommand(ctx context.Context, e AuditEntry, orgID, id uuid.UUID, at time.Time) (Command, error)
	// SweepCommands does the periodic work of commands for every
	// organization: an unsettled command every target of which answered
	// moves by Settle (AckCommands' move was lost with its process),
	// every other unsettled command whose expiresAt ≤ now moves by Expire
	// (status_at now); idempotency keys older than
	// IdempotencyWindow, servers unseen for ServerForgetAfter and wakes
	// older than a minute are deleted. Several instances may run it at
	// once: each command moves once.
	SweepCommands(ctx context.Context, now time.Time) (expired int, err error)

	// Heartbeat records a sync of the organization's server s: it is live
	// from s.SeenAt, in s.UniverseID, hosting s.Players (replacing the
	// list it sent before). StartedAt is kept from its first sync. A
	// server the organization does not hold yet is ErrTooManyServers,
	// and nothing is stored, when the organization holds caps.Servers
	// servers, or when its players with the organization's would be more
	// than caps.Players. A server it holds is always recorded; when its
	// list would take the organization past caps.Players, only its first
	// players that fit are stored, and the rest are tried again at each
	// sync.
	Heartbeat(ctx context.Context, orgID uuid.UUID, s GameServer, caps ServerCaps) error
	// LiveServers returns the organization's servers of the universe seen
	// at or after since, most recently seen first; with player set, only
	// those hosting that player.
	LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) ([]GameServer, error)
	// AckCommands applies the acknowledgements of the organization's
	// server jobID at time at. An ack counts when it names a command
	// delivered to that server that the server has not answered yet: its
	// delivery row takes the result, detail and time, and the command
	// moves by Settle, in the same transaction or once it committed (on
	// the counts of every answer committed by then, so that the last
	// answer settles it). The others change nothing and their command ids
	// are returned.
	AckCommands(ctx context.Context, orgID uuid.UUID, jobID string, acks []Ack, at time.Time) (rejected []uuid.UUID, err error)
	// TakeCommands returns, oldest first and at most MaxSyncCommands, the
	// commands due to the organization's server jobID of universeID at
	// now, given the cursor it sent back (0 for none):
	//   - unsettled, unexpired commands with a delivery row for jobID
	//     that has no result and was not delivered, or was delivered
	//     under a generation after cursor (the answer was lost);
	//   - CANCELLED commands delivered to jobID, unanswered, that were
	//     last sent with another status, or sent CANCELLED under a
	//     generation after cursor (the server locks again); the same for
	//     those jobID answered EXECUTED before it learnt of the cancel,
	//     while the unlock runs (the door it opened closes early);
	//   - UNIVERSE commands of the universe with no row for jobID (a
	//     server that joined), neither CANCELLED nor EXPIRED, while their
	//     unlock runs: not started and unexpired, or started and
	//     now < startedAt + duration.
	// It marks them delivered in one transaction: the server's
	// generation becomes one more than the larger of it and cursor (a
	// server forgotten by the sweep keeps its cursor meaningful); each row (created with Target false for
	// a server that joined) keeps its first deliveredAt and takes the new
	// generation and the status sent; startedAt is set on first delivery
	// and PENDING moves to DELIVERED (status_at now). Each command comes
	// with RemainingSeconds (Command.Remaining). The returned cursor is
	// the new generation, or the server's current one when nothing was due.
	TakeCommands(ctx context.Context, orgID uuid.UUID, jobID, universeID string, cursor int64, now time.Time) ([]Command, int64, error)
	// TakeCommandsBatch is TakeCommands for many servers of the
	// organization's universe at once: the answer to reqs[i] is
	// taken[i], as TakeCommands would answer it. A job id that comes
	// more than once is taken once per request, in order. One UNIVERSE
	// unlock wakes every waiting sync of its universe: taking for all of
	// them in a few set-based statements costs the database far less than
	// a transaction each.
	TakeCommandsBatch(ctx context.Context, orgID uuid.UUID, universeID string, reqs []TakeRequest, now time.Time) ([]Taken, error)
	// WatchCommands calls wake for every wake left by CreateCommand or
	// CancelCommand in any process sharing the database, within a second,
	// until ctx ends; wake(Wake{}) means "anything may have changed"
	// (after a reconnection). It returns ctx's error.
	WatchCommands(ctx context.Context, wake func(Wake)) error
	// TryLease takes or renews the lease name for holder until now+ttl,
	// and reports whether holder has it: another holder's unexpired lease
	// is kept. Background work that every instance runs takes a lease so
	// that one instance at a time does it.
	TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)

	// SetMessagingKey stores the sealed Open Cloud key of an
	// organization's universe with its hint, replacing the one it had
	// (createdAt becomes now), and records the hint's change. ErrNotFound
	// for an unknown organization.
	SetMessagingKey(ctx context.Context, e AuditEntry, orgID uuid.UUID, universeID string, sealed []byte, hint string) (MessagingKey, error)
	// RemoveMessagingKey deletes the key of an organization's universe.
	// ErrNotFound when it has none.
	RemoveMessagingKey(ctx context.Context, e AuditEntry, orgID uuid.UUID, universeID string) error
	// ListMessagingKeys returns the universes of an organization that have
	// a key, ordered by universe id (numerically), with hint and creation
	// time: never the sealed key.
	ListMessagingKeys(ctx context.Context, orgID uuid.UUID) ([]MessagingKey, error)
	// FindMessagingKey returns the sealed key of an organization's
	// universe, or ErrNotFound.
	FindMessagingKey(ctx context.Context, orgID uuid.UUID, universeID string) ([]byte, error)

	// PutPolicy stores p, checked by the service, as the policy of an
	// organization's access point: version one more than the current one
	// (1 for the first), updatedAt at, and records the change (e with
	// Change("version", old, new)) in the same transaction. When
	// ifVersion is set and is not the current version (0: none yet),
	// nothing changes and the error is ErrConflict. When p's rules equal
	// the current policy's (PolicyBody), nothing is stored or recorded
	// and the current policy is returned. ErrNotFound for an unknown
	// access point or one of another organization.
	PutPolicy(ctx context.Context, e AuditEntry, orgID, accessPointID uuid.UUID, p Policy, ifVersion *int64, at time.Time) (Policy, error)
	// FindPolicy returns the current policy of an organization's access
	// point with its Version and UpdatedAt, or nil when it has none.
	// ErrNotFound for an unknown access point or one of another
	// organization.
	FindPolicy(ctx context.Context, orgID, accessPointID uuid.UUID) (*Policy, error)
	// PolicySet returns every access point of the organization's
	// locations of universeID, ordered by access point id, with its
	// location and its current policy (nil when it has none). None is no
	// error.
	PolicySet(ctx context.Context, orgID uuid.UUID, universeID string) ([]AccessPointPolicy, error)
	// PolicySetMembers returns what PolicySet would, without the
	// policies' bodies: each access point's name, location and current
	// policy version (0: none), ordered alike. It is what a set's
	// version is computed from (PolicySetVersion), so that knowing the
	// version costs no policy read. None is no error.
	PolicySetMembers(ctx context.Context, orgID uuid.UUID, universeID string) ([]PolicySetMember, error)
	// FindDecisionContext returns what deciding for an organization's
	// access point at now needs, in one read: the access point and its
	// location, the location's universe, the current policy (nil when
	// none), and the unlocks of the access point active at now (Command.
	// ActiveUnlock). ErrNotFound for an unknown access point or one of
	// another organization.
	FindDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, now time.Time) (DecisionContext, error)

	// IngestEvents stores events for an organization in one transaction:
	// all or nothing. Events whose id is already stored for the organization
	// are counted as duplicates and left unchanged. An access point or
	// requester that is not the organization's is a *ValidationError keyed
	// "events[i].accessPointId" or "events[i].requestedBy", and nothing is
	// stored.
	IngestEvents(ctx context.Context, orgID uuid.UUID, events []NewEvent) (IngestResult, error)
	// ReadFeed returns the organization's events matching f (its filters
	// without Q, dates and ID; f.Limit set) after position after, in the
	// order they were stored: positions a transaction still in flight
	// could land before are never handed out, so following Next yields
	// each event exactly once. An unknown organization has an empty feed.
	// A position this database cannot have made (another backend's, or
	// one from before a restore from a dump) is an ErrInvalid keyed
	// "after".
	ReadFeed(ctx context.Context, orgID uuid.UUID, f EventFilter, after FeedPosition) (FeedPage, error)
	// FeedCursorCeiling returns where the feed stood (past every event
	// then stored) when this database began to hand out sealed feed
	// cursors (FeedCursors): every cursor of the first, unsealed form was
	// handed out at or before it. The feed's start on a database created
	// since.
	FeedCursorCeiling(ctx context.Context) (FeedPosition, error)
	// ListEvents returns a page of an organization's events matching f, in
	// the event order. f.Limit must be set. A q found in too many distinct
	// values reads a bounded number of events, so the page may be Partial
	// (SearchBudgets).
	ListEvents(ctx context.Context, orgID uuid.UUID, f EventFilter) (EventPage, error)

	WebhookStore
	PrivacyStore

	// CountEvents counts the organization's events matching f in buckets
	// of step from f.From to f.To (both must be set), by outcome: the
	// dashboard's chart.
	CountEvents(ctx context.Context, orgID uuid.UUID, f EventFilter, step time.Duration) ([]EventCount, error)

	// AppendAudit appends an entry that records no change of its own: a
	// failed sign-in. e.OrgID may be uuid.Nil (an email no organization
	// knows). ErrInvalid without an action.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// ListAuditEntries returns a page of an organization's audit log
	// matching f, newest first, then by id descending. f.Limit must be set.
	ListAuditEntries(ctx context.Context, orgID uuid.UUID, f AuditFilter) (AuditPage, error)

	// Secret returns the service secret that signs cursors and sessions,
	// generating and storing it on first use so that every instance on the
	// database shares it.
	Secret(ctx context.Context) ([]byte, error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// FindEvents is ListEvents with the exact-id rule of q: when q is a UUID and
// no cursor is given, the organization's event with that id (if it also
// matches the other filters) is returned alone; when there is none, the
// ordinary substring search runs, since a server job id may be a UUID too.
func FindEvents(ctx context.Context, s Store, orgID uuid.UUID, f EventFilter) (EventPage, error) {
	if f.After == nil && f.ID == nil {
		if id, err := ParseUUID(f.Q); err == nil {
			exact := f
			exact.ID, exact.Q = &id, ""
			page, err := s.ListEvents(ctx, orgID, exact)
			if err != nil || len(page.Events) > 0 {
				page.Next = nil
				return page, err
			}
		}
	}
	return s.ListEvents(ctx, orgID, f)
}

// SearchBudgets are the thresholds at which a store's search for q changes
// strategy. A store first finds the distinct values of the searched fields
// that contain q (its search terms, a small table per organization). When
// there are at most Terms of them, it reads each one's events through the
// index of its field, in keyset order, and merges them: the cost follows
// the number of terms, not of events. With several terms it first matches
// q on as many candidates in keyset order as reading every term's page
// would read (First at most), where common terms fill their page. When
// there are more than Terms terms (a short or very common q), it matches
// q on the candidates in keyset order, reading on for up to Max of them,
// and a page still not full is Partial. Stores set production values;
// tests lower them so that small datasets take every path.
type SearchBudgets struct {
	First, Max, Terms int
}
