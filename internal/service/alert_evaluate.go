package service

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
)

// alertPage is how many new events one evaluation of a rule reads.
const alertPage = 200

// EvaluateAlertRules claims a due threshold rule, if any, evaluates the
// events stored since its feed position, and reports whether it claimed
// one. An evaluation:
//   - reads the next page of the feed that matches the rule's filters;
//   - for each group (player, access point, or the organization) with new
//     events, counts the matching events of the group in the window that
//     ends at its latest new event;
//   - fires an alert for each group whose count reached the threshold;
//   - saves the alerts and the new feed position in one transaction, if
//     it still holds the rule's lease: the store drops an alert of a
//     group that fired within the cooldown.
//
// Two instances never evaluate one rule at once, and an evaluation whose
// lease was lost saves nothing: no alert is made twice.
func (s *Service) EvaluateAlertRules(ctx context.Context, holder string) (bool, error) {
	now := s.Now()
	c, err := s.store.ClaimAlertRule(ctx, holder, now, s.alerts.Lease)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r := c.Rule
	p := gatehouse.AlertEvaluation{OrgID: r.OrgID, RuleID: r.ID, Holder: holder, Generation: r.Generation,
		EventsAfter: r.EventsAfter, Release: true}
	alerts, next, more, err := s.evaluate(ctx, r)
	if err != nil {
		// Counted again from where it stood, after a pause.
		p.Now, p.NextAt = s.Now(), s.Now().Add(s.alerts.Idle)
		_, serr := s.saveEvaluation(ctx, p)
		return true, errors.Join(err, serr)
	}
	p.Now = s.Now()
	p.EventsAfter, p.Alerts, p.NextAt = next, alerts, p.Now.Add(s.alerts.Idle)
	if more {
		p.NextAt = p.Now
	}
	_, err = s.saveEvaluation(ctx, p)
	return true, err
}

// saveEvaluation saves p even when ctx ended: a lost lease is no error,
// another instance took over.
func (s *Service) saveEvaluation(ctx context.Context, p gatehouse.AlertEvaluation) ([]gatehouse.Alert, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	fired, err := s.store.SaveAlertEvaluation(ctx, p)
	if errors.Is(err, gatehouse.ErrConflict) {
		return nil, nil
	}
	return fired, err
}

// evaluate reads the rule's next page of events and returns the alerts
// it fires, the position read through, and whether the page was full.
func (s *Service) evaluate(ctx context.Context, r gatehouse.AlertRule) ([]gatehouse.Alert, gatehouse.FeedPosition, bool, error) {
	c := r.Condition
	f, err := c.Filter()
	if err != nil {
		return nil, r.EventsAfter, false, err
	}
	f.Limit = alertPage
	page, err := s.store.ReadFeed(ctx, r.OrgID, f, r.EventsAfter)
	if err != nil {
		return nil, r.EventsAfter, false, err
	}
	// The latest new event of each group, in the order groups first
	// appear.
	var (
		order  []string
		latest = map[string]time.Time{}
	)
	for _, ev := range page.Events {
		g, ok := alertGroup(ev, c.GroupBy)
		if !ok {
			continue
		}
		t, seen := latest[g]
		if !seen {
			order = append(order, g)
		}
		if at := time.Time(ev.OccurredAt); !seen || at.After(t) {
			latest[g] = at
		}
	}
	window := time.Duration(c.WindowSeconds) * time.Second
	fired := s.Now()
	var alerts []gatehouse.Alert
	for _, g := range order {
		end := latest[g]
		n, err := s.countWindow(ctx, r, f, g, end.Add(-window), end)
		if err != nil {
			return nil, r.EventsAfter, false, err
		}
		if n < c.Threshold {
			continue
		}
		alerts = append(alerts, gatehouse.Alert{ID: gatehouse.NewID(), OrgID: r.OrgID, RuleID: r.ID, RuleName: r.Name,
			Kind: gatehouse.AlertThreshold, GroupBy: string(c.GroupBy), Group: g, Count: n, WindowSeconds: c.WindowSeconds,
			WindowStart: gatehouse.Time(end.Add(-window)), WindowEnd: gatehouse.Time(end), FiredAt: gatehouse.Time(fired),
			Filters: c.Filters})
	}
	return alerts, page.Next, len(page.Events) == alertPage, nil
}

// alertGroup is the group an event counts in: false for an event without
// one (a remote unlock of no player, grouped by player).
func alertGroup(ev gatehouse.Event, by gatehouse.AlertGroupBy) (string, bool) {
	switch by {
	case gatehouse.AlertByPlatformUser:
		if ev.PlatformUserID == nil {
			return "", false
		}
		return *ev.PlatformUserID, true
	case gatehouse.AlertByAccessPoint:
		return ev.AccessPoint.ID.String(), true
	}
	return "", true
}

// countWindow counts, up to the rule's threshold, the events of group g
// matching f that occurred from from to to, both included.
func (s *Service) countWindow(ctx context.Context, r gatehouse.AlertRule, f gatehouse.EventFilter, g string, from, to time.Time) (int, error) {
	switch r.Condition.GroupBy {
	case gatehouse.AlertByPlatformUser:
		f.PlatformUserID = &g
	case gatehouse.AlertByAccessPoint:
		id, err := gatehouse.ParseUUID(g)
		if err != nil {
			return 0, err
		}
		f.AccessPointID = &id
	}
	end := to.Add(time.Millisecond) // To is exclusive
	f.From, f.To, f.Limit = &from, &end, r.Condition.Threshold
	page, err := s.store.ListEvents(ctx, r.OrgID, f)
	return len(page.Events), err
}
