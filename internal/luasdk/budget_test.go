package luasdk

import (
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
)

// A busy server (50 players, each at the door every second) never spends
// more than its budget in any virtual minute, whatever the budget, and
// everything it decided arrives.
func TestBudgetHoldsUnderABusyServer(t *testing.T) {
	for _, budget := range []int{60, 10} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) {
			g := newGame(t, gameOptions{})
			rank := 200
			g.setPolicy(client.Policy{Mode: "RULES", Allow: []client.AllowRule{{GroupID: "456", MinRank: &rank}}})
			g.start(fmt.Sprintf(`budgetPerMinute = %d`, budget))
			players := g.join(1, 50)
			for i, p := range players {
				if i%2 == 0 {
					p.Groups[456] = 210
				}
			}
			g.env.Advance(time.Second) // the policies arrive
			g.run(fmt.Sprintf(`
				_G.granted, _G.denied = 0, 0
				task.spawn(function()
					while not _G.stop do
						for _, p in ipairs(game:GetService("Players"):GetPlayers()) do
							if Gatehouse.check(p, %q) then
								_G.granted = _G.granted + 1
							else
								_G.denied = _G.denied + 1
							end
						end
						task.wait(1)
					end
				end)
			`, g.api.AccessPointID))
			const minutes = 10
			start := g.env.Now()
			g.env.Advance(minutes * time.Minute)
			elapsed := g.env.Now() - start
			sentBusy := g.statInt("sent")
			g.run(`_G.stop = true`)
			g.env.Advance(2 * time.Minute) // what is queued drains
			granted, denied := g.num("_G.granted"), g.num("_G.denied")
			perMinute := g.env.RequestsPerMinute()
			for m, n := range perMinute {
				if n > budget {
					t.Errorf("minute %d: %d requests, budget %d", m, n, budget)
				}
			}
			t.Logf("budget %d/min, 50 players at the door every second for %d virtual minutes: requests per virtual minute %v (POST /events %d, sync %d, GET /policies %d); %d events stored while busy, %.1f events/s sustained",
				budget, minutes, perMinute, g.env.Paths["POST /api/consumer/v1/events"], g.env.Paths["POST /api/consumer/v1/servers/"+jobID+"/sync"],
				g.env.Paths["GET /api/consumer/v1/policies"], sentBusy, float64(sentBusy)/elapsed.Seconds())
			if granted != denied || granted < 50*60*minutes/2 {
				t.Errorf("granted %d denied %d: want half of the players (those ranked 210 in group 456) let in", granted, denied)
			}
			if got := len(g.stored()); got != granted+denied || g.statInt("sent") != got || g.statInt("queued") != 0 {
				t.Errorf("stored %d, sent %d, queued %d of %d decided", got, g.statInt("sent"), g.statInt("queued"), granted+denied)
			}
		})
	}
}
