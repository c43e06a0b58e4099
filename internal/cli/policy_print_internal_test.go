package cli

import (
	"slices"
	"strings"
	"testing"
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
