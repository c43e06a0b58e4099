package gatehouse

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The error values every Store method and service wraps. The HTTP layer maps
// them to status codes in one table; anything else is an internal error.
var (
	// ErrNotFound: the record does not exist in the caller's organization.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the input broke a rule; a *[ValidationError] says which.
	ErrInvalid = errors.New("invalid input")
	// ErrConflict: the record clashes with one that exists (a duplicate name or email).
	ErrConflict = errors.New("conflict")
	// ErrForbidden: the actor's role does not allow the action.
	ErrForbidden = errors.New("your role does not allow this")
	// ErrKeyNotChangeable: an API key asked to change a key it may not:
	// itself, or a key that manages keys too (see [APIKey.ChangeableBy]).
	// ErrOutsideReach: an actor limited to locations (a role or a key;
	// see Reach) asked what concerns the whole organization, or more
	// than its locations. It is an [ErrForbidden].
	ErrOutsideReach     = fmt.Errorf("this concerns more than the locations you are limited to: %w", ErrForbidden)
	ErrKeyNotChangeable = fmt.Errorf("an API key changes neither itself nor a key with keys:write: %w", ErrForbidden)
	// ErrUnavailable: a dependency (the database) cannot answer now; retrying later may work.
	ErrUnavailable = errors.New("service unavailable")
	// ErrBusy: the organization already has as many reads in flight as
	// ReadSlots allow; retrying shortly may work. It is an [ErrUnavailable],
	// so a door that does not tell them apart still answers "retry".
	ErrBusy = fmt.Errorf("too many reads of the organization at once: %w", ErrUnavailable)
	// ErrTooMany: a limit on attempts is spent; a *[RetryError] says when
	// to try again.
	ErrTooMany = errors.New("too many attempts")
	// ErrSignInLimited: too many failed sign-ins for the email or from the
	// client's network. It is an [ErrTooMany].
	ErrSignInLimited = fmt.Errorf("too many failed sign-ins: %w", ErrTooMany)
	// ErrHashBusy: every password-hashing slot stayed busy; nothing was
	// tried. It is an [ErrTooMany].
	ErrHashBusy = fmt.Errorf("too many sign-ins at once: %w", ErrTooMany)
	// ErrUnreadable: a stored record cannot be decoded (written by a
	// version that accepted what this one cannot read, or edited in the
	// database). It fails what needs that record only: lists and sets
	// skip it and say so, and replacing it (a policy: PUT) repairs it.
	ErrUnreadable = errors.New("a stored record cannot be read")
	// ErrUnknownUniverse: a game server synced for a universe that none
	// of the organization's locations names. It is an [ErrNotFound].
	ErrUnknownUniverse = fmt.Errorf("no location of the organization names the universe: %w", ErrNotFound)
	// ErrUniverseFull: the change would put more than
	// MaxUniverseAccessPoints access points in one universe.
	ErrUniverseFull = errors.New("the universe holds the most access points it may")
	// ErrUniverseTooLarge: the change would put more than
	// MaxUniversePolicyBytes of policies in one universe.
	ErrUniverseTooLarge = errors.New("the universe's policies would be over their bound")
	// ErrTooManyServers: a server's first sync when its organization
	// holds as many servers, or players on them, as its caps allow
	// (OrgServerCaps). It is an [ErrConflict].
	ErrTooManyServers = fmt.Errorf("the organization holds as many game servers or players as it may: %w", ErrConflict)
	// ErrInvitationExpired: an invitation link past its expiry; an admin
	// of the organization makes a new one.
	ErrInvitationExpired = fmt.Errorf("the invitation link has expired; ask an admin of the organization for a new one: %w", ErrNotFound)
	// ErrEmailNotVerified: the OpenID provider does not say the person
	// owns the email it gives, which a sign-in through it needs.
	ErrEmailNotVerified = errors.New("the identity provider has not verified the email")
	// ErrProviderRequired: a password sign-in (or a password chosen
	// through an invitation) of a user whose organization signs in
	// through the OpenID provider only. It is an [ErrForbidden].
	ErrProviderRequired = fmt.Errorf("the organization signs in through its identity provider: %w", ErrForbidden)
	// ErrProviderSignInFailed: a sign-in through the OpenID provider
	// that did not come back as it began (another browser's, expired,
	// a state or nonce of another flow), or whose code or ID token the
	// provider's keys and rules refuse.
	ErrProviderSignInFailed = errors.New("the sign-in through the identity provider failed")
	// ErrNoProvider: no OpenID provider is configured (--oidc-issuer).
	ErrNoProvider = errors.New("no identity provider is configured")
	// ErrBadCredentials: the email and password of a sign-in do not match
	// (an unknown email included: the two are not told apart).
	ErrBadCredentials = errors.New("the email and password do not match")
	// ErrLockdownActive: a remote unlock of an access point a running
	// lockdown covers. It is an [ErrConflict].
	ErrLockdownActive = fmt.Errorf("a lockdown covers the access point: %w", ErrConflict)
)

// ConflictError is an [ErrConflict] that says which field clashed and how:
// an Idempotency-Key reused with another request, a command already
// settled.
type ConflictError struct {
	Field, Message string
}

func (e *ConflictError) Error() string        { return e.Field + " " + e.Message }
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// ScopeError is an [ErrForbidden] for an API key that lacks a scope an
// operation needs beyond its route's. For example, creating, changing or
// replaying a webhook endpoint that receives events needs events:read as
// well as webhooks:write. The API answers it as it answers a route's
// missing scope: 403 insufficient_scope, with the scope in
// WWW-Authenticate.
type ScopeError struct {
	Scope  Scope
	Reason string
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("this API key lacks the %s scope %s", e.Scope, e.Reason)
}
func (e *ScopeError) Is(target error) bool { return target == ErrForbidden }

// RequireKeyScope refuses, with a *ScopeError, an API key acting without
// scope; users and the system are judged by their roles instead.
func RequireKeyScope(a Actor, scope Scope, reason string) error {
	if a.Type == ActorKey && !slices.Contains(a.Scopes, scope) {
		return &ScopeError{Scope: scope, Reason: reason}
	}
	return nil
}

// ErrChooseOrganization: a sign-in's password matched users of several
// organizations; a *ChoiceError lists them.
var ErrChooseOrganization = errors.New("choose an organization")

// ChoiceError is a sign-in that matched users of several organizations:
// the person picks one, and service.Service.ChooseSignIn signs that user in.
type ChoiceError struct {
	// Token proves the password was checked; it lasts ChoiceLifetime.
	Token   string
	Choices []SignInChoice
}

// SignInChoice is one user a sign-in may continue as.
type SignInChoice struct {
	User         User
	Organization Organization
}

func (e *ChoiceError) Error() string { return ErrChooseOrganization.Error() }

// ErrInvitationsWaiting: a sign-in through the OpenID provider of an
// email that organizations invited; see [InvitationsError].
var ErrInvitationsWaiting = errors.New("organizations invited the email")

// InvitationsError is a sign-in through the OpenID provider of an email
// that organizations invited: the person, shown them, picks one to join
// or goes on without, each by a form that carries Token (the email, as
// the provider verified it, signed for minutes). Nothing is joined that
// the person did not pick there.
type InvitationsError struct {
	Token       string
	Email       string
	Invitations []SignInChoice
	// Members is how many organizations the email is a member of: with
	// none, there is nothing to go on to.
	Members int
}

func (e *InvitationsError) Error() string { return ErrInvitationsWaiting.Error() }

// Unwrap returns [ErrInvitationsWaiting].
func (e *InvitationsError) Unwrap() error { return ErrInvitationsWaiting }

// Unwrap returns [ErrChooseOrganization].
func (e *ChoiceError) Unwrap() error { return ErrChooseOrganization }

// ErrSecondFactorNeeded: a sign-in's password matched a user who
// enrolled a second factor; a *SecondFactorError carries what the code
// is given with.
var ErrSecondFactorNeeded = errors.New("the code of the second factor is needed")

// SecondFactorError is a sign-in whose password matched, waiting for the
// code of the user's second factor: service.Service.SignInSecondFactor
// takes the code with Token.
type SecondFactorError struct {
	// Token proves the password was checked; it lasts SecondStepLifetime.
	Token string
}

func (e *SecondFactorError) Error() string { return ErrSecondFactorNeeded.Error() }

// Unwrap returns [ErrSecondFactorNeeded].
func (e *SecondFactorError) Unwrap() error { return ErrSecondFactorNeeded }

// RetryError is an [ErrTooMany] with the wait before a retry may pass.
type RetryError struct {
	After time.Duration
	Err   error
}

func (e *RetryError) Error() string { return e.Err.Error() }

// Unwrap returns the error being retried ([ErrSignInLimited], [ErrHashBusy]).
func (e *RetryError) Unwrap() error { return e.Err }

// ValidationError lists every problem with an input at once, keyed by the
// field (query parameter, JSON path such as events[3].occurredAt, or flag).
// It matches [ErrInvalid] with errors.Is.
type ValidationError struct {
	Issues map[string][]string
}

// Add records one problem with field. Both are echoed to whoever sent the
// input (an error body, a page, the CLI's output) and may quote it, a
// field name or a value, so anything key-shaped in them is cut by Redact.
func (e *ValidationError) Add(field, format string, args ...any) {
	if e.Issues == nil {
		e.Issues = make(map[string][]string)
	}
	field = Redact(field)
	e.Issues[field] = append(e.Issues[field], Redact(fmt.Sprintf(format, args...)))
}

// Merge adds every issue of other under the path prefix: field "x" becomes
// "prefix.x", and field "" (the value itself) becomes "prefix".
func (e *ValidationError) Merge(prefix string, other *ValidationError) {
	if other == nil {
		return
	}
	for field, msgs := range other.Issues {
		path := prefix
		switch {
		case prefix == "":
			path = field
		case field != "":
			path = prefix + "." + field
		}
		for _, m := range msgs {
			e.Add(path, "%s", m)
		}
	}
}

// Absorb adds the issues of err under prefix, as [ValidationError.Merge]
// does, when err is a *[ValidationError]; any other err adds nothing. It
// leaves out an issue when e reports already:
//   - its field, or a value that holds it ([ValidationError.Reported]);
//   - for a list entry (a path ending in "]"), a field of the entry.
//
// So a value that could not be read is not reported again as missing or
// wrong: a gamepassId sent as a number is reported, and not also the
// allow rule it leaves without a criterion.
func (e *ValidationError) Absorb(prefix string, err error) {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var fresh ValidationError
	for field, msgs := range ve.Issues {
		path := field
		if prefix != "" {
			path = prefix + "." + field
			if field == "" {
				path = prefix
			}
		}
		if e.Reported(path) || strings.HasSuffix(path, "]") && e.reportedUnder(path) {
			continue
		}
		for _, m := range msgs {
			fresh.Add(field, "%s", m)
		}
	}
	e.Merge(prefix, &fresh)
}

// Reported reports whether e has an issue of path, or of a value that
// holds it (acks[2] for acks[2].result, "" for the whole input).
func (e *ValidationError) Reported(path string) bool {
	if e.Issues[""] != nil {
		return true
	}
	for p := path; ; {
		if e.Issues[p] != nil {
			return true
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			return false
		}
		p = p[:i]
	}
}

// reportedUnder reports whether e has an issue of a part of path
// (allow[2].gamepassId under allow[2]).
func (e *ValidationError) reportedUnder(path string) bool {
	for field := range e.Issues {
		if rest, ok := strings.CutPrefix(field, path); ok && rest != "" && (rest[0] == '.' || rest[0] == '[') {
			return true
		}
	}
	return false
}

// Err returns e when it holds an issue, and nil otherwise.
func (e *ValidationError) Err() error {
	if e == nil || len(e.Issues) == 0 {
		return nil
	}
	return e
}

// Error lists the issues in field order, e.g. "limit: must be between 1 and 500".
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, field := range slices.Sorted(maps.Keys(e.Issues)) {
		if i > 0 {
			b.WriteString("; ")
		}
		if field != "" {
			b.WriteString(field)
			b.WriteString(": ")
		}
		b.WriteString(strings.Join(e.Issues[field], ", "))
	}
	return b.String()
}

// Is reports that a [ValidationError] is an [ErrInvalid].
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Invalid returns a *[ValidationError] holding one issue.
func Invalid(field, format string, args ...any) error {
	var e ValidationError
	e.Add(field, format, args...)
	return &e
}

// AsValidation returns err's *ValidationError, or nil.
func AsValidation(err error) *ValidationError {
	ve, _ := err.(*ValidationError)
	return ve
}

// StoreError is the error of a [Store] method that failed for a reason the
// request did not make: the database unavailable, a row unreadable, the
// driver's own error. It names the method and the ids it acted on, the
// organization first, so that the one log line of a failure says where:
//
//	Store.ListEvents(0190c1e2-…): sql: database is closed
//
// Text a client reads leaves the label out: see [ErrorText].
type StoreError struct {
	// Op is the method, such as "Store.ListEvents".
	Op string
	// IDs are the ids it acted on, the organization first.
	IDs []uuid.UUID
	Err error
}

func (e *StoreError) Error() string { return e.label() + ": " + e.Err.Error() }

func (e *StoreError) Unwrap() error { return e.Err }

// label is "Op(id, id)".
func (e *StoreError) label() string {
	var b strings.Builder
	b.Grow(len(e.Op) + 2 + len(e.IDs)*38)
	b.WriteString(e.Op)
	b.WriteByte('(')
	for i, id := range e.IDs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id.String())
	}
	b.WriteByte(')')
	return b.String()
}

// ErrorText is err's text without the labels of the store methods it
// passed through ([StoreError]): what a client may read, such as why a
// webhook delivery failed. The log keeps the labels.
func ErrorText(err error) string {
	text := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if se, ok := e.(*StoreError); ok {
			text = strings.Replace(text, se.label()+": ", "", 1)
		}
	}
	return text
}
