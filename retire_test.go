package gatehouse_test

import (
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestRetireMessages: what an archived record and a refused delete say,
// each a conflict that says what to do instead; counts past the bound
// read "at least".
func TestRetireMessages(t *testing.T) {
	at := gatehouse.Time{}
	for _, c := range []struct {
		err  error
		want string
	}{
		{gatehouse.AccessPoint{Name: "Gate", ArchivedAt: &at}.Writable(), `access point "Gate" is archived: restore it first`},
		{gatehouse.AccessPoint{Name: "Gate", LocationArchived: true}.Writable(), `the location of access point "Gate" is archived: restore the location first`},
		{gatehouse.Location{Name: "HQ", ArchivedAt: &at}.Writable(), `location "HQ" is archived: restore it first`},
		{gatehouse.History{Events: 1}.Deletable("access point", "Gate"), `access point "Gate" has 1 event: archive it instead`},
		{gatehouse.History{Events: gatehouse.MaxHistoryCount, Commands: 3}.Deletable("access point", "Gate"), `access point "Gate" has at least 10000 events: archive it instead`},
		{gatehouse.History{Commands: 2}.Deletable("access point", "Gate"), `access point "Gate" has 2 remote commands: archive it instead`},
		{gatehouse.History{AccessPoints: 2, Events: 5}.Deletable("location", "HQ"), `location "HQ" has 2 access points: archive it, or delete or move its access points first`},
		{gatehouse.History{Lockdowns: 1}.Deletable("location", "HQ"), `location "HQ" has 1 lockdown: archive it instead`},
	} {
		var se *gatehouse.StateError
		if !errors.As(c.err, &se) || !errors.Is(c.err, gatehouse.ErrConflict) || c.err.Error() != c.want {
			t.Errorf("%v, want the conflict %q", c.err, c.want)
		}
	}
	for _, err := range []error{gatehouse.AccessPoint{Name: "Gate"}.Writable(), gatehouse.Location{Name: "HQ"}.Writable(),
		gatehouse.History{}.Deletable("location", "HQ")} {
		if err != nil {
			t.Errorf("a record in use, or nothing naming it: %v", err)
		}
	}
}
