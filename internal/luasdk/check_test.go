package luasdk

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// Gatehouse.check decides locally as POST /decisions does for the same
// player at the same instant: schedule in the policy's time zone (from the
// policy set's zone table), groups, game passes, badges, Premium, deny;
// and it records each attempt.
func TestCheckAgreesWithGatehouse(t *testing.T) {
	g := newGame(t, gameOptions{})
	rank := 200
	until := g.api.Clock.Now().Add(3 * 24 * time.Hour)
	g.setPolicy(client.Policy{Mode: "RULES",
		Schedule: &client.Schedule{TimeZone: "Europe/Berlin", Windows: []client.Window{
			{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "09:00", To: "17:30"},
			{Days: []string{"SAT"}, From: "22:00", To: "02:00"},
		}},
		Allow: []client.AllowRule{{GroupID: "456", MinRank: &rank}, {GamepassID: "789"}, {BadgeID: "1011"}, {Premium: true}},
		Deny:  []client.DenyRule{{PlatformUserID: "6", Until: &until}},
	})
	g.start(`sync = false`) // the policies do not change: days of syncs would only slow the test
	players := []*Player{
		{UserID: 1, Groups: map[int64]int{456: 210}},
		{UserID: 2, Groups: map[int64]int{456: 100}},
		{UserID: 3, Gamepasses: map[int64]bool{789: true}},
		{UserID: 4, Badges: map[int64]bool{1011: true}},
		{UserID: 5, Premium: true},
		{UserID: 6, Premium: true}, // denied until `until`
	}
	for _, p := range players {
		g.env.AddPlayer(p)
	}
	g.env.Advance(time.Second)
	door := g.api.AccessPointID.String()
	checked := 0
	// Friday 2026-11-20 12:00 UTC on, every 97 minutes for five days:
	// inside and outside windows, Saturday night across midnight.
	for step := 0; step < 75; step++ {
		at := g.env.Wall()
		for i, p := range players {
			got := g.eval(fmt.Sprintf(`table.concat({ (function(a, r, rule) return tostring(a), r, rule end)(Gatehouse.check(game:GetService("Players"):GetPlayerByUserId(%d), %q)) }, " ")`, p.UserID, door)).String()
			attrs := &client.PlayerAttributes{Groups: map[string]int{}, Premium: p.Premium}
			for gid, r := range p.Groups {
				attrs.Groups[strconv.FormatInt(gid, 10)] = r
			}
			if p.Gamepasses[789] {
				attrs.Gamepasses = []string{"789"}
			}
			if p.Badges[1011] {
				attrs.Badges = []string{"1011"}
			}
			d, err := g.admin.Decide(context.Background(), client.DecisionRequest{AccessPointID: door,
				PlatformUserID: strconv.FormatInt(p.UserID, 10), ServerJobID: jobID, Attributes: attrs, At: &at})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%t %s %s", d.Allowed == "granted", d.Reason, d.Rule)
			if got != want {
				t.Errorf("%s, player %d: SDK %q, Gatehouse %q", at.Format(time.RFC3339), i+1, got, want)
			}
			checked++
		}
		g.env.Advance(97 * time.Minute)
	}
	g.env.Advance(10 * time.Second)
	if n := len(g.stored()); n != checked {
		t.Fatalf("%d attempts recorded of %d checked", n, checked)
	}
}
