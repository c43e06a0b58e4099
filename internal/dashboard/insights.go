package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
)

// insightPeriods are the windows the Insights page offers, in days.
var insightPeriods = []int{7, 30, 90, 366}

// insightsPage is the Insights page: the doors and reasons of the
// period, its denials by hour of the week, and the players denied most,
// each row a link into the Event Log filtered to it.
type insightsPage struct {
	Days    int
	Periods []int
	From    time.Time
	To      time.Time
	Doors   []insightRow
	Reasons []insightRow
	Players []insightRow
	Week    insightWeek
}

// insightRow is one group with where it leads in the Event Log.
type insightRow struct {
	gatehouse.InsightCount
	Events string
}

// insightWeek is the heat map of denials: a row per local hour, a column
// per weekday (Monday first), so that it fits a phone's width.
type insightWeek struct {
	Days  []string
	Hours []insightHour
	Max   int
}

type insightHour struct {
	Label string
	Cells []insightCell
}

// insightCell is one hour of one weekday: its denials and a shade from 0
// (none) to 5 (the most of the week), a class, since the page's policy
// allows no inline style.
type insightCell struct {
	Denied int
	Shade  int
	Title  string
}

var weekdays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// insights serves the Insights page, in the viewer's zone.
func (d *dashboard) insights(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	z := zoneOf(r)
	p := insightsPage{Days: 30, Periods: insightPeriods}
	if n, err := strconv.Atoi(r.URL.Query().Get("days")); err == nil && slices.Contains(insightPeriods, n) {
		p.Days = n
	}
	now := d.Service.Now()
	p.To = now.UTC().Truncate(time.Hour).Add(time.Hour)
	p.From = p.To.AddDate(0, 0, -p.Days)
	if p.Days == 366 {
		p.From = p.To.Add(-gatehouse.MaxRange)
	}
	ask := func(groupBy string, limit int, filters ...string) ([]gatehouse.InsightCount, bool) {
		v := url.Values{"groupBy": {groupBy}, "timeZone": {z.Loc.String()}, "limit": {strconv.Itoa(limit)},
			"dateFrom": {p.From.Format(time.RFC3339)}, "dateTo": {p.To.Format(time.RFC3339)}}
		for i := 0; i+1 < len(filters); i += 2 {
			v.Set(filters[i], filters[i+1])
		}
		q, err := d.Service.ReadInsightQuery(v)
		if err == nil {
			var counts []gatehouse.InsightCount
			if counts, _, err = d.Service.Insights(r.Context(), orgID, q, limit); err == nil {
				return counts, true
			}
		}
		d.fail(w, r, err)
		return nil, false
	}
	link := func(filters ...string) string {
		v := url.Values{"dateFrom": {p.From.In(z.Loc).Format(time.RFC3339)}}
		for i := 0; i+1 < len(filters); i += 2 {
			v.Set(filters[i], filters[i+1])
		}
		return Prefix + "/events?" + v.Encode()
	}
	rows := func(counts []gatehouse.InsightCount, param string, filters ...string) []insightRow {
		out := make([]insightRow, len(counts))
		for i, c := range counts {
			out[i] = insightRow{c, link(append([]string{param, c.Key}, filters...)...)}
		}
		return out
	}
	doors, ok := ask("accessPointId", 10)
	if !ok {
		return
	}
	p.Doors = rows(doors, "accessPointId")
	reasons, ok := ask("reason", 10)
	if !ok {
		return
	}
	p.Reasons = rows(reasons, "reason")
	players, ok := ask("platformUserId", 10, "allowed", "denied")
	if !ok {
		return
	}
	p.Players = rows(players, "platformUserId", "allowed", "denied")
	week, ok := ask("hourOfWeek", 168, "type", string(gatehouse.EventAccessDenied))
	if !ok {
		return
	}
	p.Week = heatMap(week)
	d.render(w, r, http.StatusOK, "insights", p)
}

// heatMap lays the denials by hour of the week out as rows of hours.
func heatMap(week []gatehouse.InsightCount) insightWeek {
	denied := map[string]int{}
	m := insightWeek{Days: weekdays}
	for _, c := range week {
		denied[c.Key] = c.Denied
		m.Max = max(m.Max, c.Denied)
	}
	for h := range 24 {
		row := insightHour{Label: strconv.Itoa(100 + h)[1:] + ":00"}
		for d := range 7 {
			n := denied[strconv.Itoa(d+1)+"-"+strconv.Itoa(100 + h)[1:]]
			shade := 0
			if n > 0 && m.Max > 0 {
				shade = 1 + 4*n/m.Max
				shade = min(shade, 5)
			}
			row.Cells = append(row.Cells, insightCell{Denied: n, Shade: shade,
				Title: weekdays[d] + " " + row.Label + ": " + strconv.Itoa(n) + " denied"})
		}
		m.Hours = append(m.Hours, row)
	}
	return m
}
