package dashboard

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
)

// chartDefaultSpan is the chart's window when the filter has no dateFrom.
const chartDefaultSpan = 30 * 24 * time.Hour

// maxChartBars bounds the bars of one chart, whatever the window: at most
// gatehouse.MaxRange in days, and one more for a window that starts mid-day.
const maxChartBars = int(gatehouse.MaxRange/(24*time.Hour)) + 1

// eventChart draws granted and denied (and remote unlocks) per day — per
// hour for windows of two days or less — over the Event Log's filter, as
// an SVG image the page embeds, so the page itself never waits for it.
//
// The window ends at dateTo, or now; it starts at dateFrom, or 30 days
// earlier, but never more than gatehouse.MaxRange earlier (the API's rule
// for a range, applied here also when only dateFrom is given): without it
// dateFrom=0001-01-01 asked for 740,000 bars, a 52 MB image. The chart
// names the window it shows.
func (d *dashboard) eventChart(w http.ResponseWriter, r *http.Request) {
	f, ok := d.wholeFilter(w, r)
	if !ok {
		return
	}
	to := d.Now().UTC()
	if f.To != nil {
		to = *f.To
	}
	from := to.Add(-chartDefaultSpan)
	if f.From != nil {
		from = *f.From
	}
	if earliest := to.Add(-gatehouse.MaxRange); from.Before(earliest) {
		from = earliest
	}
	step := 24 * time.Hour
	if to.Sub(from) <= 48*time.Hour {
		step = time.Hour
	}
	from = from.UTC().Truncate(step)
	f.From, f.To = &from, &to
	counts, err := d.Service.CountEvents(r.Context(), viewerOf(r).user.OrgID, f, step)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if len(counts) > maxChartBars { // the window bounds them; this keeps the image bounded if that ever changes
		counts = counts[len(counts)-maxChartBars:]
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write([]byte(drawChart(counts, step, from, to)))
}

// drawChart draws stacked bars: denied at the bottom, granted above,
// remote unlocks on top, each bar with a tooltip. from and to are the
// window shown, said in the image's title.
func drawChart(counts []gatehouse.EventCount, step time.Duration, from, to time.Time) string {
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
	fmt.Fprintf(&b, `<title>Events per %s: %d granted, %d denied, from %s to %s</title>`,
		unit, granted, denied, gatehouse.FormatTime(from), gatehouse.FormatTime(to))
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
				c.Start.Format(layout), c.Granted, c.Denied, c.Other)
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
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, left, height-8, counts[0].Start.Format(layout))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, width, height-8, counts[len(counts)-1].Start.Format(layout))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
