package gatehouse

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"
)

// InsightGroup is what GET /insights counts events by.
type InsightGroup string

// The groupings of insights. Hour and Day are buckets of local time in the
// query's zone, in time order; HourOfWeek folds every week onto one (the
// dashboard's heat map of denials).
const (
	GroupAccessPoint  InsightGroup = "accessPointId"
	GroupLocation     InsightGroup = "locationId"
	GroupReason       InsightGroup = "reason"
	GroupType         InsightGroup = "type"
	GroupPlatformUser InsightGroup = "platformUserId"
	GroupHour         InsightGroup = "hour"
	GroupDay          InsightGroup = "day"
	GroupHourOfWeek   InsightGroup = "hourOfWeek"
)

// InsightGroups lists the groupings in the order the documentation gives.
var InsightGroups = []InsightGroup{GroupAccessPoint, GroupLocation, GroupReason, GroupType,
	GroupPlatformUser, GroupHour, GroupDay, GroupHourOfWeek}

// ByTime reports whether the grouping is a bucket of time: such answers
// are ordered by time, the others by count.
func (g InsightGroup) ByTime() bool {
	return g == GroupHour || g == GroupDay || g == GroupHourOfWeek
}

// DefaultInsightWindow is the window of an insight query without dateFrom.
const DefaultInsightWindow = 30 * 24 * time.Hour

// InsightQueryParams lists the query parameters ParseInsightQuery reads:
// those of GET /events but q and cursor, and groupBy and timeZone.
var InsightQueryParams = []string{
	"groupBy", "timeZone", "accessPointId", "locationId", "type", "allowed", "platformUserId", "reason",
	"scope", "dateFrom", "dateTo", paramLimit,
}

// InsightQuery is a parsed request for insights. Filter has From and To
// set, at most MaxRange apart; Q, ID and After are never set.
type InsightQuery struct {
	Filter       EventFilter
	GroupBy      InsightGroup
	Zone         *time.Location // never nil
	IgnoredTypes []string
	Narrowed     bool // the date range was narrowed to MaxRange
}

// ParseInsightQuery reads the query parameters of GET /insights. Filters
// and dates follow GET /events ([ParseEventQuery]); without dateTo the
// window ends at the end of the hour now is in, without dateFrom it
// starts DefaultInsightWindow before its end. timeZone is an IANA name; without it the zone is
// defaultZone ("" for UTC). It returns a *ValidationError listing every
// problem at once.
func ParseInsightQuery(v url.Values, now time.Time, defaultZone string) (InsightQuery, error) {
	eq, err := parseEventQuery(v, InsightQueryParams)
	errs := ValidationError{}
	if ve := (*ValidationError)(nil); errors.As(err, &ve) {
		errs.Merge("", ve)
	} else if err != nil {
		return InsightQuery{}, err
	}
	q := InsightQuery{Filter: eq.Filter, IgnoredTypes: eq.IgnoredTypes, Narrowed: eq.Narrowed, Zone: time.UTC}
	one := listQuery{v: v, errs: &errs}.one
	if s, ok := one("groupBy"); !ok {
		errs.Add("groupBy", "is required: one of %s", insightGroupList())
	} else if g := InsightGroup(s); slices.Contains(InsightGroups, g) {
		q.GroupBy = g
	} else {
		errs.Add("groupBy", "must be one of %s", insightGroupList())
	}
	zone := defaultZone
	if s, ok := one("timeZone"); ok {
		zone = s
	}
	if zone != "" {
		if err := CheckTimeZone(zone); err != nil {
			errs.Add("timeZone", "%q is not a time zone; use an IANA name such as Europe/Berlin, or UTC", Redact(zone))
		} else if loc, err := time.LoadLocation(zone); err == nil {
			q.Zone = loc
		}
	}
	f := &q.Filter
	if f.To == nil {
		// The end of the hour now is in: the hour so far, and events a
		// clock slightly ahead stamped, whole hours that the rollups
		// answer alone.
		to := now.UTC().Truncate(time.Hour).Add(time.Hour)
		f.To = &to
	}
	if f.From == nil {
		from := f.To.Add(-DefaultInsightWindow)
		if _, bad := errs.Issues["dateTo"]; !bad {
			f.From = &from
		}
	}
	if f.From != nil && f.From.After(*f.To) && errs.Issues["dateFrom"] == nil {
		errs.Add("dateFrom", "must not be after dateTo")
	}
	return q, errs.Err()
}

func insightGroupList() string {
	names := make([]string, len(InsightGroups))
	for i, g := range InsightGroups {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

// InsightCount is one group of an insight answer: the events of the group
// by outcome. Key is the group: an id, a reason, a type, a player, or for
// time buckets the local start ("2026-11-20T14:00:00+01:00" for an hour,
// "2026-11-20" for a day, "1-14" for Monday 14:00–15:00 of the week, ISO
// weekday then hour). Label names an access point or location, as it is
// called now; nil when it no longer exists or for other groupings.
type InsightCount struct {
	Key           string  `json:"key"`
	Label         *string `json:"label,omitempty"`
	Granted       int     `json:"granted"`
	Denied        int     `json:"denied"`
	RemoteUnlocks int     `json:"remoteUnlocks"`

	// Hour is the UTC hour of a store's count by GroupHour.
	Hour time.Time `json:"-"`
}

// Total is the group's count of events.
func (c InsightCount) Total() int { return c.Granted + c.Denied + c.RemoteUnlocks }

// Add counts n events of type t.
func (c *InsightCount) Add(t EventType, n int) {
	switch t {
	case EventAccessGranted:
		c.Granted += n
	case EventAccessDenied:
		c.Denied += n
	default:
		c.RemoteUnlocks += n
	}
}

// SortInsights orders store counts by total descending, then key: the
// order of every grouping that is not by time.
func SortInsights(counts []InsightCount) {
	slices.SortStableFunc(counts, func(a, b InsightCount) int {
		if a.Total() != b.Total() {
			return b.Total() - a.Total()
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// BucketInsights folds a store's counts by UTC hour into the query's local
// buckets of g (GroupHour, GroupDay or GroupHourOfWeek), in time order.
// An hour of a zone whose offset is not a whole number of hours (India,
// Nepal, Newfoundland…) counts in the local bucket where it starts.
func BucketInsights(hours []InsightCount, g InsightGroup, zone *time.Location) []InsightCount {
	type bucket struct {
		order int64
		count InsightCount
	}
	byKey := map[string]*bucket{}
	for _, h := range hours {
		local := h.Hour.In(zone)
		var key string
		var order int64
		switch g {
		case GroupDay:
			key = local.Format(dateOnlyLayout)
			order = local.Unix()
		case GroupHourOfWeek:
			wd := (int(local.Weekday())+6)%7 + 1 // ISO: Monday 1 … Sunday 7
			key = string(rune('0'+wd)) + "-" + twoDigits(local.Hour())
			order = int64(wd*24 + local.Hour())
		default:
			// The instant's own offset: in the hour a clock goes back, the
			// two local 01:00s are two buckets.
			key = local.Add(-time.Duration(local.Minute()) * time.Minute).Format(time.RFC3339)
			order = local.Unix()
		}
		b := byKey[key]
		if b == nil {
			b = &bucket{order: order, count: InsightCount{Key: key}}
			byKey[key] = b
		}
		b.order = min(b.order, order)
		b.count.Granted += h.Granted
		b.count.Denied += h.Denied
		b.count.RemoteUnlocks += h.RemoteUnlocks
	}
	buckets := make([]*bucket, 0, len(byKey))
	for _, b := range byKey {
		buckets = append(buckets, b)
	}
	slices.SortFunc(buckets, func(a, b *bucket) int {
		if a.order != b.order {
			if a.order < b.order {
				return -1
			}
			return 1
		}
		return strings.Compare(a.count.Key, b.count.Key)
	})
	out := make([]InsightCount, len(buckets))
	for i, b := range buckets {
		out[i] = b.count
	}
	return out
}

func twoDigits(n int) string {
	return string([]byte{byte('0' + n/10), byte('0' + n%10)})
}
