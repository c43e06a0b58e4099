package luasdk

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	lua "github.com/yuin/gopher-lua"
)

// jobID is the fake server's job id.
const jobID = "8d2f4c1e-job-one"

// generous lets the SDK's own budget, not the server's limit, bound it.
var generous = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1000, Per: time.Second}, Burst: 1000}

// game is a live Gatehouse and one fake game server running the SDK.
type game struct {
	t      *testing.T
	api    *apitest.API
	env    *Env
	admin  *client.Client // every scope
	events int            // attempts the test made the game record
}

type gameOptions struct {
	limit   ratelimit.Limit
	secrets map[string]string // nil: a game-server key under gatehouse_key
	noHTTP  bool              // "Allow HTTP Requests" off
	gameID  int64             // the game's universe; 0: 42, which apitest's location names
}

// newGame starts a server and a game whose SDK is not started yet.
func newGame(t *testing.T, o gameOptions) *game {
	t.Helper()
	if o.limit == (ratelimit.Limit{}) {
		o.limit = generous
	}
	if o.gameID == 0 {
		o.gameID = 42
	}
	a := apitest.Start(t, o.limit)
	if o.secrets == nil {
		o.secrets = map[string]string{"gatehouse_key": a.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite)}
	}
	admin, err := client.New(a.URL, a.Key, client.WithHTTPClient(a.Client))
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{
		SrcDir:       sdkSource,
		Start:        a.Clock.Now(),
		Secrets:      o.secrets,
		HTTPDisabled: o.noHTTP,
		JobID:        jobID,
		PlaceID:      1001,
		GameID:       o.gameID,
		Client:       a.Client,
		OnAdvance:    a.Clock.Advance,
	})
	t.Cleanup(e.Close)
	g := &game{t: t, api: a, env: e, admin: admin}
	t.Cleanup(func() {
		if len(e.Errors) > 0 {
			t.Errorf("Lua errors: %q", e.Errors)
		}
	})
	return g
}

// start starts the SDK with the options written as a Lua table body;
// the server's URL is added.
func (g *game) start(options string) {
	g.t.Helper()
	g.env.Run(fmt.Sprintf(`
		_G.Gatehouse = require(script.Parent.Gatehouse)
		Gatehouse.start({ url = %q, %s })
	`, g.api.URL, options))
	g.noErrors()
}

func (g *game) noErrors() {
	g.t.Helper()
	if len(g.env.Errors) > 0 {
		g.t.Fatalf("Lua errors: %q", g.env.Errors)
	}
}

// run runs Lua code as the game's script.
func (g *game) run(code string) {
	g.t.Helper()
	g.env.Run(code)
	g.noErrors()
}

// eval evaluates a Lua expression.
func (g *game) eval(expr string) lua.LValue {
	g.t.Helper()
	v, err := g.env.Eval(expr)
	if err != nil {
		g.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// stat reads one field of Gatehouse.stats().
func (g *game) stat(name string) lua.LValue {
	g.t.Helper()
	return g.eval("Gatehouse.stats()." + name)
}

func (g *game) statInt(name string) int {
	g.t.Helper()
	n, ok := g.stat(name).(lua.LNumber)
	if !ok {
		g.t.Fatalf("stats().%s is %v", name, g.stat(name))
	}
	return int(n)
}

// join adds players with user ids from..to.
func (g *game) join(from, to int64) []*Player {
	var ps []*Player
	for id := from; id <= to; id++ {
		p := &Player{UserID: id, Groups: map[int64]int{}}
		g.env.AddPlayer(p)
		ps = append(ps, p)
	}
	return ps
}

// record makes the game record n attempts of player userId at the door.
func (g *game) record(n int, userID int64, reason string) {
	g.t.Helper()
	r := "nil"
	if reason != "" {
		r = fmt.Sprintf("%q", reason)
	}
	g.run(fmt.Sprintf(`for i = 1, %d do Gatehouse.record(%q, %d, false, %s) end`, n, g.api.AccessPointID, userID, r))
	g.events += n
}

// stored returns every event the server holds, by id.
func (g *game) stored() map[string]client.Event {
	g.t.Helper()
	out := map[string]client.Event{}
	for ev, err := range g.admin.Events(context.Background(), client.EventQuery{Limit: 500}) {
		if err != nil {
			g.t.Fatal(err)
		}
		if _, dup := out[ev.ID]; dup {
			g.t.Fatalf("event %s listed twice", ev.ID)
		}
		out[ev.ID] = ev
	}
	return out
}

// setPolicy stores the door's policy.
func (g *game) setPolicy(p client.Policy) {
	g.t.Helper()
	if _, err := g.admin.SetPolicy(context.Background(), g.api.AccessPointID.String(), p, nil); err != nil {
		g.t.Fatal(err)
	}
}

func (g *game) warnings(substr string) int {
	n := 0
	for _, w := range g.env.Warnings {
		if strings.Contains(w, substr) {
			n++
		}
	}
	return n
}

// num evaluates a Lua expression that is a number.
func (g *game) num(expr string) int {
	g.t.Helper()
	n, ok := g.eval(expr).(lua.LNumber)
	if !ok {
		g.t.Fatalf("%s is not a number", expr)
	}
	return int(n)
}

func limitOf(n int, per time.Duration) ratelimit.Limit {
	return ratelimit.Limit{Rate: gatehouse.Rate{Count: n, Per: per}, Burst: n}
}
