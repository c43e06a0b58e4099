package storetest

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

func randomFilter(rng *rand.Rand, f *fixture, w oracleWorld, worlds []oracleWorld) (gatehouse.EventFilter, int) {
	var flt gatehouse.EventFilter
	pick := func() bool { return rng.IntN(4) == 0 }
	if pick() {
		other := worlds[rng.IntN(len(worlds))] // sometimes another organization's: must match nothing
		flt.AccessPointID = &other.aps[rng.IntN(len(other.aps))].ID
	}
	if pick() {
		loc := w.locOf[w.aps[rng.IntN(len(w.aps))].ID]
		flt.LocationID = &loc.ID
	}
	if pick() {
		flt.Types = []gatehouse.EventType{gatehouse.EventTypes[rng.IntN(3)], gatehouse.EventTypes[rng.IntN(3)]}[:1+rng.IntN(2)]
	}
	if pick() {
		flt.Allowed = ptr([]gatehouse.Outcome{gatehouse.Granted, gatehouse.Denied}[rng.IntN(2)])
	}
	if pick() {
		flt.PlatformUserID = ptr([]string{"100", "1001", "10_0", "5%", "nobody"}[rng.IntN(5)])
	}
	if pick() {
		flt.Reason = ptr([]string{"OUTSIDE_SCHEDULE", "NOT_ON_ALLOWLIST", "BANNED"}[rng.IntN(3)])
	}
	if pick() {
		flt.Scope = &gatehouse.CommandScopes[rng.IntN(3)]
	}
	if pick() {
		// The reader's reach: up to two locations, sometimes another
		// organization's (which matches nothing), sometimes none (an
		// empty reach, which keeps nothing).
		flt.Within = gatehouse.Reach{}
		for range rng.IntN(3) {
			other := worlds[rng.IntN(len(worlds))]
			flt.Within = append(flt.Within, other.locOf[other.aps[rng.IntN(len(other.aps))].ID].ID)
		}
	}
	if rng.IntN(2) == 0 {
		e := w.events[rng.IntN(len(w.events))]
		if rng.IntN(8) == 0 {
			flt.Q = e.ID.String() // the exact-id path
			if rng.IntN(2) == 0 {
				flt.Q = strings.ToUpper(flt.Q)
			}
		} else {
			flt.Q = randomTerm(rng, e, w.shown[e.ID])
		}
	}
	if pick() {
		from := f.now.Add(-time.Duration(rng.IntN(30)) * time.Minute)
		flt.From = &from
	}
	if pick() {
		to := f.now.Add(-time.Duration(rng.IntN(30))*time.Minute + time.Duration(rng.IntN(1000))*time.Millisecond)
		flt.To = &to
	}
	return flt, []int{1, 2, 3, 7, 50, 500}[rng.IntN(6)]
}

// randomTerm is a piece of one of the event's searched fields or of its
// id, a prefix of its id (with or without hyphens, at least four digits
// or fewer), or a word of the vocabulary, in random case.
func randomTerm(rng *rand.Rand, e gatehouse.NewEvent, shown shownNames) string {
	if rng.IntN(5) == 0 {
		id := e.ID.String()
		if rng.IntN(2) == 0 {
			id = strings.ReplaceAll(id, "-", "")
		}
		return randomCase(rng, []rune(id[:2+rng.IntN(len(id)-2)]))
	}
	fields := []string{e.ID.String(), shown.accessPoint, shown.location, oracleWords[rng.IntN(len(oracleWords))]}
	for _, p := range []*string{e.PlatformUserID, e.ServerJobID, e.Reason} {
		if p != nil {
			fields = append(fields, *p)
		}
	}
	r := []rune(fields[rng.IntN(len(fields))])
	start := rng.IntN(len(r))
	return randomCase(rng, r[start:start+1+rng.IntN(min(len(r)-start, 8))])
}

func randomCase(rng *rand.Rand, term []rune) string {
	for i := range term {
		if rng.IntN(2) == 0 {
			term[i] = []rune(strings.ToUpper(string(term[i])))[0]
		}
	}
	return string(term)
}

// describe writes a filter as the query string of the request.
func describe(f gatehouse.EventFilter) string {
	v := url.Values{}
	if f.AccessPointID != nil {
		v.Set("accessPointId", f.AccessPointID.String())
	}
	if f.LocationID != nil {
		v.Set("locationId", f.LocationID.String())
	}
	for _, t := range f.Types {
		v.Add("type", string(t))
	}
	if f.Allowed != nil {
		v.Set("allowed", string(*f.Allowed))
	}
	if f.PlatformUserID != nil {
		v.Set("platformUserId", *f.PlatformUserID)
	}
	if f.Reason != nil {
		v.Set("reason", *f.Reason)
	}
	if f.Scope != nil {
		v.Set("scope", string(*f.Scope))
	}
	if f.Q != "" {
		v.Set("q", f.Q)
	}
	if f.From != nil {
		v.Set("dateFrom", gatehouse.FormatTime(*f.From))
	}
	if f.To != nil {
		v.Set("dateTo", gatehouse.FormatTime(*f.To))
	}
	if f.Within != nil {
		// Not a parameter: the reach of the actor reading, named so that
		// a failure shows it.
		within := make([]string, len(f.Within))
		for i, id := range f.Within {
			within[i] = id.String()
		}
		v.Set("within", "["+strings.Join(within, ",")+"]")
	}
	return v.Encode()
}
