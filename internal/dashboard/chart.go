package dashboard

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// chartEmptySpan is the chart's window when the filter has no dateFrom
// and no event matches in the last gatehouse.MaxRange.
const chartEmptySpan = 30 * 24 * time.Hour

// maxChartBars bounds the bars of one chart, whatever the window: at most
// gatehouse.MaxRange in days, and one more for a window that starts mid-day.
const maxChartBars = int(gatehouse.MaxRange/(24*time.Hour)) + 1

// eventChart draws granted and denied (and remote unlocks) per day — per
// hour for windows of two days or less — over the Event Log's filter, as
// an SVG image the page embeds, so the page itself never waits for it.
// Days and hours are the viewer's zone's (see zone.go), as the table's
// times and the date filters are.
//
// The window is the table's: it ends at dateTo, or now; it starts at
// dateFrom, or without one at the first matching event, but never more
// than gatehouse.MaxRange before its end (the API's rule for a range,
// applied here also when only dateFrom is given): without it
// dateFrom=0001-01-01 asked for 740,000 bars, a 52 MB image. The chart
// names the window it shows.
func (d *dashboard) eventChart(w http.ResponseWriter, r *http.Request) {
	f, ok := d.wholeFilter(w, r)
	if !ok {
		return
	}
	loc := zoneOf(r).Loc
	to := d.Now().UTC()
	if f.To != nil {
		to = *f.To
	}
	from := to.Add(-gatehouse.MaxRange)
	if f.From != nil && f.From.After(from) {
		from = *f.From
	}
	counts, step, from, err := d.countWindow(r, f, from, to, loc)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if f.From == nil { // start at the first matching event, as the table does
		first := slices.IndexFunc(counts, func(c gatehouse.EventCount) bool { return c.Granted+c.Denied+c.Other > 0 })
		switch {
		case first >= 0 && to.Sub(counts[first].Start) > 48*time.Hour: // still days: the counts are at hand
			counts, from = counts[first:], counts[first].Start
		case first >= 0: // hours: count again
			counts, step, from, err = d.countWindow(r, f, counts[first].Start, to, loc)
		default:
			counts, step, from, err = d.countWindow(r, f, to.Add(-chartEmptySpan), to, loc)
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
	}
	if len(counts) > maxChartBars { // the window bounds them; this keeps the image bounded if that ever changes
		counts = counts[len(counts)-maxChartBars:]
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write([]byte(drawChart(counts, step, from, to, loc)))
}

// countWindow counts f's events from from to to, per day of loc, or per
// hour for two days or less; the first bucket starts at the day's (or
// hour's) beginning in loc. It answers the counts, the step and that start.
func (d *dashboard) countWindow(r *http.Request, f gatehouse.EventFilter, from, to time.Time, loc *time.Location) ([]gatehouse.EventCount, time.Duration, time.Time, error) {
	step := 24 * time.Hour
	l := from.In(loc)
	from = time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	if to.Sub(from) <= 48*time.Hour {
		step = time.Hour
		from = time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, loc)
	}
	from = from.UTC()
	f.From, f.To = &from, &to
	counts, err := d.Service.CountEvents(r.Context(), viewerOf(r).user.OrgID, f, step)
	return counts, step, from, err
}

// drawChart draws stacked bars: denied at the bottom, granted above,
// remote unlocks on top, each bar with a tooltip. from and to are the
// window shown, said in the image's title.
func drawChart(counts []gatehouse.EventCount, step time.Duration, from, to time.Time, loc *time.Location) string {
	const width, height, left, bottom, top = 960, 220, 48, 28, 12
	peak, granted, denied := 1, 0, 0
	for _, c := range counts {
		peak = max(peak, c.Granted+c.Denied+c.Other)
		granted, denied = granted+c.Granted, denied+c.Denied
	}
	unit, layout := "day", "2006-01-02"
	if step < 24*time.Hour {
		unit, layout = "hour", "2006-01-02 15:00"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="Events per %s: %d granted, %d denied in all">`,
		width, height, unit, granted, denied)
	fmt.Fprintf(&b, `<title>Events per %s (%s): %d granted, %d denied, from %s to %s</title>`,
		unit, loc, granted, denied, shownWindowEnd(from, loc), shownWindowEnd(to, loc))
	b.WriteString(`<style>text{font:11px system-ui,sans-serif;fill:#5d6678}.g{fill:#3a9d68}.d{fill:#d1453b}.o{fill:#8c96a8}</style>`)
	plotH := float64(height - bottom - top)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#dde1e8"/>`, left, height-bottom, width, height-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">0</text>`,
		left-6, top+8, peak, left-6, height-bottom)
	if len(counts) > 0 {
		barW := float64(width-left) / float64(len(counts))
		for i, c := range counts {
			x := float64(left) + float64(i)*barW
			y := float64(height - bottom)
			fmt.Fprintf(&b, `<g><title>%s: %d granted, %d denied, %d remote unlocks</title>`,
				c.Start.In(loc).Format(layout), c.Granted, c.Denied, c.Other)
			for _, part := range []struct {
				n     int
				class string
			}{{c.Denied, "d"}, {c.Granted, "g"}, {c.Other, "o"}} {
				h := plotH * float64(part.n) / float64(peak)
				y -= h
				if part.n > 0 {
					fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, part.class, x+barW*0.1, y, barW*0.8, h)
				}
			}
			b.WriteString(`</g>`)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, left, height-8, counts[0].Start.In(loc).Format(layout))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, width, height-8, counts[len(counts)-1].Start.In(loc).Format(layout))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// shownWindowEnd writes an end of the chart's window in loc, to the
// millisecond with its offset, as the API writes times (Z for UTC).
func shownWindowEnd(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02T15:04:05.000Z07:00")
}
