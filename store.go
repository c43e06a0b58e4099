package gatehouse

import (
	"context"
	"time"
)

// Store persists Gatehouse's records. Every method that reads or writes an
// organization's data takes the organization id and applies it before
// anything else, so no filter or id can reach another organization's rows:
// a foreign id behaves exactly like an unknown one.
//
// A Store is persistence only: the doors (API, dashboard, CLI) reach it
// through the service (internal/service), which checks every input by the
// rules of this package and owns ids, times and tenant checks.
//
// Every method that changes records takes the [AuditEntry] of the change,
// built by the service, and appends it in the transaction of the change,
// completed with the organization and the record ([AuditEntry.Of]):
//   - a change that fails leaves no entry, and none is stored unrecorded;
//   - an entry without an action is [ErrInvalid];
//   - a method that changes nothing (revoking a revoked key, setting the
//     role a user has) appends nothing.
//
// Store is made of parts, one interface and one file each (store_*.go).
//
// Implementations: internal/sqlite (embedded default) and
// internal/postgres. Their shared behaviour is specified by
// internal/storetest.
type Store interface {
	OrganizationStore
	LocationStore
	IdentityStore
	PolicyStore
	EventStore
	CommandStore
	MessagingStore
	WebhookStore
	PrivacyStore
	AuditStore
	AlertStore
	GrantStore
	LockdownStore

	// TryLease takes or renews the lease name for holder until now+ttl,
	// and reports whether holder has it: another holder's unexpired lease
	// is kept. Background work that every instance runs takes a lease so
	// that one instance at a time does it.
	TryLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error)
	// Secret returns the service secret that signs cursors and sessions,
	// generating and storing it on first use so that every instance on the
	// database shares it.
	Secret(ctx context.Context) ([]byte, error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}
