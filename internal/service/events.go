package service

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ReadEventQuery parses the query of an event list (GET /events, the
// Event Log) and opens its cursor for orgID, reporting every problem of
// both at once as a [*gatehouse.ValidationError].
func (s *Service) ReadEventQuery(orgID uuid.UUID, v url.Values) (gatehouse.EventQuery, error) {
	return gatehouse.ReadEventQuery(v, s.cursors, orgID)
}

// ListEvents returns a page of the organization's events matching f, with
// the exact-id rule of q ([gatehouse.FindEvents]). f.Limit must be set.
// Errors: [gatehouse.ErrUnavailable] ([gatehouse.ErrBusy] among them) when
// the database cannot answer now.
func (s *Service) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.EventPage{}, err
	}
	f.Within = reach
	return gatehouse.FindEvents(ctx, s.store, orgID, f)
}

// EventCursor signs the position next of the list of orgID's events
// matching f: the nextCursor of a page.
func (s *Service) EventCursor(orgID uuid.UUID, f gatehouse.EventFilter, next gatehouse.EventKey) string {
	return s.cursors.EventCursor(orgID, f, next)
}

// FindEvent returns one of the organization's events, or
// [gatehouse.ErrNotFound] (another organization's event included, and
// one of a location outside the actor's reach).
func (s *Service) FindEvent(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Event, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return gatehouse.Event{}, err
	}
	ev, err := s.findEvent(ctx, orgID, id)
	if err != nil {
		return gatehouse.Event{}, err
	}
	return ev, gatehouse.InReach(reach, ev.Location.ID)
}

// findEvent is [Service.FindEvent] without the caller's authorization: for
// the background work that acts for the organization (webhook delivery).
func (s *Service) findEvent(ctx context.Context, orgID, id uuid.UUID) (gatehouse.Event, error) {
	page, err := s.store.ListEvents(ctx, orgID, gatehouse.EventFilter{ID: &id, Limit: 1})
	if err != nil {
		return gatehouse.Event{}, err
	}
	if len(page.Events) == 0 {
		return gatehouse.Event{}, gatehouse.ErrNotFound
	}
	return page.Events[0], nil
}

// CountEventsUpTo counts the organization's events matching f (its After
// and Limit ignored), but stops past bound. It answers:
//   - the exact count when it is at most bound;
//   - bound+1, meaning "more than bound", otherwise.
//
// It reads at most bound+1 events, in pages of [gatehouse.MaxLimit], so its
// cost is bounded whatever the filter matches. Errors as
// [Service.ListEvents]'.
func (s *Service) CountEventsUpTo(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, bound int) (int, error) {
	f.After = nil
	n := 0
	for n <= bound {
		f.Limit = min(gatehouse.MaxLimit, bound+1-n)
		page, err := s.ListEvents(ctx, orgID, f)
		if err != nil {
			return 0, err
		}
		n += len(page.Events)
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	return n, nil
}

// CountEvents counts the organization's events matching f in buckets of
// step from f.From to f.To, which must be set, by outcome.
// [gatehouse.ErrInvalid] when they are not.
func (s *Service) CountEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, step time.Duration) ([]gatehouse.EventCount, error) {
	reach, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView)
	if err != nil {
		return nil, err
	}
	f.Within = reach
	if f.From == nil || f.To == nil || step <= 0 {
		return nil, gatehouse.Invalid("", "a count needs a window and a step")
	}
	return s.store.CountEvents(ctx, orgID, f, step)
}

// DecodeEvent reads one ingest object (an NDJSON line) on the service's
// clock: a [*gatehouse.ValidationError] keyed by field when it breaks a
// rule.
func (s *Service) DecodeEvent(raw []byte) (gatehouse.NewEvent, error) {
	return gatehouse.DecodeIngestEvent(raw, s.now())
}

// DecodeEvents reads a batch of ingest objects (POST /events) on the
// service's clock, reporting every problem of every event at once as an
// [*gatehouse.IngestError].
func (s *Service) DecodeEvents(raws []json.RawMessage) ([]gatehouse.NewEvent, error) {
	now := s.now()
	events := make([]gatehouse.NewEvent, len(raws))
	var errs gatehouse.IngestError
	for i, raw := range raws {
		ev, err := gatehouse.DecodeIngestEvent(raw, now)
		errs.Merge(i, err)
		events[i] = ev
	}
	return events, errs.Err()
}

// IngestEvents stores a batch of the organization's events, all or
// nothing, idempotent by event id.
//
// Errors:
//   - an [*gatehouse.IngestError] (which is an [gatehouse.ErrInvalid]),
//     and nothing is stored, when an event is older than the
//     organization's retention (refuseExpired), or names an access point
//     or a requester that is not the organization's;
//   - [gatehouse.ErrUnavailable] when the database cannot answer.
func (s *Service) IngestEvents(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) (gatehouse.IngestResult, error) {
	if err := gatehouse.RefuseReach(ctx); err != nil {
		return gatehouse.IngestResult{}, err
	}
	if err := s.refuseExpired(ctx, orgID, events); err != nil {
		return gatehouse.IngestResult{}, err
	}
	return s.store.IngestEvents(ctx, orgID, events)
}

// refuseExpired returns an [*gatehouse.IngestError] naming every event that
// occurred before the organization's retention cutoff: retention would
// delete it within minutes of an answer that said it was accepted. No
// retention is shorter than [gatehouse.MinRetentionDays], so a batch whose
// events are all newer than that (every live game's) costs no read.
func (s *Service) refuseExpired(ctx context.Context, orgID uuid.UUID, events []gatehouse.NewEvent) error {
	now := s.now()
	floor := gatehouse.RetentionCutoff(now, gatehouse.MinRetentionDays)
	if !slices.ContainsFunc(events, func(e gatehouse.NewEvent) bool { return e.OccurredAt.Before(floor) }) {
		return nil
	}
	org, err := s.store.FindOrganization(ctx, orgID)
	if err != nil {
		return err
	}
	cutoff := gatehouse.RetentionCutoff(now, org.RetentionDays)
	var errs gatehouse.IngestError
	for i, e := range events {
		if e.OccurredAt.Before(cutoff) {
			errs.Add(i, "occurredAt", "is older than the retention of %d days (before %s): it would be deleted at once", org.RetentionDays, gatehouse.FormatTime(cutoff))
		}
	}
	return errs.Err()
}

// IngestWriters is how many [Import.IngestEvents] calls a bulk loader
// (event import) should keep in flight: the store's parallel writers
// (SQLite has one), no more than four.
func (s *Service) IngestWriters() int { return min(s.recorder.writers, 4) }
