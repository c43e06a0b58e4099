package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the host has installed

	"github.com/gatehouse/gatehouse"
)

// The dashboard shows every time in one zone, the viewer's choice, and
// reads the date filters and draws the chart in the same zone, so that a
// row of the table, the day a filter names and a bar of the chart agree.
// The choice is the user's (gatehouse.User.TimeZone), remembered across
// browsers; "browser" (stored as "") uses the zone the browser's script
// reports in a cookie, which is the browser's, not the user's, to know.
const (
	browserZoneCookie = "gatehouse_browser_zone" // the browser's own zone, set by localtime.js
	zoneBrowser       = "browser"
)

// zoneChoices are the IANA zones the selector lists besides the browser's
// and UTC; the form accepts any other IANA name too.
var zoneChoices = []string{"America/Los_Angeles", "America/Chicago", "America/New_York", "America/Sao_Paulo",
	"Europe/London", "Europe/Berlin", "Europe/Moscow", "Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Australia/Sydney"}

// zone is where a request's times are shown: the viewer's Choice and the
// location it resolves to (UTC until a browser has told its zone).
type zone struct {
	Choice string
	Loc    *time.Location
}

func zoneOf(r *http.Request) zone {
	z := zone{Choice: zoneBrowser, Loc: time.UTC}
	if loc, ok := loadZone(viewerOf(r).user.TimeZone); ok {
		z.Choice, z.Loc = viewerOf(r).user.TimeZone, loc
	}
	if z.Choice == zoneBrowser {
		if c, err := r.Cookie(browserZoneCookie); err == nil {
			if loc, ok := loadZone(c.Value); ok {
				z.Loc = loc
			}
		}
	}
	return z
}

// loadZone reads an IANA zone name; "Local" is refused, since the
// server's own zone means nothing to the viewer.
func loadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// setZone remembers the viewer's zone (browser, UTC or an IANA name) and
// goes back to the page the selector was on.
func (d *dashboard) setZone(w http.ResponseWriter, r *http.Request) {
	choice := r.PostFormValue("zone")
	stored := choice
	switch choice {
	case zoneBrowser:
		stored = ""
	case "":
		stored = "-" // no choice is not the browser's: refused below
	}
	v := viewerOf(r)
	err := d.Service.SetTimeZone(r.Context(), v.user.OrgID, v.user.ID, stored)
	switch {
	case errors.Is(err, gatehouse.ErrInvalid):
		d.errorPage(w, r, http.StatusBadRequest, "There is no time zone called “"+choice+"”; choose one from the list, or write a name such as Europe/Berlin.")
		return
	case err != nil:
		d.fail(w, r, err)
		return
	}
	next := safeNext(r.PostFormValue("next"))
	if next == "" {
		next = Prefix + "/events"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// zonedDates returns the filter form with its day-only dates (YYYY-MM-DD)
// as midnight in loc, written with their offset: the API reads a bare day
// as midnight UTC, the dashboard as midnight where the viewer is.
func zonedDates(form url.Values, loc *time.Location) url.Values {
	out := url.Values{}
	for k, vs := range form {
		out[k] = vs
	}
	for _, name := range []string{"dateFrom", "dateTo"} {
		if s := form.Get(name); dayOnly.MatchString(s) {
			if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
				out.Set(name, t.Format(time.RFC3339))
			}
		}
	}
	return out
}

var dayOnly = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// isDay says whether a date filter is a bare day, which a date picker
// can show; a timestamp keeps a text field.
func isDay(s string) bool { return s == "" || dayOnly.MatchString(s) }

// shownLayout is how the dashboard writes a time: to the second, with the
// zone's abbreviation (or offset), so that no time is ambiguous.
const shownLayout = "2006-01-02 15:04:05 MST"

func inZone(z zone, t time.Time) string { return t.In(z.Loc).Format(shownLayout) }
