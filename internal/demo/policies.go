package demo

import (
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
)

// The platform ids the demo's policies name: the studio's group (whose
// ranks are its staff), the VIP pass sold in the club and the lounge, and
// the lounge's badge for regulars.
const (
	StaffGroup = "4207381"
	VIPPass    = "861234095"
	RegularTag = "2146331077"
)

// The ranks of the studio's group, as the policies use them.
const (
	rankTrainee  = 10
	rankStaff    = 50
	rankHost     = 100
	rankSecurity = 200
	rankOwner    = 255
)

var (
	weekdays = []string{"MON", "TUE", "WED", "THU", "FRI"}
	everyDay = []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"}
)

// policies are the rules of the demo's doors, by venue and door name:
// staff hours at Headquarters (Berlin, closed on public holidays, short
// hours on Christmas Eve), a club open 22:00–04:00 on Friday and Saturday
// nights (New York) with a VIP area for the pass and the hosts, a harbor
// with an OPEN side door, a lounge in Sydney (its daylight-saving runs the
// other way) and a roof nobody may open but a remote unlock. Deny rules
// and exception dates are placed relative to now, so that a demo made
// today shows a ban that ran out last month and a private party of three
// weeks ago. players is Population(), whose roles the rules name.
func policies(now time.Time, players []Player) map[string]map[string]gatehouse.Policy {
	day := func(days int) gatehouse.Time {
		y, m, d := now.AddDate(0, 0, days).Date()
		return gatehouse.Time(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
	}
	holidays := germanHolidays(now.Year()-1, now.Year()+1)
	staff := func(minRank int) gatehouse.AllowRule {
		return gatehouse.AllowRule{GroupID: StaffGroup, MinRank: &minRank}
	}
	nights := []gatehouse.Window{{Days: []string{"FRI", "SAT"}, From: "22:00", To: "04:00"}}
	return map[string]map[string]gatehouse.Policy{
		"Headquarters": {
			"Front door": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
				Windows:    []gatehouse.Window{{Days: weekdays, From: "08:00", To: "19:00"}},
				Exceptions: holidays}},
			"Staff entrance": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Europe/Berlin",
				Windows:    []gatehouse.Window{{Days: weekdays, From: "06:30", To: "21:00"}},
				Exceptions: holidays},
				Allow: []gatehouse.AllowRule{staff(rankTrainee)}},
			// Always in schedule: security and the owner, and one
			// security officer suspended during an audit that ended a
			// month ago.
			"Server room": {Mode: gatehouse.ModeRules,
				Allow: []gatehouse.AllowRule{staff(rankSecurity)},
				Deny:  []gatehouse.DenyRule{{PlatformUserID: players[playerSuspended].PlatformUserID, Until: ptr(day(-30))}}},
			"Roof access": {Mode: gatehouse.ModeLocked},
		},
		"Downtown Club": {
			"Front door": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "America/New_York", Windows: nights},
				Deny: []gatehouse.DenyRule{
					{PlatformUserID: players[playerBanned].PlatformUserID},
					{PlatformUserID: players[playerTimedOut].PlatformUserID, Until: ptr(day(14))},
				}},
			"VIP area": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "America/New_York", Windows: nights},
				Allow: []gatehouse.AllowRule{{GamepassID: VIPPass}, staff(rankHost)},
				Deny:  []gatehouse.DenyRule{{PlatformUserID: players[playerBanned].PlatformUserID}}},
			"Backstage": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "America/New_York",
				Windows: []gatehouse.Window{{Days: []string{"THU", "FRI", "SAT"}, From: "18:00", To: "05:00"}}},
				Allow: []gatehouse.AllowRule{staff(rankHost)}},
		},
		"Harbor Warehouse": {
			"Loading gate": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Asia/Tokyo",
				Windows: []gatehouse.Window{{Days: []string{"MON", "TUE", "WED", "THU", "FRI", "SAT"}, From: "05:00", To: "13:00"}}},
				Allow: []gatehouse.AllowRule{staff(rankStaff)}},
			"Side door": {Mode: gatehouse.ModeOpen,
				Deny: []gatehouse.DenyRule{{PlatformUserID: players[playerBanned].PlatformUserID}}},
		},
		"Sky Lounge": {
			"Elevator lobby": {Mode: gatehouse.ModeOpen},
			"VIP area": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Australia/Sydney",
				Windows: []gatehouse.Window{{Days: everyDay, From: "18:00", To: "02:00"}}},
				Allow: []gatehouse.AllowRule{{GamepassID: VIPPass}, {Premium: true}, {BadgeID: RegularTag}, staff(rankHost)}},
			"Terrace": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Australia/Sydney",
				Windows: []gatehouse.Window{{Days: everyDay, From: "10:00", To: "23:00"}},
				// A private party: the terrace opened late that day.
				Exceptions: []gatehouse.Exception{{Date: time.Time(day(-21)).Format(time.DateOnly),
					Windows: []gatehouse.TimeRange{{From: "20:00", To: "23:59"}}}}}},
			"Kitchen": {Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "Australia/Sydney",
				Windows: []gatehouse.Window{{Days: everyDay, From: "07:00", To: "24:00"}}},
				Allow: []gatehouse.AllowRule{staff(rankStaff)}, FailMode: gatehouse.FailOpen},
		},
	}
}

// germanHolidays are the fixed-date public holidays of Germany in the
// years from first to last as schedule exceptions: closed, but for
// Christmas Eve, which keeps the morning.
func germanHolidays(first, last int) []gatehouse.Exception {
	var out []gatehouse.Exception
	for y := first; y <= last; y++ {
		for _, md := range []string{"01-01", "05-01", "10-03", "12-24", "12-25", "12-26"} {
			e := gatehouse.Exception{Date: fmt.Sprintf("%04d-%s", y, md), Closed: true}
			if md == "12-24" {
				e.Closed, e.Windows = false, []gatehouse.TimeRange{{From: "08:00", To: "12:00"}}
			}
			out = append(out, e)
		}
	}
	return out
}
