package dashboard

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

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
	Newer       string // the URL of the previous (newer) page, if any
	Newest      string // the URL of the first page of this filter
	ExportCSV   string // the filter's exports
	ExportJSON  string
	Chart       string // the chart image of this filter
	DetailQuery string // what an event's link carries so that its page leads back here
	Count       int    // the events of the filter, exact up to CountBound; CountBound+1 means more
	CountBound  int
	MaxRangeDay int
	// ExpiringKeys counts the organization's keys that expire within
	// gatehouse.ExpiryWarning, for an admin: this page is where one
	// looks first, and a game's key that expires stops every server.
	ExpiringKeys int
}

// countBound is how far the Event Log counts its filter's events exactly:
// past it, the page says "more than", and counting stops (a few pages of
// reads, whatever the filter matches).
const countBound = 1000

// eventLog serves the Event Log: the API's filters, read by the same
// code, reflected in the URL so that a view can be shared.
func (d *dashboard) eventLog(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	form, prev := listForm(r)
	p := eventLogPage{Form: form, Types: gatehouse.EventTypes, Scopes: gatehouse.CommandScopes, MaxRangeDay: 366,
		CountBound: countBound}
	if r.URL.RawQuery != "" {
		p.DetailQuery = "?" + url.Values{"back": {r.URL.RawQuery}}.Encode()
	}
	every, ok := d.everyLocation(w, r)
	if !ok {
		return
	}
	p.Locations = menuOf(every, form.Get("locationId"), form.Get("accessPointId"))
	p.ExpiringKeys = d.expiringKeys(r)
	status := http.StatusOK
	q, err := d.Service.ReadEventQuery(orgID, zonedDates(form, zoneOf(r).Loc))
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		p.Issues, status = issuesInWords(ve.Issues), http.StatusBadRequest
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		page, err := d.Service.ListEvents(r.Context(), orgID, q.Filter)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		p.Query, p.Events, p.Count = q, page.Events, len(page.Events)
		if q.Cursor != "" || page.Next != nil { // more than this page: count them, up to the bound
			if p.Count, err = d.Service.CountEventsUpTo(r.Context(), orgID, q.Filter, countBound); err != nil {
				d.fail(w, r, err)
				return
			}
		}
		newest := withoutCursor(form)
		p.Newest = Prefix + "/events?" + newest.Encode()
		newest.Del("limit")
		p.ExportCSV = Prefix + "/events/export.csv?" + newest.Encode()
		p.ExportJSON = Prefix + "/events/export.ndjson?" + newest.Encode()
		p.Chart = Prefix + "/events/chart.svg?" + newest.Encode()
		next := ""
		if page.Next != nil {
			next = d.Service.EventCursor(orgID, q.Filter, *page.Next)
		}
		p.Older, p.Newer = pageLinks(Prefix+"/events", form, q.Cursor, prev, next)
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

// eventDetail shows one event of the user's organization, whole.
func (d *dashboard) eventDetail(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		d.errorPage(w, r, http.StatusNotFound, "There is no such event.")
		return
	}
	ev, err := d.Service.FindEvent(r.Context(), viewerOf(r).user.OrgID, id)
	switch {
	case errors.Is(err, gatehouse.ErrNotFound): // another organization's id reads exactly like an unknown one
		d.errorPage(w, r, http.StatusNotFound, "There is no such event.")
	case err != nil:
		d.fail(w, r, err)
	default:
		d.render(w, r, http.StatusOK, "event", eventPage{Event: ev, Back: backToLog(r.URL.Query().Get("back")), Test: testOfAttempt(r, ev)})
	}
}

// eventPage is one event and the way back to the Event Log it was opened
// from, with its filter and page.
type eventPage struct {
	Event gatehouse.Event
	Back  string
	// Test opens the door's decision test with this attempt's player,
	// server and instant ("" for no attempt, or a viewer who may not
	// test): would the door's policy of today let them in then?
	Test string
}

// testOfAttempt is eventPage.Test for ev.
func testOfAttempt(r *http.Request, ev gatehouse.Event) string {
	attempt := ev.Type == gatehouse.EventAccessGranted || ev.Type == gatehouse.EventAccessDenied
	if !attempt || ev.PlatformUserID == nil || !viewerOf(r).user.Can(gatehouse.PermTestDecisions) {
		return ""
	}
	q := url.Values{"platformUserId": {*ev.PlatformUserID}, "at": {localInstant(time.Time(ev.OccurredAt), zoneOf(r).Loc)}}
	if ev.ServerJobID != nil {
		q.Set("serverJobId", *ev.ServerJobID)
	}
	return Prefix + "/access-points/" + ev.AccessPoint.ID.String() + "/policy/test?" + q.Encode() + "#test"
}

// backToLog is the Event Log's address for the query an event was opened
// from. The query is parsed and written anew, so it can only ever be a
// query of the Event Log.
func backToLog(query string) string {
	v, err := url.ParseQuery(query)
	if err != nil || len(v) == 0 {
		return Prefix + "/events"
	}
	return Prefix + "/events?" + v.Encode()
}

// wholeFilter reads the Event Log's filter for a view of all its events
// (an export, the chart): no cursor, the largest pages. It answers a bad
// filter itself and then reports false.
func (d *dashboard) wholeFilter(w http.ResponseWriter, r *http.Request) (gatehouse.EventFilter, bool) {
	form := withoutCursor(r.URL.Query())
	form.Set("limit", strconv.Itoa(gatehouse.MaxLimit))
	q, err := d.Service.ReadEventQuery(viewerOf(r).user.OrgID, zonedDates(form, zoneOf(r).Loc))
	var ve *gatehouse.ValidationError
	if errors.As(err, &ve) {
		d.errorPage(w, r, http.StatusBadRequest, "These filters cannot be used: "+issuesSentence(issuesInWords(ve.Issues)))
		return q.Filter, false
	}
	if err != nil {
		d.fail(w, r, err)
		return q.Filter, false
	}
	return q.Filter, true
}

// exportWriteTimeout bounds each page's write to the client. An export
// streams for as long as the client keeps reading, so the server's
// deadline for a whole response (60 s) would cut a large export mid-row;
// instead each page gets this long, and only a client that stops reading
// is dropped.
const exportWriteTimeout = 30 * time.Second

// exportEvents streams every event of the Event Log's filter, page by
// page, as CSV or NDJSON (one API event object per line). A cut export —
// the database failing or the client going away mid-stream — ends after
// its last whole line without the response's proper end, so the browser
// reports the download as failed instead of saving a short file, and it is
// logged and counted as cut (see cutExport).
func (d *dashboard) exportEvents(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		orgID := viewerOf(r).user.OrgID
		f, ok := d.wholeFilter(w, r)
		if !ok {
			return
		}
		name := "gatehouse-events-" + d.Now().UTC().Format("2006-01-02T150405Z") + "." + format
		h := w.Header()
		h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
		rc := http.NewResponseController(w)
		// Nothing is written before the first page's deadline is set: the
		// server's own deadline may already be near.
		rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout))
		var (
			write func(gatehouse.Event) error
			flush func() error
		)
		switch format {
		case "csv":
			h.Set("Content-Type", "text/csv; charset=utf-8")
			cw := csv.NewWriter(w)
			cw.Write(csvHeader)
			write = func(e gatehouse.Event) error { return cw.Write(csvRow(e)) }
			flush = func() error { cw.Flush(); return cw.Error() }
		default:
			h.Set("Content-Type", "application/x-ndjson")
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			write = func(e gatehouse.Event) error { return enc.Encode(e) }
			flush = func() error { return nil }
		}
		rows := 0
		for {
			page, err := d.Service.ListEvents(r.Context(), orgID, f)
			if err != nil && f.After == nil { // nothing is sent yet: an error page can still say so
				h.Del("Content-Disposition")
				d.fail(w, r, err)
				return
			}
			if err != nil {
				d.cutExport(w, r, format, rows, "database", err)
			}
			rc.SetWriteDeadline(time.Now().Add(exportWriteTimeout))
			for _, e := range page.Events {
				if err := write(e); err != nil {
					d.cutExport(w, r, format, rows, "client", err)
				}
			}
			if err := flush(); err != nil {
				d.cutExport(w, r, format, rows, "client", err)
			}
			if err := rc.Flush(); err != nil {
				d.cutExport(w, r, format, rows, "client", err)
			}
			rows += len(page.Events)
			if page.Next == nil {
				return
			}
			f.After = page.Next
		}
	}
}

// cutExport ends an export that cannot go on: it logs why, with the
// request id and the rows sent (every one whole: pages are flushed only
// after their last row), and aborts the response, which the access log
// records and counts as cut. It does not return.
func (d *dashboard) cutExport(w http.ResponseWriter, r *http.Request, format string, rows int, cause string, err error) {
	d.Logger.LogAttrs(r.Context(), slog.LevelWarn, "dashboard export cut",
		slog.String("requestId", w.Header().Get("X-Request-Id")),
		slog.String("format", format),
		slog.Int("rowsSent", rows),
		slog.String("cause", cause),
		slog.String("error", err.Error()))
	panic(http.ErrAbortHandler)
}

var csvHeader = []string{"id", "occurredAt", "receivedAt", "type", "allowed", "reason", "platformUserId",
	"accessPointId", "accessPoint", "locationId", "location", "serverJobId", "scope",
	"requestedBy", "commandId", "commandStatus", "platformUserName"}

func csvRow(e gatehouse.Event) []string {
	var requester, commandID, commandStatus, allowed, scope string
	if e.RequestedBy != nil {
		requester = e.RequestedBy.Email
	}
	if e.Command != nil {
		commandID, commandStatus = e.Command.ID.String(), string(e.Command.Status)
	}
	if e.Allowed != nil {
		allowed = string(*e.Allowed)
	}
	if e.Scope != nil {
		scope = string(*e.Scope)
	}
	row := []string{e.ID.String(), formatTime(e.OccurredAt), formatTime(e.ReceivedAt), string(e.Type), allowed,
		deref(e.Reason), deref(e.PlatformUserID), e.AccessPoint.ID.String(), e.AccessPoint.Name,
		e.Location.ID.String(), e.Location.Name, deref(e.ServerJobID), scope, requester, commandID, commandStatus,
		deref(e.PlatformUserName)}
	for i, v := range row {
		row[i] = defuseFormula(v)
	}
	return row
}

// defuseFormula keeps a spreadsheet from running a cell as a formula: text
// that starts like one (an access point named "=HYPERLINK(…)", say) gets a
// leading apostrophe, as OWASP advises for CSV exports.
func defuseFormula(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// expiringKeys counts the organization's keys that expire within
// gatehouse.ExpiryWarning, for a user who manages keys (0 for another).
// It is a warning beside the log: when the count fails, the log is
// shown without it, and the failure logged.
func (d *dashboard) expiringKeys(r *http.Request) int {
	v := viewerOf(r)
	if !v.user.Can(gatehouse.PermManageKeys) {
		return 0
	}
	n, err := d.Service.ExpiringAPIKeys(r.Context(), v.user.OrgID)
	if err != nil {
		d.Logger.LogAttrs(r.Context(), slog.LevelWarn, "event log shown without the expiring keys' warning", slog.String("error", err.Error()))
		return 0
	}
	return n
}
