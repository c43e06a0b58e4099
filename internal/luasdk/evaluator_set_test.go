package luasdk

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	lua "github.com/yuin/gopher-lua"
)

// TestEvaluatorFromPolicySet: what a live server answers on GET /policies
// is all the SDK's evaluator needs. A policy in Lord Howe (whose clocks
// move by half an hour) and one in New York are compiled from the set's
// JSON and its zones, and decide as Gatehouse does at every instant of a
// sweep over the two years the zones cover, the minutes around each
// change of offset included; a few of them are asked of the server too.
func TestEvaluatorFromPolicySet(t *testing.T) {
	a := apitest.Start(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 100000, Per: time.Second}, Burst: 100000})
	ctx := context.Background()
	c, err := client.New(a.URL, a.Key, client.WithHTTPClient(a.Client))
	if err != nil {
		t.Fatal(err)
	}
	rank := 100
	policies := map[string]client.Policy{
		"Australia/Lord_Howe": {Mode: "RULES",
			Schedule: &client.Schedule{TimeZone: "Australia/Lord_Howe",
				Windows: []client.Window{
					{Days: []string{"SUN"}, From: "01:30", To: "02:45"}, // across the half hour the clocks move, both ways
					{Days: []string{"MON", "TUE", "WED", "THU", "FRI"}, From: "08:00", To: "18:00"},
					{Days: []string{"SAT"}, From: "21:00", To: "03:00"}},
				Exceptions: []client.Exception{{Date: "2026-04-05", Closed: true},
					{Date: "2026-10-04", Windows: []client.TimeRange{{From: "02:15", To: "02:30"}}}}},
			Allow: []client.AllowRule{{GroupID: "456", MinRank: &rank}, {GamepassID: "789"}},
			Deny:  []client.DenyRule{{PlatformUserID: "666", Until: ptr(time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC))}}},
		"America/New_York": {Mode: "RULES",
			Schedule: &client.Schedule{TimeZone: "America/New_York",
				Windows: []client.Window{{Days: []string{"SUN", "SAT"}, From: "00:30", To: "03:30"}, {Days: []string{"FRI"}, From: "20:00", To: "24:00"}}},
			Allow: []client.AllowRule{{Premium: true}}},
	}
	loc, err := a.Store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), a.OrgID, "Harbour")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Store.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), a.OrgID, loc.ID, "42"); err != nil {
		t.Fatal(err)
	}
	second, err := a.Store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), a.OrgID, loc.ID, "Pier")
	if err != nil {
		t.Fatal(err)
	}
	doors := map[string]string{a.AccessPointID.String(): "Australia/Lord_Howe", second.ID.String(): "America/New_York"}
	for door, zone := range doors {
		if _, err := c.SetPolicy(ctx, door, policies[zone], nil); err != nil {
			t.Fatal(err)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, a.URL+"/api/consumer/v1/policies?universeId=42", nil)
	req.Header.Set("Authorization", "Bearer "+a.Key)
	resp, err := a.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /policies: %d %s %v", resp.StatusCode, body, err)
	}
	var set gatehouse.PolicySet
	if err := json.Unmarshal(body, &set); err != nil {
		t.Fatal(err)
	}

	e := loadEvaluator(t)
	luaSet, err := LuaFromJSON(e.L, body)
	if err != nil {
		t.Fatal(err)
	}
	zones := luaSet.(*lua.LTable).RawGetString("zones")
	aps := luaSet.(*lua.LTable).RawGetString("accessPoints").(*lua.LTable)
	if aps.Len() != 2 || len(set.Zones) != 2 {
		t.Fatalf("the set: %s", body)
	}
	inputs := []gatehouse.DecisionInput{
		{PlatformUserID: "1", Attributes: gatehouse.PlayerAttributes{Groups: map[string]int{"456": 100}}},
		{PlatformUserID: "2", Attributes: gatehouse.PlayerAttributes{Groups: map[string]int{"456": 99}, Gamepasses: []string{"789"}}},
		{PlatformUserID: "3", Attributes: gatehouse.PlayerAttributes{Premium: true}},
		{PlatformUserID: "666", Attributes: gatehouse.PlayerAttributes{Premium: true, Groups: map[string]int{"456": 255}}},
	}
	luaInputs := make([]lua.LValue, len(inputs))
	for i, in := range inputs {
		luaInputs[i] = e.value(in)
	}
	decide := e.mod.RawGetString("decide")
	asked := 0
	for i := 1; i <= aps.Len(); i++ {
		ap := set.AccessPoints[i-1]
		out := e.call("compile", 2, aps.RawGetInt(i).(*lua.LTable).RawGetString("policy"), zones)
		compiled := out[0]
		if compiled == lua.LNil {
			t.Fatalf("%s: %s", ap.AccessPoint.Name, lua.LVAsString(out[1]))
		}
		goPolicy, err := ap.Policy.Compile()
		if err != nil {
			t.Fatal(err)
		}
		offsets := set.Zones[ap.Policy.Schedule.TimeZone]
		for _, at := range sweep(offsets) {
			for k, in := range inputs {
				want := gatehouse.Decide(goPolicy, in, at)
				if err := e.L.CallByParam(lua.P{Fn: decide, NRet: 1, Protect: true}, compiled, luaInputs[k], lua.LNumber(at.UnixMilli())); err != nil {
					t.Fatal(err)
				}
				got := e.decision(e.L.Get(-1))
				e.L.Pop(1)
				if got != want {
					t.Fatalf("%s, player %s at %s (%s): the SDK %+v, Gatehouse %+v", ap.AccessPoint.Name, in.PlatformUserID,
						at.Format(time.RFC3339), at.In(mustZone(t, ap.Policy.Schedule.TimeZone)).Format("Mon 2006-01-02 15:04"), got, want)
				}
			}
		}
		// The server itself, at the instants around each change of offset.
		for j := 1; j < len(offsets); j++ {
			at := time.Time(offsets[j].From).Add(-time.Minute)
			for _, at := range []time.Time{at, at.Add(2 * time.Minute)} {
				res, err := c.Decide(ctx, client.DecisionRequest{AccessPointID: ap.AccessPoint.ID.String(), PlatformUserID: "1",
					Attributes: &client.PlayerAttributes{Groups: map[string]int{"456": 100}, Premium: true}, At: &at})
				if err != nil {
					t.Fatal(err)
				}
				in := e.value(map[string]any{"platformUserId": "1", "attributes": map[string]any{"groups": map[string]any{"456": 100}, "premium": true}})
				got := e.decision(e.call("decide", 1, compiled, in, lua.LNumber(at.UnixMilli()))[0])
				if string(got.Allowed) != res.Allowed || got.Reason != res.Reason || got.Rule != res.Rule {
					t.Errorf("%s at %s: the SDK %+v, the server %+v", ap.AccessPoint.Name, at.Format(time.RFC3339), got, res)
				}
				asked++
			}
		}
	}
	if asked < 8 {
		t.Errorf("asked the server %d times", asked)
	}
}

// sweep is the instants to compare at: every 97 minutes over the span the
// zone's periods cover (so every minute of the week comes round), and the
// minutes around each change of offset.
func sweep(offsets []gatehouse.ZoneOffset) []time.Time {
	var out []time.Time
	start := time.Date(time.Time(offsets[len(offsets)-1].From).Year()-1, time.January, 1, 0, 0, 0, 0, time.UTC)
	for at := start; at.Before(start.AddDate(2, 0, 0)); at = at.Add(97 * time.Minute) {
		out = append(out, at)
	}
	for _, o := range offsets[1:] {
		for d := -90 * time.Minute; d <= 90*time.Minute; d += 15 * time.Minute {
			out = append(out, time.Time(o.From).Add(d), time.Time(o.From).Add(d-time.Millisecond))
		}
	}
	return out
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func ptr[T any](v T) *T { return &v }
