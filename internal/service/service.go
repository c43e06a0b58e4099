// Package service is where every operation of Gatehouse happens: the
// [Service] and its methods, which the API, the dashboard and the CLI call,
// and everything that runs beside them: the loops of commands, webhooks,
// retention and statistics, the caches, the read slots, the decision
// recorder and the wakes of waiting syncs. It works on the nouns of the
// root package and reaches the records only through [gatehouse.Store].
package service

import (
	"context"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Service is the one place where an operation of Gatehouse happens. The
// API, the dashboard and the CLI parse their input, call one method, and
// render its answer or its error; none of them reaches the
// [gatehouse.Store].
//
// The service checks every input by the root package's rules, and owns
// ids and times, cursor signing, key generation and tenant checks. Every method that touches an
// organization's records takes the organization first, and a record of
// another organization behaves exactly like an unknown one
// ([gatehouse.ErrNotFound]).
//
// Who acts is carried in the context ([gatehouse.WithActor]):
//   - a dashboard user: every method checks the user's role against the
//     permission it needs ([gatehouse.Role.Can]) before anything else, and
//     refuses with [gatehouse.ErrForbidden] (hiding a button is only a
//     courtesy); a user acting on another organization gets
//     [gatehouse.ErrNotFound];
//   - the CLI acts as the system, which may do everything;
//   - an API key is bounded by its scopes, checked by the API.
//
// Every change appends an audit entry naming that actor. The entry is built
// here and handed to the [gatehouse.Store] method of the change, which
// appends it in the same transaction: a change that fails leaves no entry.
type Service struct {
	store    gatehouse.Store
	cursors  *gatehouse.Cursors
	sessions *gatehouse.Sessions
	// feedCursors seal feed positions.
	feedCursors *gatehouse.FeedCursors
	hasher      PasswordHasher
	signIns     SignInLimiter
	codes       SignInLimiter
	seen        seenSessions
	now         func() time.Time
	dummy       func() (string, error)
	// wakes wakes this instance's waiting syncs; ending closes when
	// the instance stops ([Service.EndPolls]).
	wakes  *Wakes
	ending chan struct{}
	// takes gathers the takes of syncs woken together.
	takes   takes
	endOnce sync.Once
	// publish pushes an issued command to the platform's messaging
	// (nil: not configured).
	publish CommandPublisher
	// sealer seals messaging keys; made from [gatehouse.Store.Secret] on
	// first use (see [Service.sealing]), guarded by sealMu.
	sealMu sync.Mutex
	sealer *gatehouse.Sealer
	// recorder stores recorded decisions with group commit; compiled
	// and policySets keep what deciding and syncing read often.
	recorder         *recorder
	compiled         compiledPolicies
	policySets       policySets
	encodedSets      encodedSets
	decisionContexts decisionContexts
	// keptGrants keeps the organizations' live grants for decisions
	// and syncs.
	keptGrants grantKeeper
	// answered remembers the grants each server was last answered.
	answered answeredGrants
	// webhooks configures the delivery of webhooks; retention the
	// deletion of expired events.
	webhooks  WebhookSettings
	retention RetentionSettings
	// alerts configures the evaluation and delivery of alert rules.
	alerts AlertSettings
	// provider is the OpenID provider of sign-ins (nil: none).
	provider IdentityProvider
}

// Config is what [New] needs. Store is required; Hasher is required by the
// user and sign-in methods.
type Config struct {
	Store gatehouse.Store
	// Secret signs cursors and sessions (see [gatehouse.Store.Secret]). A
	// service that signs neither (an operator's CLI command) may leave it
	// empty.
	Secret []byte
	// Hasher hashes and checks dashboard passwords.
	Hasher PasswordHasher
	// SignInLimiter bounds failed sign-ins; nil allows every attempt.
	SignInLimiter SignInLimiter
	// SecondFactorLimiter bounds the wrong codes of second factors, by
	// user (its id in place of an email) and network; nil allows every
	// attempt.
	SecondFactorLimiter SignInLimiter
	// Now is the clock; it defaults to time.Now.
	Now func() time.Time
	// Publisher pushes issued commands to the platform's messaging for
	// the universes that configured it; nil publishes nothing.
	Publisher CommandPublisher
	// Webhooks configures webhook endpoints and their delivery.
	Webhooks WebhookSettings
	// Retention configures the deletion of expired events.
	Retention RetentionSettings
	// Alerts configures alert rules: their links and their delivery.
	Alerts AlertSettings
	// Provider is the OpenID provider dashboard users may sign in
	// through (internal/sso); nil: none.
	Provider IdentityProvider
}

// CommandPublisher pushes an issued command to the platform's messaging
// (Open Cloud): best effort, in the background, never failing the
// command. The service calls it after the command is stored.
type CommandPublisher interface {
	Publish(ctx context.Context, orgID uuid.UUID, c gatehouse.Command)
}

// PasswordHasher hashes dashboard passwords and checks them. Verify waits
// for a hashing slot until ctx ends and then returns an error matching
// [gatehouse.ErrHashBusy]; it never reports a match for a hash it cannot
// read.
type PasswordHasher interface {
	Hash(password string) (string, error)
	Verify(ctx context.Context, password, encoded string) (bool, error)
}

// SignInLimiter reserves one failed sign-in for the email and the client
// network before a password is checked. allowed false means the limit is
// spent and wait says for how long; refund gives the reservation back
// (the attempt succeeded, or was never tried).
type SignInLimiter func(ctx context.Context, email, clientNetwork string) (refund func(context.Context), wait time.Duration, allowed bool)

// New returns the service on cfg.Store.
func New(cfg Config) *Service {
	s := &Service{store: cfg.Store, cursors: gatehouse.NewCursors(cfg.Secret), sessions: gatehouse.NewSessions(cfg.Secret), feedCursors: gatehouse.NewFeedCursors(cfg.Secret),
		hasher: cfg.Hasher, signIns: cfg.SignInLimiter, codes: cfg.SecondFactorLimiter, now: cfg.Now,
		wakes: NewWakes(), ending: make(chan struct{}), publish: cfg.Publisher,
		recorder: &recorder{store: cfg.Store, writers: storeWriters(cfg.Store)}, webhooks: cfg.Webhooks, retention: cfg.Retention, alerts: cfg.Alerts, provider: cfg.Provider}
	s.webhooks.defaults()
	s.alerts.defaults()
	s.retention.defaults()
	if s.now == nil {
		s.now = time.Now
	}
	for _, l := range []*SignInLimiter{&s.signIns, &s.codes} {
		if *l == nil {
			*l = func(context.Context, string, string) (func(context.Context), time.Duration, bool) {
				return func(context.Context) {}, 0, true
			}
		}
	}
	// The hash an unknown email is checked against costs a full argon2id
	// run (64 MiB): made on the first sign-in of an unknown email, never
	// by a process that signs no one in (every CLI command).
	s.dummy = sync.OnceValues(func() (string, error) {
		return s.hasher.Hash("gatehouse: no such user")
	})
	return s
}

// Ping reports whether the database answers: [gatehouse.ErrUnavailable]
// when not.
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// Now is the service's clock, truncated as Gatehouse stores times.
func (s *Service) Now() time.Time { return gatehouse.Truncate(s.now()) }
