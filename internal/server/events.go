package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// eventList is the body of GET /events.
type eventList struct {
	Data       []gatehouse.Event `json:"data"`
	NextCursor *string           `json:"nextCursor"`
	Meta       eventMeta         `json:"meta"`
}

// eventMeta tells the client what the server applied.
type eventMeta struct {
	Limit             int                   `json:"limit"`
	DateFrom          *gatehouse.Time       `json:"dateFrom"`
	DateTo            *gatehouse.Time       `json:"dateTo"`
	DateRangeNarrowed bool                  `json:"dateRangeNarrowed"`
	Types             []gatehouse.EventType `json:"types"`
	IgnoredTypes      []string              `json:"ignoredTypes"`
	// Partial: a short q stopped at its budget before the page was full.
	Partial bool `json:"partial"`
}

// listEvents serves GET /api/consumer/v1/events.
func (s *server) listEvents() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		q, err := s.eventQuery(r, orgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page, err := s.Service.ListEvents(r.Context(), orgID, q.Filter)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		f := q.Filter
		body := eventList{Data: page.Events, Meta: eventMeta{
			Limit: f.Limit, DateFrom: gatehouse.TimePtr(f.From), DateTo: gatehouse.TimePtr(f.To),
			DateRangeNarrowed: q.Narrowed, Types: f.Types, IgnoredTypes: q.IgnoredTypes, Partial: page.Partial,
		}}
		if body.Meta.Types == nil {
			body.Meta.Types = []gatehouse.EventType{}
		}
		if body.Meta.IgnoredTypes == nil {
			body.Meta.IgnoredTypes = []string{}
		}
		if page.Next != nil {
			c := s.Service.EventCursor(orgID, f, *page.Next)
			body.NextCursor = &c
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// feedPage is the body of GET /events/feed.
type feedPage struct {
	Data            []gatehouse.Event `json:"data"`
	NextCursor      string            `json:"nextCursor"` // never null: the consumer comes back with it
	CompleteThrough gatehouse.Time    `json:"completeThrough"`
}

// readFeed serves GET /api/consumer/v1/events/feed.
func (s *server) readFeed() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orgID := apiKey(r.Context()).OrgID
		v, err := parseQuery(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		q, err := s.Service.ReadFeedQuery(r.Context(), orgID, v)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		page, err := s.Service.ReadFeed(r.Context(), orgID, q)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, feedPage{Data: page.Events, NextCursor: s.Service.FeedCursor(orgID, page.Next),
			CompleteThrough: gatehouse.Time(page.CompleteThrough)})
	})
}

// eventQuery parses the query string and opens the cursor, reporting every
// problem of both at once.
func (s *server) eventQuery(r *http.Request, orgID uuid.UUID) (gatehouse.EventQuery, error) {
	v, err := parseQuery(r)
	if err != nil {
		return gatehouse.EventQuery{}, err
	}
	return s.Service.ReadEventQuery(orgID, v)
}
