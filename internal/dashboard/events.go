package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

var urlQueryEscape = url.QueryEscape

// eventLogPage is the Event Log: the filter form as sent, its problems,
// and a page of events.
type eventLogPage struct {
	Form        url.Values
	Issues      map[string][]string
	Events      []gatehouse.Event
	Locations   []gatehouse.Location
	Types       []gatehouse.EventType
	Scopes      []gatehouse.CommandScope
	Query       gatehouse.EventQuery
	Older       string // the URL of the next (older) page, if any
	Newest      string // the URL of the first page of this filter
	MaxRangeDay int
}

// eventLog serves the Event Log: the API's filters, read by the same
// code, reflected in the URL so that a view can be shared.
func (d *dashboard) eventLog(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	form := r.URL.Query()
	for name, values := range form { // an empty field of the form is an absent filter
		if !slices.ContainsFunc(values, func(s string) bool { return s != "" }) {
			form.Del(name)
		}
	}
	p := eventLogPage{Form: form, Types: gatehouse.EventTypes, Scopes: gatehouse.CommandScopes, MaxRangeDay: 366}
	locs, err := d.allLocations(r.Context(), orgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	p.Locations = locs
	status := http.StatusOK
	q, err := gatehouse.ReadEventQuery(form, d.Cursors, orgID)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		p.Issues, status = ve.Issues, http.StatusBadRequest
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		page, err := gatehouse.FindEvents(r.Context(), d.Store, orgID, q.Filter)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		p.Query, p.Events = q, page.Events
		newest := withoutCursor(form)
		p.Newest = Prefix + "/events?" + newest.Encode()
		if page.Next != nil {
			older := withoutCursor(form)
			older.Set("cursor", d.Cursors.EventCursor(orgID, q.Filter, *page.Next))
			p.Older = Prefix + "/events?" + older.Encode()
		}
	}
	d.render(w, r, status, "events", p)
}

func withoutCursor(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		if k != "cursor" {
			c[k] = vs
		}
	}
	return c
}

// allLocations lists the organization's locations with their access
// points, for the filter form.
func (d *dashboard) allLocations(ctx context.Context, orgID uuid.UUID) ([]gatehouse.Location, error) {
	var (
		all   []gatehouse.Location
		after *gatehouse.LocationKey
	)
	for {
		locs, next, err := d.Store.ListLocations(ctx, orgID, gatehouse.MaxLimit, after)
		if err != nil {
			return nil, err
		}
		all = append(all, locs...)
		if next == nil {
			return all, nil
		}
		after = next
	}
}

// eventDetail shows one event of the user's organization, whole.
func (d *dashboard) eventDetail(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		d.errorPage(w, r, http.StatusNotFound, "There is no such event.")
		return
	}
	page, err := d.Store.ListEvents(r.Context(), viewerOf(r).user.OrgID, gatehouse.EventFilter{ID: &id, Limit: 1})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if len(page.Events) == 0 { // another organization's id reads exactly like an unknown one
		d.errorPage(w, r, http.StatusNotFound, "There is no such event.")
		return
	}
	d.render(w, r, http.StatusOK, "event", page.Events[0])
}
