package sqlstore

import (
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// RateColumns are the columns that store a key's own rate limit, both
// NULL when it has none.
func RateColumns(r *gatehouse.Rate) (count, perMillis *int64) {
	if r == nil {
		return nil, nil
	}
	c, p := int64(r.Count), r.Per.Milliseconds()
	return &c, &p
}

// KeyFields decodes a key's stored scopes (comma-separated) and rate
// limit columns.
func KeyFields(scopes string, count, perMillis *int64) ([]gatehouse.Scope, *gatehouse.Rate) {
	var s []gatehouse.Scope
	for sc := range strings.SplitSeq(scopes, ",") {
		s = append(s, gatehouse.Scope(sc))
	}
	if count == nil || perMillis == nil {
		return s, nil
	}
	return s, &gatehouse.Rate{Count: int(*count), Per: time.Duration(*perMillis) * time.Millisecond}
}

// SameRate reports whether two keys' own rates are the same, both nil
// (the server's) included.
func SameRate(a, b *gatehouse.Rate) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ReachColumn is how a reach is stored (users.reach, api_keys.reach):
// its location ids comma-separated, or NULL for the whole organization.
func ReachColumn(r gatehouse.Reach) *string {
	if r == nil {
		return nil
	}
	ids := make([]string, len(r))
	for i, id := range r {
		ids[i] = id.String()
	}
	s := strings.Join(ids, ",")
	return &s
}

// ReachOf decodes a stored reach. A value that is not a list of ids
// (never written by Gatehouse) reaches the nil location, so nothing:
// a stored limit is never read as the whole organization.
func ReachOf(col *string) gatehouse.Reach {
	if col == nil {
		return nil
	}
	r := gatehouse.Reach{}
	for s := range strings.SplitSeq(*col, ",") {
		id, _ := uuid.Parse(s) // uuid.Nil when malformed
		r = append(r, id)
	}
	return r
}
