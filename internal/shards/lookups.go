package shards

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// The lookups that come before an organization is known (a key, a session,
// an email, a record's id) ask every shard at once. A row counts only on
// the shard the directory places its organization on: a copy on another
// shard is not the organization's record.

// answer is one shard's answer to a question asked of every shard.
type answer[T any] struct {
	shard uuid.UUID
	main  bool
	value T
	err   error
}

// ask asks fn of every shard that answers, at once, and returns the
// channel of their answers, closed after the last, and whether some shard
// of the router has not answered since it started. The channel holds
// every answer: a caller may stop reading it.
func ask[T any](r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) (T, error)) (_ <-chan answer[T], missing bool) {
	shards, missing := r.answering()
	if missing {
		r.retry(ctx)
		shards, missing = r.answering()
	}
	answers := make(chan answer[T], len(shards))
	var wg sync.WaitGroup
	for _, s := range shards {
		wg.Go(func() {
			v, err := fn(ctx, s.db)
			answers <- answer[T]{shard: s.ID, main: s.Main, value: v, err: err}
		})
	}
	go func() {
		wg.Wait()
		close(answers)
	}()
	return answers, missing
}

// answering returns the shards that answer, and whether some has not
// answered since the router started.
func (r *Router) answering() (_ []Shard, missing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	shards := make([]Shard, 0, len(r.shards))
	for _, s := range r.shards {
		if s.db == nil {
			missing = true
			continue
		}
		shards = append(shards, *s)
	}
	return shards, missing
}

// everywhere asks fn of every shard that answers and returns every
// answer, and whether some shard has not answered since the router
// started.
func everywhere[T any](r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) (T, error)) (_ []answer[T], missing bool) {
	ch, missing := ask(r, ctx, fn)
	var answers []answer[T]
	for a := range ch {
		answers = append(answers, a)
	}
	return answers, missing
}

// errMissing is the error of a question some shard could not be asked.
var errMissing = fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, ErrShardUnknown)

// placedHere reports whether org lives on the shard of a: the directory
// places it there, or places it nowhere and a is --db's.
func (r *Router) placedHere(ctx context.Context, org, shard uuid.UUID, main bool) (bool, error) {
	e, err := r.dir.lookup(ctx, org, nil)
	if err != nil {
		return false, err
	}
	return e.Placed && e.Shard == shard || !e.Placed && main, nil
}

// findOne asks every shard for one record and returns it from the shard
// of its organization (orgOf) as soon as that shard answers: a primary
// slow to answer holds up only the records it holds. The questions still
// running are left to end on their own, not cancelled: pgx closes a
// connection whose query is cancelled, and dialling it again costs 20 ms
// on every lookup. gatehouse.ErrNotFound when no shard has it;
// gatehouse.ErrUnavailable when none has it but some shard did not
// answer, which may hold it.
func findOne[T any](r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) (T, error), orgOf func(T) uuid.UUID) (T, error) {
	answers, missing := ask(r, ctx, fn)
	var zero T
	var failed []error
	for a := range answers {
		switch {
		case errors.Is(a.err, gatehouse.ErrNotFound):
		case a.err != nil:
			failed = append(failed, a.err)
		default:
			here, err := r.placedHere(ctx, orgOf(a.value), a.shard, a.main)
			if err != nil {
				return zero, err
			}
			if here {
				return a.value, nil
			}
		}
	}
	if len(failed) > 0 {
		return zero, errors.Join(failed...)
	}
	if missing {
		return zero, fmt.Errorf("%w: not found on the shards that answer", errMissing)
	}
	return zero, gatehouse.ErrNotFound
}

// FindAPIKeyByHash implements gatehouse.Store.
func (r *Router) FindAPIKeyByHash(ctx context.Context, hash gatehouse.KeyHash) (gatehouse.APIKey, error) {
	return findOne(r, ctx, func(ctx context.Context, db *postgres.DB) (gatehouse.APIKey, error) {
		return db.FindAPIKeyByHash(ctx, hash)
	},
		func(k gatehouse.APIKey) uuid.UUID { return k.OrgID })
}

// signedIn is a session with its user.
type signedIn struct {
	session gatehouse.Session
	user    gatehouse.User
}

// FindSession implements gatehouse.Store.
func (r *Router) FindSession(ctx context.Context, tokenHash [32]byte, now time.Time) (gatehouse.Session, gatehouse.User, error) {
	s, err := findOne(r, ctx, func(ctx context.Context, db *postgres.DB) (signedIn, error) {
		s, u, err := db.FindSession(ctx, tokenHash, now)
		return signedIn{s, u}, err
	}, func(s signedIn) uuid.UUID { return s.user.OrgID })
	return s.session, s.user, err
}

// invited is an invitation with its user.
type invited struct {
	invitation gatehouse.Invitation
	user       gatehouse.User
}

// FindInvitation implements gatehouse.Store.
func (r *Router) FindInvitation(ctx context.Context, hash [32]byte) (gatehouse.Invitation, gatehouse.User, error) {
	i, err := findOne(r, ctx, func(ctx context.Context, db *postgres.DB) (invited, error) {
		inv, u, err := db.FindInvitation(ctx, hash)
		return invited{inv, u}, err
	}, func(i invited) uuid.UUID { return i.user.OrgID })
	return i.invitation, i.user, err
}

// erasureOwner is an organization's erasure integration, found by token.
type erasureOwner struct {
	org    uuid.UUID
	sealed []byte
}

// ErasureIntegrationByToken implements gatehouse.Store.
func (r *Router) ErasureIntegrationByToken(ctx context.Context, tokenHash [32]byte) (uuid.UUID, []byte, error) {
	o, err := findOne(r, ctx, func(ctx context.Context, db *postgres.DB) (erasureOwner, error) {
		org, sealed, err := db.ErasureIntegrationByToken(ctx, tokenHash)
		return erasureOwner{org, sealed}, err
	}, func(o erasureOwner) uuid.UUID { return o.org })
	return o.org, o.sealed, err
}

// orgOf finds the organization of a record by its id (fn) on every shard.
func (r *Router) orgOf(ctx context.Context, fn func(context.Context, *postgres.DB) (uuid.UUID, error)) (uuid.UUID, error) {
	return findOne(r, ctx, fn, func(org uuid.UUID) uuid.UUID { return org })
}

// OrgOfAPIKey implements gatehouse.Store.
func (r *Router) OrgOfAPIKey(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return r.orgOf(ctx, func(ctx context.Context, db *postgres.DB) (uuid.UUID, error) { return db.OrgOfAPIKey(ctx, id) })
}

// OrgOfLocation implements gatehouse.Store.
func (r *Router) OrgOfLocation(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return r.orgOf(ctx, func(ctx context.Context, db *postgres.DB) (uuid.UUID, error) { return db.OrgOfLocation(ctx, id) })
}

// OrgOfAccessPoint implements gatehouse.Store.
func (r *Router) OrgOfAccessPoint(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return r.orgOf(ctx, func(ctx context.Context, db *postgres.DB) (uuid.UUID, error) { return db.OrgOfAccessPoint(ctx, id) })
}

// OrgOfCommand implements gatehouse.Store.
func (r *Router) OrgOfCommand(ctx context.Context, id uuid.UUID) (uuid.UUID, error) {
	return r.orgOf(ctx, func(ctx context.Context, db *postgres.DB) (uuid.UUID, error) { return db.OrgOfCommand(ctx, id) })
}

// gather asks fn of every shard and returns the items of the
// organizations placed where they were found, in the order less gives.
// gatehouse.ErrUnavailable when a shard did not answer: a list that leaves
// out an organization would look complete.
func gather[T any](r *Router, ctx context.Context, fn func(context.Context, *postgres.DB) ([]T, error), orgOf func(T) uuid.UUID, less func(a, b T) int) ([]T, error) {
	answers, missing := everywhere(r, ctx, fn)
	if missing {
		return nil, errMissing
	}
	out := []T{}
	for _, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
		for _, v := range a.value {
			here, err := r.placedHere(ctx, orgOf(v), a.shard, a.main)
			if err != nil {
				return nil, err
			}
			if here {
				out = append(out, v)
			}
		}
	}
	slices.SortStableFunc(out, less)
	return out, nil
}

// FindUsersByEmail implements gatehouse.Store: the users of every
// organization with the email, oldest first.
func (r *Router) FindUsersByEmail(ctx context.Context, email string) ([]gatehouse.User, error) {
	return gather(r, ctx, func(ctx context.Context, db *postgres.DB) ([]gatehouse.User, error) {
		return db.FindUsersByEmail(ctx, email)
	},
		func(u gatehouse.User) uuid.UUID { return u.OrgID },
		func(a, b gatehouse.User) int {
			return cmp.Or(time.Time(a.CreatedAt).Compare(time.Time(b.CreatedAt)), slices.Compare(a.ID[:], b.ID[:]))
		})
}

// ListOrganizations implements gatehouse.Store: every organization,
// oldest first.
func (r *Router) ListOrganizations(ctx context.Context) ([]gatehouse.Organization, error) {
	return gather(r, ctx, func(ctx context.Context, db *postgres.DB) ([]gatehouse.Organization, error) {
		return db.ListOrganizations(ctx)
	},
		func(o gatehouse.Organization) uuid.UUID { return o.ID },
		func(a, b gatehouse.Organization) int {
			return cmp.Or(time.Time(a.CreatedAt).Compare(time.Time(b.CreatedAt)), slices.Compare(a.ID[:], b.ID[:]))
		})
}

// DeleteSession implements gatehouse.Store on the shard that holds the
// session. gatehouse.ErrUnavailable when it may be on a shard that does
// not answer: a sign-out must not look done while the session lives on.
func (r *Router) DeleteSession(ctx context.Context, tokenHash [32]byte, now time.Time) error {
	s, err := findOne(r, ctx, func(ctx context.Context, db *postgres.DB) (signedIn, error) {
		s, u, err := db.FindSession(ctx, tokenHash, now)
		return signedIn{s, u}, err
	}, func(s signedIn) uuid.UUID { return s.user.OrgID })
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		return nil // signed out already, or expired
	case err != nil:
		return err
	}
	return routed(r, ctx, method("Store.DeleteSession", s.user.OrgID, s.user.ID), func(ctx context.Context, db *postgres.DB) error {
		return db.DeleteSession(ctx, tokenHash, now)
	})
}

// CreateSession implements gatehouse.Store on the shard of the entry's
// organization or, for an entry that names none (setup code), on the
// shard that holds the user.
func (r *Router) CreateSession(ctx context.Context, e gatehouse.AuditEntry, s gatehouse.Session) error {
	org := e.OrgID
	if org == uuid.Nil {
		var err error
		if org, err = r.orgOf(ctx, func(ctx context.Context, db *postgres.DB) (uuid.UUID, error) { return db.OrgOfUser(ctx, s.UserID) }); err != nil {
			return err
		}
	}
	return routed(r, ctx, method("Store.CreateSession", org, s.UserID), func(ctx context.Context, db *postgres.DB) error { return db.CreateSession(ctx, e, s) })
}

// CountAPIKeysExpiring implements gatehouse.Store over every shard.
func (r *Router) CountAPIKeysExpiring(ctx context.Context, from, to time.Time) (int, error) {
	return summed(r, ctx, func(ctx context.Context, db *postgres.DB) (int, error) { return db.CountAPIKeysExpiring(ctx, from, to) })
}

// MarkAPIKeysUsed implements gatehouse.Store: each shard marks the keys
// it holds.
func (r *Router) MarkAPIKeysUsed(ctx context.Context, used map[uuid.UUID]time.Time) error {
	return each(r, ctx, func(ctx context.Context, db *postgres.DB) error { return db.MarkAPIKeysUsed(ctx, used) })
}

// CreateOrganization implements gatehouse.Store: the organization is
// placed (place) before it is created on its shard, so that no instance
// ever finds it where it does not live. The directory's row of a creation
// that failed is removed, and harmless if that fails too: it names an
// organization that does not exist.
func (r *Router) CreateOrganization(ctx context.Context, e gatehouse.AuditEntry, name string) (gatehouse.Organization, error) {
	o, err := sqlstore.NewOrganization(name, r.clock())
	if err != nil {
		return o, err
	}
	s, err := r.place(ctx)
	if err != nil {
		return o, err
	}
	if !s.Main {
		if err := r.main.PlaceOrganization(ctx, o.ID, s.ID); err != nil {
			return o, err
		}
	}
	created, err := s.db.CreateOrganizationAs(ctx, e, o)
	if err != nil && !s.Main {
		// The commit's answer may have been lost with its connection:
		// remove the entry only of an organization the shard does not
		// have. One left behind names nothing, and is harmless.
		ctx := context.WithoutCancel(ctx)
		if _, ferr := s.db.FindOrganization(ctx, o.ID); errors.Is(ferr, gatehouse.ErrNotFound) {
			r.main.UnplaceOrganization(ctx, o.ID)
		}
	}
	return created, err
}
