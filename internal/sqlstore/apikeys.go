package sqlstore

import (
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
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
