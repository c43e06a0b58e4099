package dashboard

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestWeekCarriesWindowsPastMidnight: a window that ends at or before it
// starts continues at the top of the next day, Sunday's on Monday; one
// that ends at 24:00 or 00:00 does not; windows whose times do not read
// are left out rather than drawn wrong.
func TestWeekCarriesWindowsPastMidnight(t *testing.T) {
	w := weekOf([]windowRow{
		{Days: []string{"SUN"}, From: "22:00", To: "02:00"},
		{Days: []string{"MON"}, From: "18:00", To: "24:00"},
		{Days: []string{"TUE"}, From: "20:00", To: "00:00"},
		{Days: []string{"WED"}, From: "9:00", To: "17:00"},
		{Days: []string{"XYZ"}, From: "09:00", To: "17:00"},
	})
	type drawn struct {
		day, from, to int // column, minutes
		next          bool
	}
	var got []drawn
	for _, b := range w.Blocks {
		got = append(got, drawn{(b.X - weekLeft) / weekColumn, (b.Y - weekTop) * 60 / weekHour, (b.Y - weekTop + b.H) * 60 / weekHour, b.Next})
	}
	want := []drawn{{6, 22 * 60, 24 * 60, false}, {0, 0, 2 * 60, true}, {0, 18 * 60, 24 * 60, false}, {1, 20 * 60, 24 * 60, false}}
	if len(got) != len(want) {
		t.Fatalf("blocks %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestDescribeRule names each kind of rule a decision gives from the
// policy, and only a path the policy has.
func TestDescribeRule(t *testing.T) {
	rank := 3
	until := gatehouse.Time(time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC))
	p := &gatehouse.Policy{Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
		Windows:    []gatehouse.Window{{Days: []string{"FRI", "SAT"}, From: "22:00", To: "04:00"}},
		Exceptions: []gatehouse.Exception{{Date: "2026-12-31", Windows: []gatehouse.TimeRange{{From: "18:00", To: "02:00"}}}}},
		Allow: []gatehouse.AllowRule{{GroupID: "7", MinRank: &rank}, {Premium: true}},
		Deny:  []gatehouse.DenyRule{{PlatformUserID: "666", Until: &until}}}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for rule, want := range map[string]string{
		"allow[0]":                          "allow rule 1: members of group 7 of rank 3 or more",
		"allow[1]":                          "allow rule 2: Premium members",
		"allow[2]":                          "",
		"allow[0]x":                         "",
		"deny[0]":                           "deny rule 1: player 666, until 2026-12-01 18:00 CET",
		"schedule.windows[0]":               "weekly window 1: FRI, SAT 22:00–04:00",
		"schedule.exceptions[0].windows[0]": "the special hours 18:00–02:00 of 2026-12-31",
		"schedule.exceptions[0]":            "the exception of 2026-12-31: special hours only",
		"schedule":                          "the schedule as a whole",
		"remoteUnlock":                      "an active remote unlock",
		"mode":                              "the mode, RULES",
	} {
		if got := describeRule(rule, p, berlin); got != want {
			t.Errorf("%s: %q, want %q", rule, got, want)
		}
	}
}
