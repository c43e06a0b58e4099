package dashboard

import (
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

func TestPlaceNamesWhere(t *testing.T) {
	hq, front, side := uuid.New(), uuid.New(), uuid.New()
	n := placeNamesOf([]gatehouse.Location{{ID: hq, Name: "HQ", AccessPoints: []gatehouse.AccessPoint{{ID: front, Name: "Front"}, {ID: side, Name: "Side"}}}})
	for _, c := range []struct {
		g    gatehouse.Grant
		want string
	}{
		{gatehouse.Grant{LocationID: &hq}, "every access point of HQ"},
		{gatehouse.Grant{AccessPointIDs: []uuid.UUID{front, side}}, "Front · HQ, Side · HQ"},
		{gatehouse.Grant{AccessPointIDs: []uuid.UUID{}}, ""},
	} {
		if got := n.Where(c.g); got != c.want {
			t.Errorf("Where(%v, %v) = %q; want %q", c.g.LocationID, c.g.AccessPointIDs, got, c.want)
		}
	}
}
