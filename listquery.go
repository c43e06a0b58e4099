package gatehouse

import (
	"errors"
	"net/url"
	"slices"
	"strings"
)

// listQuery reads the query of a keyset-paged list (commands, the audit
// log) the same way for each: an empty value counts as absent, every
// parameter may appear once, and every problem lands in errs, keyed by
// parameter, so that all are reported at once.
type listQuery struct {
	v    url.Values
	errs *ValidationError
}

// newListQuery starts reading v, reporting every parameter not in known.
func newListQuery(v url.Values, known []string, errs *ValidationError) listQuery {
	for name := range v {
		if !slices.Contains(known, name) {
			errs.Add(Redact(name), "is not a parameter of this endpoint (known: %s)", strings.Join(known, ", "))
		}
	}
	return listQuery{v: v, errs: errs}
}

// one returns the value of name and whether it was given, reporting a
// parameter given more than once.
func (q listQuery) one(name string) (string, bool) {
	vals := slices.DeleteFunc(slices.Clone(q.v[name]), func(s string) bool { return s == "" })
	if len(vals) > 1 {
		q.errs.Add(name, "must be given at most once")
		return "", false
	}
	return strings.Join(vals, ""), len(vals) == 1
}

// limit reads the limit parameter (DefaultLimit when absent or bad).
func (q listQuery) limit() int {
	return parseLimit(q.errs, q.v)
}

// openListCursor opens the cursor parameter, if given, as a cursor of
// kind signed for digest, and decodes the position it carries; it returns
// nil when there is none or on a problem. Call it after every filter is
// read: with other problems the filters, and so the digest, are not
// known, and only a forged cursor can still be told.
func openListCursor[K any](q listQuery, cursors *Cursors, kind byte, digest [8]byte, decode func([]byte) (K, error)) *K {
	s, ok := q.one(paramCursor)
	if !ok {
		return nil
	}
	b, err := cursors.Open(s, kind, digest)
	if err == nil {
		var key K
		if key, err = decode(b); err == nil {
			return &key
		}
	}
	if len(q.errs.Issues) == 0 || errors.Is(err, ErrCursorInvalid) {
		q.errs.Add(paramCursor, "%s", err.Error())
	}
	return nil
}
