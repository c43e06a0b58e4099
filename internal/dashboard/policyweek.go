package dashboard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// The visual week: seven columns of 24 hours, each weekly window drawn
// as a block on the days it names, and a window that crosses midnight
// continued at the top of the next day (Sunday's on Monday). It is inline
// SVG drawn on the server: the page's Content-Security-Policy allows no
// inline style, and SVG's geometry is attributes.

// Geometry of the week, in SVG units.
const (
	weekLeft   = 44 // the hour labels
	weekTop    = 22 // the day labels
	weekColumn = 100
	weekHour   = 14
	weekWidth  = weekLeft + 7*weekColumn
	weekBottom = weekTop + 24*weekHour
	weekHeight = weekBottom + 8 // room for the 24:00 label
)

// week is what the template draws.
type week struct {
	Width, Height int
	Days          []weekLabel
	Hours         []weekLabel
	Lines         []weekLine
	Blocks        []weekBlock
}

type weekLabel struct {
	X, Y int
	Text string
}

type weekLine struct{ X1, Y1, X2, Y2 int }

// weekBlock is a window's part on one day; Next marks the part carried
// past midnight onto the next day.
type weekBlock struct {
	X, Y, W, H int
	Title      string
	Next       bool
}

// weekOf draws the windows; those whose times do not read (a form with
// mistakes) are left out.
func weekOf(windows []windowRow) week {
	w := week{Width: weekWidth, Height: weekHeight}
	for d, name := range gatehouse.Weekdays {
		x := weekLeft + d*weekColumn
		w.Days = append(w.Days, weekLabel{X: x + weekColumn/2, Y: weekTop - 7, Text: name})
		w.Lines = append(w.Lines, weekLine{x, weekTop, x, weekBottom})
	}
	w.Lines = append(w.Lines, weekLine{weekWidth, weekTop, weekWidth, weekBottom})
	for h := 0; h <= 24; h += 3 {
		y := weekTop + h*weekHour
		w.Hours = append(w.Hours, weekLabel{X: weekLeft - 4, Y: y + 4, Text: fmt.Sprintf("%02d:00", h)})
		w.Lines = append(w.Lines, weekLine{weekLeft, y, weekWidth, y})
	}
	for i, win := range windows {
		from, okFrom := clockMinutes(win.From)
		to, okTo := clockMinutes(win.To)
		if !okFrom || !okTo || from == to || from >= 24*60 {
			continue
		}
		title := fmt.Sprintf("Window %d: %s %s–%s", i+1, strings.Join(win.Days, " "), win.From, win.To)
		for _, day := range win.Days {
			d := dayNumber(day)
			if d < 0 {
				continue
			}
			end := to
			if to <= from {
				end = 24 * 60
			}
			w.Blocks = append(w.Blocks, block(d, from, end, title, false))
			if to < from && to > 0 {
				w.Blocks = append(w.Blocks, block((d+1)%7, 0, to, title+" (from the day before)", true))
			}
		}
	}
	return w
}

func block(day, from, to int, title string, next bool) weekBlock {
	return weekBlock{X: weekLeft + day*weekColumn + 3, Y: weekTop + from*weekHour/60, W: weekColumn - 6,
		H: max((to-from)*weekHour/60, 2), Title: title, Next: next}
}

// clockMinutes reads "HH:MM" (00:00 to 24:00) as minutes since midnight.
func clockMinutes(s string) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || hh == 24 && mm != 0 {
		return 0, false
	}
	return hh*60 + mm, true
}

// dayNumber is a day's column, Monday first, or -1.
func dayNumber(day string) int {
	for i, d := range gatehouse.Weekdays {
		if d == day {
			return i
		}
	}
	return -1
}
