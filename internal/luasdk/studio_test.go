package luasdk

import (
	"strings"
	"testing"
	"time"
)

// In Studio (no secret, or HTTP off) the SDK sends nothing: decisions
// come from the policy table given in code, events are printed.
func TestStudioModeDecidesFromCode(t *testing.T) {
	for name, o := range map[string]gameOptions{
		"no secret": {secrets: map[string]string{}},
		"no HTTP":   {noHTTP: true},
	} {
		t.Run(name, func(t *testing.T) {
			g := newGame(t, o)
			g.start(`policies = {
				["vip-door"] = { mode = "RULES", allow = { { platformUserId = "7" } } },
				["front-door"] = { mode = "OPEN" },
			}`)
			g.join(7, 8)
			g.env.Advance(10 * time.Second)
			g.run(`
				local players = game:GetService("Players"):GetPlayers()
				local a, ra = Gatehouse.check(players[1], "vip-door")
				local b, rb = Gatehouse.check(players[2], "vip-door")
				local c, rc = Gatehouse.check(players[2], "front-door")
				local d, rd = Gatehouse.check(players[2], "unknown-door")
				_G.out = table.concat({ tostring(a), ra, tostring(b), rb, tostring(c), rc, tostring(d), rd }, " ")
			`)
			g.env.Advance(time.Minute)
			if got, want := g.eval(`_G.out`).String(), "true ALLOWLIST false NOT_ON_ALLOWLIST true OPEN false ACCESS_POINT_DISABLED"; got != want {
				t.Errorf("decisions %q, want %q", got, want)
			}
			printed := 0
			for _, p := range g.env.Prints {
				if strings.HasPrefix(p, "Gatehouse event") && strings.Contains(p, "vip-door") {
					printed++
				}
			}
			if printed != 2 {
				t.Errorf("%d vip-door events printed, want 2: %q", printed, g.env.Prints)
			}
			if g.stat("offline").String() != "true" {
				t.Error("stats do not say offline")
			}
			if o.noHTTP {
				if n := len(g.stored()); n != 0 {
					t.Errorf("%d events stored", n)
				}
			} else if n := g.api.Requests.Load(); n != 0 {
				t.Errorf("%d requests reached the server", n)
			}
		})
	}
}

// A policy the SDK cannot decide by (here a schedule whose zone the table
// lacks) follows its own failMode, not a guess.
func TestUndecidablePolicyFollowsItsFailMode(t *testing.T) {
	g := newGame(t, gameOptions{secrets: map[string]string{}})
	g.start(`policies = {
		["a"] = { mode = "RULES", schedule = { timeZone = "Europe/Berlin", windows = { { days = { "MON" }, from = "09:00", to = "17:00" } } }, failMode = "OPEN" },
		["b"] = { mode = "RULES", schedule = { timeZone = "Europe/Berlin", windows = { { days = { "MON" }, from = "09:00", to = "17:00" } } } },
	}`)
	g.join(7, 7)
	g.run(`
		local p = game:GetService("Players"):GetPlayers()[1]
		_G.out = tostring(Gatehouse.check(p, "a")) .. " " .. tostring(Gatehouse.check(p, "b"))
	`)
	if got := g.eval(`_G.out`).String(); got != "true false" {
		t.Fatalf("got %q, want true false", got)
	}
	if g.warnings("not usable") != 2 {
		t.Fatalf("warnings %q", g.env.Warnings)
	}
}
