package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestDayList: a window's days read Monday first, runs of three or more
// as a range, whatever order the policy gives them in.
func TestDayList(t *testing.T) {
	for days, want := range map[string]string{
		"MON TUE WED THU FRI":         "MON–FRI",
		"SAT SUN":                     "SAT, SUN",
		"FRI MON WED TUE":             "MON–WED, FRI",
		"SUN":                         "SUN",
		"MON TUE WED THU FRI SAT SUN": "every day",
		"MON WED FRI SAT SUN":         "MON, WED, FRI–SUN",
	} {
		if got := dayList(strings.Fields(days)); got != want {
			t.Errorf("dayList(%s) = %q, want %q", days, got, want)
		}
	}
}

// TestComparePaths: field paths sort as a reader meets them, indexes by
// number.
func TestComparePaths(t *testing.T) {
	paths := []string{"schedule.windows[10].to", "allow[2]", "schedule.windows[2].from", "", "allow[10].minRank", "allow[2].groupId", "mode"}
	slices.SortFunc(paths, comparePaths)
	want := []string{"", "allow[2]", "allow[2].groupId", "allow[10].minRank", "mode", "schedule.windows[2].from", "schedule.windows[10].to"}
	if !slices.Equal(paths, want) {
		t.Errorf("sorted %q, want %q", paths, want)
	}
}

// TestDecodeStrictKeepsOnlyWhatIsRight: fields misspelt in case, given
// twice or of the wrong type are reported and never reach the value.
func TestDecodeStrictKeepsOnlyWhatIsRight(t *testing.T) {
	var p gatehouse.Policy
	err := decodeStrict([]byte(`{"Mode": "OPEN", "mode": "RULES", "mode": "LOCKED",
		"allow": [{"groupId": "5", "minrank": 9}, 7, {"groupId": "6", "minRank": 2.5}], "version": 7, "updatedAt": "x"}`), policyShape, &p)
	ve, ok := err.(*gatehouse.ValidationError)
	if !ok {
		t.Fatalf("error %v", err)
	}
	want := map[string]string{"Mode": "is not a known field", "mode": "is given more than once", "allow[0].minrank": "is not a known field",
		"allow[1]": "must be a JSON object", "allow[2].minRank": "must be an integer"}
	if len(ve.Issues) != len(want) {
		t.Errorf("issues %v", ve.Issues)
	}
	for field, msg := range want {
		if got := ve.Issues[field]; len(got) != 1 || got[0] != msg {
			t.Errorf("%s: %q, want %q", field, got, msg)
		}
	}
	if p.Mode != gatehouse.ModeRules || len(p.Allow) != 3 || p.Allow[0].MinRank != nil || p.Allow[1] != (gatehouse.AllowRule{}) ||
		p.Allow[2].GroupID != "6" || p.Allow[2].MinRank != nil || p.Version != 0 || p.UpdatedAt != nil {
		t.Errorf("decoded %+v", p)
	}
}
