package dashboard

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// reachChoice is what the "reach" block of templates/reach.html shows:
// inside a disclosure that names the chosen locations (so that a row of
// the Users page stays one line on a phone until opened), an explicit
// choice between all locations and those ticked, a checkbox per
// location, those of Chosen ticked. Name says whose choice it is, for
// screen readers. The choice is explicit, and Chosen's ids that no
// longer name a location ride along hidden, so that sending the form
// again never turns a reach that holds nothing now (its locations
// deleted) into the whole organization.
type reachChoice struct {
	Name      string
	All       string // what "whole" means here: "All locations", or all of a limited creator's
	Locations []gatehouse.Location
	Chosen    gatehouse.Reach
}

// Gone are Chosen's ids that name none of Locations.
func (c reachChoice) Gone() []uuid.UUID {
	var gone []uuid.UUID
	for _, id := range c.Chosen {
		if !slices.ContainsFunc(c.Locations, func(l gatehouse.Location) bool { return l.ID == id }) {
			gone = append(gone, id)
		}
	}
	return gone
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
func newReachChoice(name, all string, locs []gatehouse.Location, chosen gatehouse.Reach) reachChoice {
	return reachChoice{Name: name, All: all, Locations: locs, Chosen: chosen}
}

// formLocations reads a form's "reach" block: nil for all locations
// ("reach" whole), else the ids ticked and carried ("reach" limited, at
// least one). A post without "reach" (a script's) gives the ids alone,
// none meaning all.
func formLocations(r *http.Request) (gatehouse.Reach, error) {
	choice := r.PostFormValue("reach")
	if choice == "whole" {
		return nil, nil
	}
	ids := make([]uuid.UUID, 0, len(r.PostForm["locations"]))
	for _, s := range r.PostForm["locations"] {
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, gatehouse.Invalid("locations", "%q is not a location id", s)
		}
		ids = append(ids, id)
	}
	switch {
	case choice == "limited" && len(ids) == 0:
		return nil, gatehouse.Invalid("locations", "tick at least one location, or choose all of them")
	case choice != "limited" && choice != "":
		return nil, gatehouse.Invalid("reach", "choose all locations or those ticked")
	}
	return gatehouse.CheckReach("locations", ids)
}
