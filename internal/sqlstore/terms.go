package sqlstore

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TermField is a searched field of events, as search_terms.field stores it.
type TermField int16

// The searched fields. The event id is not among them: q matches it by
// prefix, through the id index (gatehouse.IDPrefix).
const (
	TermPlatformUser TermField = 1 + iota
	TermAccessPoint            // Ref is the access point the name is of
	TermLocation               // Ref is the location
	TermReason
	TermServerJob
)

// Term is one distinct value of a searched field in an organization: q is
// matched against terms, a table of thousands of rows where the event log
// has millions, and the events of each matching term are then read
// through the index of its field. A name is a term together with the id
// of what it names, since events keep the name they were recorded with:
// an access point renamed has two terms, each reading its own events.
type Term struct {
	Field TermField
	Ref   uuid.UUID // the access point or location of a name; uuid.Nil otherwise
	Value string
}

// Folded is the term's value as q is matched against it.
func (t Term) Folded() string { return gatehouse.FoldCase(t.Value) }

func compareTerms(a, b Term) int {
	if c := cmp.Compare(a.Field, b.Field); c != 0 {
		return c
	}
	if c := slices.Compare(a.Ref[:], b.Ref[:]); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

// AppendTerms appends the terms an event stored at p shows. Empty values
// are no terms: no q is found in them.
func AppendTerms(dst []Term, ev gatehouse.NewEvent, p Place) []Term {
	add := func(f TermField, ref uuid.UUID, v string) {
		if v != "" {
			dst = append(dst, Term{Field: f, Ref: ref, Value: v})
		}
	}
	opt := func(f TermField, v *string) {
		if v != nil {
			add(f, uuid.Nil, *v)
		}
	}
	opt(TermPlatformUser, ev.PlatformUserID)
	add(TermAccessPoint, ev.AccessPointID, p.AccessPointName)
	add(TermLocation, p.LocationID, p.LocationName)
	opt(TermReason, ev.Reason)
	opt(TermServerJob, ev.ServerJobID)
	return dst
}

// termCacheSize is the number of terms a cache generation holds: a
// million-player organization's ids do not fit, and need not; the terms
// in use do, and a term the cache forgot costs one more conflicting insert.
const termCacheSize = 100_000

// termCacheAge is how long the cache trusts what it holds: erasure and
// retention delete terms, of which other instances' caches know nothing,
// so every term is written again (a conflicting insert) at most this
// long after it was deleted, if events still bring it.
const termCacheAge = 5 * time.Minute

// TermCache remembers which terms this instance knows to be stored, so that
// ingest writes a term the first time it sees it rather than with every
// event: a known term costs a map lookup. Its memory is bounded in size
// and age (see generations). It is safe for concurrent use; the zero
// value is ready.
type TermCache struct {
	mu    sync.Mutex
	terms generations[orgTerm, struct{}]
}

type orgTerm struct {
	org int64
	Term
}

// Missing returns the terms among terms that the cache does not hold, each
// once, sorted: every transaction inserts terms in this one order, so two
// that insert the same new terms never wait for each other in a cycle.
func (c *TermCache) Missing(org int64, terms []Term) []Term {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.terms.age()
	var missing []Term
	for _, t := range terms {
		if _, ok := c.terms.get(orgTerm{org, t}); !ok {
			missing = append(missing, t)
		}
	}
	slices.SortFunc(missing, compareTerms)
	return slices.CompactFunc(missing, func(a, b Term) bool { return a == b })
}

// Add records terms that a committed transaction stored (or found stored).
func (c *TermCache) Add(org int64, terms []Term) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range terms {
		c.terms.put(orgTerm{org, t}, struct{}{})
	}
}

// Forget drops a term this instance deleted (erasure, retention).
func (c *TermCache) Forget(org int64, t Term) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.terms.forget(orgTerm{org, t})
}
