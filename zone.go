package gatehouse

import (
	"time"
)

// ZoneOffset is one period of a time zone: from From (inclusive) until the
// next period's From, local time is UTC plus OffsetSeconds. A game server
// has no time-zone database, so the policy set ships its zones as these
// periods and the SDK turns an instant into wall-clock time from them.
type ZoneOffset struct {
	From          Time `json:"from"`
	OffsetSeconds int  `json:"offsetSeconds"`
}

// ZoneOffsets returns the periods of the IANA zone name that overlap
// [from, to), oldest first: the first is the period containing from (its
// From is that period's start, or from itself when the zone has had one
// offset for ever), and each next one starts where the offset changes. A
// change of the zone's abbreviation alone starts no period. A fixed zone
// (Asia/Tokyo today, UTC) is one period. An error when the zone is unknown.
func ZoneOffsets(name string, from, to time.Time) ([]ZoneOffset, error) {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	t := from.In(loc)
	start, end := t.ZoneBounds()
	if start.IsZero() {
		start = from
	}
	_, offset := t.Zone()
	out := []ZoneOffset{{From: Time(start.UTC()), OffsetSeconds: offset}}
	for !end.IsZero() && end.Before(to) {
		t = end.In(loc)
		_, offset = t.Zone()
		if offset != out[len(out)-1].OffsetSeconds {
			out = append(out, ZoneOffset{From: Time(end.UTC()), OffsetSeconds: offset})
		}
		_, end = t.ZoneBounds()
	}
	return out, nil
}

// zoneWindow is the span of instants a policy set's zones cover when the
// set is made at now: from 00:00 UTC on January 1 of now's year to
// January 1 of the year after next. It moves once a year, so the set's
// version does too and not with every call, and a server that holds a set
// across New Year still has the whole next year.
func zoneWindow(now time.Time) (from, to time.Time) {
	y := now.UTC().Year()
	return time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC), time.Date(y+2, time.January, 1, 0, 0, 0, 0, time.UTC)
}

// ZoneSource returns the periods of zone name from from to to, as
// [ZoneOffsets] does; a service may remember them (a zone's transitions
// load from the embedded database on each call).
type ZoneSource func(name string, from, to time.Time) ([]ZoneOffset, error)

// policyZones returns the periods of every zone the policies' schedules
// name over zoneWindow(now). A zone that does not load is left out (every
// stored policy's zone loaded when it was checked); the SDK then cannot
// compile that policy and decides by its fail mode.
func policyZones(aps []AccessPointPolicy, now time.Time, source ZoneSource) map[string][]ZoneOffset {
	if source == nil {
		source = ZoneOffsets
	}
	from, to := zoneWindow(now)
	zones := map[string][]ZoneOffset{}
	for _, ap := range aps {
		if ap.Policy == nil || ap.Policy.Schedule == nil {
			continue
		}
		name := ap.Policy.Schedule.TimeZone
		if _, done := zones[name]; done {
			continue
		}
		offsets, err := source(name, from, to)
		if err != nil {
			continue
		}
		zones[name] = offsets
	}
	return zones
}
