package dashboard

import (
	"strings"

	"github.com/gatehouse/gatehouse"
)

// reachChoice is what the "reach" block of templates/reach.html shows:
// a checkbox per location, those of Chosen ticked, inside a disclosure
// that names them, so that a row of the Users page stays one line on a
// phone until opened. Name says whose choice it is, for screen readers.
type reachChoice struct {
	ID        string
	Name      string
	Locations []gatehouse.Location
	Chosen    gatehouse.Reach
}

// Summary names the chosen locations, or says all.
func (c reachChoice) Summary() string {
	if c.Chosen.Whole() {
		return "All locations"
	}
	names := make([]string, 0, len(c.Chosen))
	for _, l := range c.Locations {
		if c.Chosen.Has(l.ID) {
			names = append(names, l.Name)
		}
	}
	if len(names) == 0 {
		return "No location left"
	}
	return strings.Join(names, ", ")
}

// newReachChoice is the template function "reach".
func newReachChoice(id, name string, locs []gatehouse.Location, chosen gatehouse.Reach) reachChoice {
	return reachChoice{ID: id, Name: name, Locations: locs, Chosen: chosen}
}
