package service

import (
	"context"
	"net/url"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReadInsightQuery parses the query of GET /insights on the service's
// clock: a [*gatehouse.ValidationError] listing every problem. An
// organization has no zone of its own, so without timeZone the answer is
// in UTC.
func (s *Service) ReadInsightQuery(v url.Values) (gatehouse.InsightQuery, error) {
	return gatehouse.ParseInsightQuery(v, s.Now(), "")
}

// Insights counts the organization's events matching q.Filter in groups
// of q.GroupBy, by outcome, exactly (the store's rollups; see
// [gatehouse.EventStore.CountInsights]):
//   - by a time bucket, in q.Zone and in time order, every bucket that
//     has events;
//   - otherwise the most counted groups first, access points and
//     locations with their current names as labels.
//
// At most limit groups come; more reports whether there were more.
// Errors: [gatehouse.ErrUnavailable] ([gatehouse.ErrBusy] among them)
// when the database cannot answer now.
func (s *Service) Insights(ctx context.Context, orgID uuid.UUID, q gatehouse.InsightQuery, limit int) (counts []gatehouse.InsightCount, more bool, err error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return nil, false, err
	}
	q.Filter.Within = reach
	if q.Filter.From == nil || q.Filter.To == nil || q.Zone == nil || limit < 1 {
		return nil, false, gatehouse.Invalid("", "insights need a window, a zone and a limit")
	}
	if q.GroupBy.ByTime() {
		hours, err := s.store.CountInsights(ctx, orgID, q.Filter, gatehouse.GroupHour, 0)
		if err != nil {
			return nil, false, err
		}
		counts = gatehouse.BucketInsights(hours, q.GroupBy, q.Zone)
	} else {
		counts, err = s.store.CountInsights(ctx, orgID, q.Filter, q.GroupBy, limit+1)
		if err != nil {
			return nil, false, err
		}
	}
	if len(counts) > limit {
		counts, more = counts[:limit], true
	}
	if q.GroupBy == gatehouse.GroupAccessPoint || q.GroupBy == gatehouse.GroupLocation {
		if err := s.labelInsights(ctx, orgID, q.GroupBy, counts); err != nil {
			return nil, false, err
		}
	}
	return counts, more, nil
}

// labelInsights names the access points or locations counts are keyed by.
func (s *Service) labelInsights(ctx context.Context, orgID uuid.UUID, by gatehouse.InsightGroup, counts []gatehouse.InsightCount) error {
	locs, err := s.AllLocations(ctx, orgID, true)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, l := range locs {
		if by == gatehouse.GroupLocation {
			names[l.ID.String()] = l.Name
		}
		for _, ap := range l.AccessPoints {
			if by == gatehouse.GroupAccessPoint {
				names[ap.ID.String()] = ap.Name
			}
		}
	}
	for i := range counts {
		if name, ok := names[counts[i].Key]; ok {
			counts[i].Label = &name
		}
	}
	return nil
}

// insightsEvery is how often an instance folds the events waiting into
// the rollups kept behind ingest.
const insightsEvery = time.Second

// RunInsights folds stored events into the rollup kept behind ingest (the
// players', gatehouse.Store.RollInsights) every second until ctx ends.
// Every instance runs it; the store keeps two from folding the same
// events. Errors are reported to report and retried at the next round.
func (s *Service) RunInsights(ctx context.Context, holder string, report func(error)) {
	for {
		if err := s.store.RollInsights(ctx, s.Now()); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(insightsEvery):
		}
	}
}

// RollInsights folds every stored event into the rollups kept behind
// ingest now, whenever each organization was last folded: after a bulk
// import or a seed, so that the first rankings read the rollup rather
// than the events.
func (s *Service) RollInsights(ctx context.Context) error {
	return s.store.RollInsights(ctx, s.Now().Add(insightsEvery))
}
