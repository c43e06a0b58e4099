package gatehouse

import (
	"encoding/json"
	"testing"
	"time"
)

func utc(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }

// TestZoneOffsets: the periods of 2026 are the known daylight-saving
// changes of both hemispheres, the first period is the one containing
// the start, and a zone without changes is one period.
func TestZoneOffsets(t *testing.T) {
	from, to := utc(2026, 1, 1, 0), utc(2027, 1, 1, 0)
	for _, tc := range []struct {
		zone string
		want []ZoneOffset
	}{
		{"Europe/Berlin", []ZoneOffset{
			{Time(utc(2025, 10, 26, 1)), 3600},
			{Time(utc(2026, 3, 29, 1)), 7200},
			{Time(utc(2026, 10, 25, 1)), 3600},
		}},
		// Sydney leaves summer time on the first Sunday of April and
		// enters it on the first Sunday of October, at 16:00 UTC the day
		// before.
		{"Australia/Sydney", []ZoneOffset{
			{Time(utc(2025, 10, 4, 16)), 11 * 3600},
			{Time(utc(2026, 4, 4, 16)), 10 * 3600},
			{Time(utc(2026, 10, 3, 16)), 11 * 3600},
		}},
	} {
		got, err := ZoneOffsets(tc.zone, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if !sameOffsets(got, tc.want) {
			t.Errorf("%s: %s, want %s", tc.zone, offsetsJSON(got), offsetsJSON(tc.want))
		}
	}
	tokyo, err := ZoneOffsets("Asia/Tokyo", from, to)
	if err != nil || len(tokyo) != 1 || tokyo[0].OffsetSeconds != 9*3600 || time.Time(tokyo[0].From).After(from) {
		t.Errorf("Asia/Tokyo: %s, %v; want one period of +09:00 containing %s", offsetsJSON(tokyo), err, from)
	}
	if u, err := ZoneOffsets("UTC", from, to); err != nil || !sameOffsets(u, []ZoneOffset{{Time(from), 0}}) {
		t.Errorf("UTC: %s, %v; want one period of 0 from %s", offsetsJSON(u), err, from)
	}
	// Lord Howe moves by half an hour.
	lh, err := ZoneOffsets("Australia/Lord_Howe", from, to)
	if err != nil || len(lh) != 3 || lh[1].OffsetSeconds != 37800 || lh[2].OffsetSeconds != 39600 {
		t.Errorf("Australia/Lord_Howe: %s, %v", offsetsJSON(lh), err)
	}
	if _, err := ZoneOffsets("Mars/Olympus", from, to); err == nil {
		t.Error("an unknown zone gave offsets")
	}
}

// TestPolicySetZones: a set carries the zones of its schedules over this
// year and the next, its version does not move within a year, and it
// moves when the year does.
func TestPolicySetZones(t *testing.T) {
	berlin := &Policy{Mode: ModeRules, Schedule: &Schedule{TimeZone: "Europe/Berlin"}}
	sydney := &Policy{Mode: ModeRules, Schedule: &Schedule{TimeZone: "Australia/Sydney"}}
	aps := []AccessPointPolicy{{Policy: berlin}, {Policy: nil}, {Policy: &Policy{Mode: ModeOpen}}, {Policy: sydney}, {Policy: berlin}}
	jan := utc(2026, 1, 1, 0)
	set := NewPolicySet("42", aps, utc(2026, 11, 26, 4), nil)
	if len(set.Zones) != 2 || len(set.Zones["Europe/Berlin"]) != 5 || len(set.Zones["Australia/Sydney"]) != 5 {
		t.Fatalf("zones: %s", offsetsJSON(set.Zones))
	}
	for name, offsets := range set.Zones {
		if first := time.Time(offsets[0].From); first.After(jan) {
			t.Errorf("%s starts at %s, after %s", name, first, jan)
		}
		if last := time.Time(offsets[len(offsets)-1].From); !last.Before(utc(2028, 1, 1, 0)) {
			t.Errorf("%s reaches %s", name, last)
		}
	}
	for _, at := range []time.Time{jan, utc(2026, 6, 1, 12), utc(2026, 12, 31, 23)} {
		if again := NewPolicySet("42", aps, at, nil); again.Version != set.Version {
			t.Errorf("at %s the version is %s, at another instant of the year %s", at, again.Version, set.Version)
		}
	}
	if next := NewPolicySet("42", aps, utc(2027, 1, 1, 0), nil); next.Version == set.Version {
		t.Error("the version did not move with the year of the zones")
	}
	if empty := NewPolicySet("42", nil, jan, nil); empty.Zones == nil || len(empty.Zones) != 0 {
		t.Errorf("a set without schedules: zones %v, want {}", empty.Zones)
	}
}

func sameOffsets(a, b []ZoneOffset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].From.Equal(b[i].From) || a[i].OffsetSeconds != b[i].OffsetSeconds {
			return false
		}
	}
	return true
}

func offsetsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
