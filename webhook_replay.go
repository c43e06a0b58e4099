package gatehouse

import "net/url"

// ReplayFromStart is the word that names the feed's start as a replay's
// starting point: {"from": "start"}. A replay needs one said out loud: an
// empty cursor once meant the start, and resent every event by accident
// (docs/decisions.md, "Replay needs a starting point").
const ReplayFromStart = "start"

// ReplayFrom is where a replay of an endpoint starts: after a feed
// cursor, or at the feed's start. The zero value is no starting point,
// which [ReplayFrom.Check] refuses.
type ReplayFrom struct {
	After string // a feed cursor: a nextCursor of the feed, or an endpoint's cursor
	Start bool   // the feed's start: every event again
}

// ReplayNeedsStart is the issue of a replay without a starting point.
const ReplayNeedsStart = `needs a starting point: a feed cursor ({"after": "<a nextCursor of the feed, or the endpoint's cursor>"}), or {"from": "start"} to send every event again`

// ParseReplayFrom reads a replay's starting point as the doors take it:
// after, a feed cursor, and from, which must be empty or
// [ReplayFromStart]. Exactly one must be given; the problems are a
// *[ValidationError] keyed "after" or "from".
func ParseReplayFrom(after, from string) (ReplayFrom, error) {
	var errs ValidationError
	r := ReplayFrom{After: after}
	switch from {
	case "":
	case ReplayFromStart:
		r.Start = true
	default:
		errs.Add("from", "must be %q (the feed's start), or absent with after set", ReplayFromStart)
	}
	if err := errs.Err(); err != nil {
		return ReplayFrom{}, err
	}
	return r, r.Check()
}

// Check reports a *[ValidationError] unless exactly one starting point is
// set.
func (r ReplayFrom) Check() error {
	switch {
	case r.After != "" && r.Start:
		return Invalid("from", "give one starting point: after (a feed cursor) or from, not both")
	case r.After == "" && !r.Start:
		return Invalid("after", "%s", ReplayNeedsStart)
	}
	return nil
}

// FeedFilter is the event filter of an endpoint's filters as its
// JSON shows them.
func (w Webhook) FeedFilter() (EventFilter, error) {
	v := url.Values{}
	for k, val := range w.Filters {
		v.Set(k, val)
	}
	return ParseWebhookFilter(v.Encode())
}
