package luasdk

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	lua "github.com/yuin/gopher-lua"
)

// sdkSource is the SDK's package as a studio installs it.
const sdkSource = "../../sdk/luau/src"

// evaluator is Evaluator.luau loaded in a fresh VM.
type evaluator struct {
	t   testing.TB
	L   *lua.LState
	mod *lua.LTable
}

func loadEvaluator(t testing.TB) *evaluator {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	if err := L.DoFile(filepath.Join(sdkSource, "Evaluator.luau")); err != nil {
		t.Fatal(err)
	}
	mod, ok := L.Get(-1).(*lua.LTable)
	L.Pop(1)
	if !ok {
		t.Fatal("Evaluator.luau returns no module table")
	}
	return &evaluator{t: t, L: L, mod: mod}
}

// call calls the module's function name and returns its results.
func (e *evaluator) call(name string, nret int, args ...lua.LValue) []lua.LValue {
	e.t.Helper()
	fn := e.mod.RawGetString(name)
	if fn.Type() != lua.LTFunction {
		e.t.Fatalf("Evaluator.%s is a %s", name, fn.Type())
	}
	if err := e.L.CallByParam(lua.P{Fn: fn, NRet: nret, Protect: true}, args...); err != nil {
		e.t.Fatalf("Evaluator.%s: %v", name, err)
	}
	out := make([]lua.LValue, nret)
	for i := range out {
		out[i] = e.L.Get(i - nret)
	}
	e.L.Pop(nret)
	return out
}

// value converts v (JSON-shaped Go data, or any value through its JSON).
func (e *evaluator) value(v any) lua.LValue {
	e.t.Helper()
	lv, err := LuaValue(e.L, v)
	if err != nil {
		e.t.Fatal(err)
	}
	return lv
}

// compile is Evaluator.compile(policy, zones): the compiled policy, or
// the message that refuses it.
func (e *evaluator) compile(policy, zones any) (lua.LValue, string) {
	out := e.call("compile", 2, e.value(policy), e.value(zones))
	if out[0] == lua.LNil {
		return nil, lua.LVAsString(out[1])
	}
	return out[0], ""
}

// decision reads a decide answer as the Go evaluator's.
func (e *evaluator) decision(v lua.LValue) gatehouse.Decision {
	e.t.Helper()
	t, ok := v.(*lua.LTable)
	if !ok {
		e.t.Fatalf("a decision is a %s", v.Type())
	}
	d := gatehouse.Decision{Allowed: gatehouse.Denied, Reason: lua.LVAsString(t.RawGetString("reason")), Rule: lua.LVAsString(t.RawGetString("rule"))}
	switch t.RawGetString("allowed") {
	case lua.LTrue:
		d.Allowed = gatehouse.Granted
	case lua.LFalse:
	default:
		e.t.Fatalf("allowed is %v, not a boolean", t.RawGetString("allowed"))
	}
	return d
}

func (e *evaluator) decide(compiled lua.LValue, input any, at time.Time) gatehouse.Decision {
	return e.decision(e.call("decide", 1, compiled, e.value(input), lua.LNumber(at.UnixMilli()))[0])
}

type vector struct {
	Name   string             `json:"name"`
	Policy json.RawMessage    `json:"policy"`
	Input  json.RawMessage    `json:"input"`
	At     string             `json:"at"`
	Want   gatehouse.Decision `json:"want"`
}

func loadVectors(t *testing.T) []vector {
	t.Helper()
	b, err := os.ReadFile("../../conformance/decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []vector `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 250 {
		t.Fatalf("%d cases, want at least 250", len(file.Cases))
	}
	return file.Cases
}

// jsonOf decodes raw into JSON-shaped Go data (numbers as json.Number).
func jsonOf(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// zonesFor is a policy set's zones for a policy decided at an instant:
// its zone's offsets over the instant's year, the year before and the
// year after, as GET /policies gives them.
func zonesFor(t *testing.T, p gatehouse.Policy, at time.Time) map[string][]gatehouse.ZoneOffset {
	t.Helper()
	zones := map[string][]gatehouse.ZoneOffset{}
	if p.Schedule == nil {
		return zones
	}
	y := at.UTC().Year()
	offsets, err := gatehouse.ZoneOffsets(p.Schedule.TimeZone,
		time.Date(y-1, time.January, 1, 0, 0, 0, 0, time.UTC), time.Date(y+2, time.January, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	zones[p.Schedule.TimeZone] = offsets
	return zones
}

// TestEvaluatorConformance runs every vector of conformance/decisions.json
// through the SDK's evaluator, as TestConformance runs them through the
// Go one: each twice, with the unlocks' from and until as the RFC 3339 of
// the file and as epoch milliseconds, which is how the SDK holds them.
func TestEvaluatorConformance(t *testing.T) {
	e := loadEvaluator(t)
	for _, c := range loadVectors(t) {
		at, err := time.Parse(time.RFC3339Nano, c.At)
		if err != nil {
			t.Fatalf("%s: at: %v", c.Name, err)
		}
		if got := e.call("parseTime", 1, lua.LString(c.At))[0]; got != lua.LNumber(at.UnixMilli()) {
			t.Errorf("%s: parseTime(%q) = %v, want %d", c.Name, c.At, got, at.UnixMilli())
		}
		var p gatehouse.Policy
		if err := json.Unmarshal(c.Policy, &p); err != nil {
			t.Fatalf("%s: policy: %v", c.Name, err)
		}
		compiled, msg := e.compile(jsonOf(t, c.Policy), zonesFor(t, p, at))
		if msg != "" {
			t.Errorf("%s: compile: %s", c.Name, msg)
			continue
		}
		input := jsonOf(t, c.Input).(map[string]any)
		if got := e.decide(compiled, input, at); got != c.Want {
			t.Errorf("%s: at %s got %+v, want %+v", c.Name, c.At, got, c.Want)
		}
		unlocks, _ := input["unlocks"].([]any)
		if len(unlocks) == 0 {
			continue
		}
		for _, u := range unlocks {
			u := u.(map[string]any)
			for _, field := range []string{"until", "from"} {
				s, ok := u[field].(string)
				if !ok {
					continue
				}
				instant, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					t.Fatalf("%s: %s: %v", c.Name, field, err)
				}
				u[field] = instant.UnixMilli()
			}
		}
		if got := e.decide(compiled, input, at); got != c.Want {
			t.Errorf("%s: with until in milliseconds, at %s got %+v, want %+v", c.Name, c.At, got, c.Want)
		}
	}
}

// TestEvaluatorWithoutPolicy: an access point without a policy is decided
// by its fail mode, as DecideWithoutPolicy does, an active unlock first;
// decide with no compiled policy fails closed.
func TestEvaluatorWithoutPolicy(t *testing.T) {
	e := loadEvaluator(t)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	player := map[string]any{"platformUserId": "42", "serverJobId": "job-a"}
	unlockedUntil := func(scope string, until time.Time) map[string]any {
		return map[string]any{"platformUserId": "42", "serverJobId": "job-a",
			"unlocks": []any{map[string]any{"scope": scope, "platformUserId": "42", "serverJobId": "job-a", "until": until.UnixMilli()}}}
	}
	goInput := func(in map[string]any) gatehouse.DecisionInput {
		r := gatehouse.DecisionInput{PlatformUserID: "42", ServerJobID: "job-a"}
		unlocks, _ := in["unlocks"].([]any)
		for _, u := range unlocks {
			u := u.(map[string]any)
			r.Unlocks = append(r.Unlocks, gatehouse.ActiveUnlock{Scope: gatehouse.CommandScope(u["scope"].(string)),
				PlatformUserID: "42", ServerJobID: "job-a", Until: gatehouse.Time(time.UnixMilli(u["until"].(int64)))})
		}
		return r
	}
	for _, mode := range []gatehouse.FailMode{gatehouse.FailClosed, gatehouse.FailOpen, ""} {
		for _, in := range []map[string]any{player,
			unlockedUntil("PLAYER", at.Add(time.Second)), unlockedUntil("SERVER", at.Add(time.Millisecond)),
			unlockedUntil("UNIVERSE", at)} {
			want := gatehouse.DecideWithoutPolicy(mode, goInput(in), at)
			got := e.decision(e.call("decideWithoutPolicy", 1, lua.LString(mode), e.value(in), lua.LNumber(at.UnixMilli()))[0])
			if got != want {
				t.Errorf("decideWithoutPolicy(%q, %v) = %+v, want %+v", mode, in, got, want)
			}
		}
	}
	want := gatehouse.Decide(nil, goInput(player), at)
	if got := e.decision(e.call("decide", 1, lua.LNil, e.value(player), lua.LNumber(at.UnixMilli()))[0]); got != want {
		t.Errorf("decide(nil) = %+v, want %+v", got, want)
	}
}

// TestEvaluatorParseTime: the SDK reads an RFC 3339 instant as Go does,
// to the millisecond (further digits dropped, as UnixMilli does), and
// refuses what Go refuses.
func TestEvaluatorParseTime(t *testing.T) {
	e := loadEvaluator(t)
	for _, s := range []string{
		"2026-11-25T10:00:00Z", "2026-11-25T10:00:00+01:00", "2026-03-29T01:59:59.999-09:30",
		"2024-02-29T23:59:59.5+14:00", "2000-02-29T00:00:00.000Z", "1970-01-01T00:00:00Z",
		"1969-12-31T23:59:59.999Z", "1900-03-01T12:00:00-00:00", "0001-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999Z", "2026-12-31T23:59:59.123456789+05:45",
	} {
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := e.call("parseTime", 1, lua.LString(s))[0]; got != lua.LNumber(want.UnixMilli()) {
			t.Errorf("parseTime(%q) = %v, want %d", s, got, want.UnixMilli())
		}
	}
	for _, s := range []string{
		"", "2026-11-25", "2026-11-25T10:00:00", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-11-25T24:00:00Z", "2026-11-25T10:60:00Z", "2026-11-25T10:00:60Z",
		"2026-11-25T10:00:00+0100", "2026-11-25 10:00:00Z", "2026-11-25T10:00:00.Z",
		"2026-11-25T10:00:00Z ", "+2026-11-25T10:00:00Z",
	} {
		if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t.Fatalf("Go reads %q", s)
		}
		if got := e.call("parseTime", 1, lua.LString(s))[0]; got != lua.LNil {
			t.Errorf("parseTime(%q) = %v, want nil", s, got)
		}
	}
}

// TestEvaluatorRefuses: a policy that cannot be decided by is refused
// with the field that is wrong, so that a Studio policy written in code
// says what to fix; a schedule whose zone the set does not carry too.
func TestEvaluatorRefuses(t *testing.T) {
	e := loadEvaluator(t)
	zones := map[string]any{"Europe/Berlin": []any{map[string]any{"from": "2026-01-01T00:00:00Z", "offsetSeconds": 3600}}}
	berlin := func(windows ...any) map[string]any {
		return map[string]any{"timeZone": "Europe/Berlin", "windows": windows}
	}
	window := func(days []any, from, to string) map[string]any {
		return map[string]any{"days": days, "from": from, "to": to}
	}
	for _, tc := range []struct {
		policy map[string]any
		field  string
	}{
		{map[string]any{"mode": "AJAR"}, "mode"},
		{map[string]any{"mode": "RULES", "failMode": "MAYBE"}, "failMode"},
		{map[string]any{"mode": "RULES", "schedule": map[string]any{"timeZone": "Asia/Tokyo"}}, "schedule.timeZone"},
		{map[string]any{"mode": "RULES", "schedule": berlin(window([]any{"MON"}, "09:00", "17:00"), window([]any{"MON", "FUN"}, "09:00", "17:00"))}, "schedule.windows[1].days[1]"},
		{map[string]any{"mode": "RULES", "schedule": berlin(window([]any{}, "09:00", "17:00"))}, "schedule.windows[0].days"},
		{map[string]any{"mode": "RULES", "schedule": berlin(window([]any{"MON"}, "24:00", "17:00"))}, "schedule.windows[0].from"},
		{map[string]any{"mode": "RULES", "schedule": berlin(window([]any{"MON"}, "09:00", "9:00"))}, "schedule.windows[0].to"},
		{map[string]any{"mode": "RULES", "schedule": berlin(window([]any{"MON"}, "09:00", "09:00"))}, "schedule.windows[0].to"},
		{map[string]any{"mode": "RULES", "schedule": map[string]any{"timeZone": "Europe/Berlin",
			"exceptions": []any{map[string]any{"date": "2026-02-30", "closed": true}}}}, "schedule.exceptions[0].date"},
		{map[string]any{"mode": "RULES", "schedule": map[string]any{"timeZone": "Europe/Berlin",
			"exceptions": []any{map[string]any{"date": "2026-12-24"}}}}, "schedule.exceptions[0]"},
		{map[string]any{"mode": "RULES", "allow": []any{map[string]any{"platformUserId": "1"}, map[string]any{}}}, "allow[1]"},
		{map[string]any{"mode": "RULES", "allow": []any{map[string]any{"platformUserId": "1", "premium": true}}}, "allow[0]"},
		{map[string]any{"mode": "RULES", "allow": []any{map[string]any{"badgeId": "1", "minRank": 3}}}, "allow[0].minRank"},
		{map[string]any{"mode": "RULES", "deny": []any{map[string]any{"platformUserId": "1", "until": "tomorrow"}}}, "deny[0].until"},
		{map[string]any{"mode": "RULES", "deny": []any{map[string]any{}}}, "deny[0].platformUserId"},
	} {
		compiled, msg := e.compile(tc.policy, zones)
		if compiled != nil || !strings.HasPrefix(msg, tc.field+": ") {
			t.Errorf("%v: compiled %v, message %q; want one naming %s", tc.policy, compiled, msg, tc.field)
		}
	}
	if compiled, msg := e.compile(map[string]any{"mode": "OPEN"}, nil); compiled == nil {
		t.Errorf("a policy without a schedule needs no zones: %s", msg)
	}
}

// TestEvaluatorIntegerIDs: a policy written in code, and a game's own
// values (player.UserId, group ids as keys), may give ids as integers;
// they decide as the strings of the API do.
func TestEvaluatorIntegerIDs(t *testing.T) {
	e := loadEvaluator(t)
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	policy := map[string]any{"mode": "RULES", "allow": []any{
		map[string]any{"gamepassId": 789}, map[string]any{"groupId": 4567, "minRank": 200},
		map[string]any{"platformUserId": 3940198064}, map[string]any{"badgeId": "55"}},
		"deny": []any{map[string]any{"platformUserId": 666}}}
	compiled, msg := e.compile(policy, nil)
	if compiled == nil {
		t.Fatal(msg)
	}
	player := func(id any, attrs map[string]any) map[string]any {
		return map[string]any{"platformUserId": id, "attributes": attrs}
	}
	groups := func(id any, rank int) map[string]any {
		g := e.L.NewTable()
		g.RawSet(e.value(id), lua.LNumber(rank))
		return map[string]any{"groups": g}
	}
	for _, tc := range []struct {
		input map[string]any
		rule  string
	}{
		{player(3940198064, nil), "allow[2]"},
		{player("3940198064", nil), "allow[2]"},
		{player(666, nil), "deny[0]"},
		{player(1, groups(4567, 200)), "allow[1]"},
		{player(1, groups("4567", 255)), "allow[1]"},
		{player(1, groups(4567, 199)), "allow"},
		{player(1, map[string]any{"gamepasses": []any{1, 789}, "badges": []any{55}}), "allow[0]"},
		{player(3940198064, map[string]any{"badges": []any{55}}), "allow[2]"},
		{player(7, map[string]any{"badges": []any{55}, "premium": true}), "allow[3]"},
	} {
		if got := e.decide(compiled, tc.input, at); got.Rule != tc.rule {
			t.Errorf("%v: %+v, want the rule %s", tc.input, got, tc.rule)
		}
	}
}

// BenchmarkEvaluatorDecide is one decision of the SDK's evaluator in
// gopher-lua (an interpreter slower than the platform's Luau): a Berlin
// schedule with windows across midnight and a group, a gamepass and a
// user rule, for a player with a few groups.
func BenchmarkEvaluatorDecide(b *testing.B) {
	e := loadEvaluator(b)
	policy := map[string]any{"mode": "RULES",
		"schedule": map[string]any{"timeZone": "Europe/Berlin", "windows": []any{
			map[string]any{"days": []any{"MON", "TUE", "WED", "THU", "FRI"}, "from": "09:00", "to": "17:30"},
			map[string]any{"days": []any{"SAT"}, "from": "22:00", "to": "02:00"}},
			"exceptions": []any{map[string]any{"date": "2026-12-25", "closed": true}}},
		"allow": []any{map[string]any{"platformUserId": "7"}, map[string]any{"groupId": "456", "minRank": 200},
			map[string]any{"gamepassId": "789"}}}
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	offsets, err := gatehouse.ZoneOffsets("Europe/Berlin", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	compiled, msg := e.compile(policy, map[string]any{"Europe/Berlin": offsets})
	if compiled == nil {
		b.Fatal(msg)
	}
	input := e.value(map[string]any{"platformUserId": "42", "serverJobId": "job-a",
		"attributes": map[string]any{"groups": map[string]any{"1": 1, "456": 210, "99": 3}, "gamepasses": []any{"5"}}})
	decide := e.mod.RawGetString("decide")
	atMillis := lua.LNumber(at.UnixMilli())
	if d := e.decide(compiled, map[string]any{"platformUserId": "42", "serverJobId": "job-a",
		"attributes": map[string]any{"groups": map[string]any{"456": 210}}}, at); d.Rule != "allow[1]" {
		b.Fatalf("%+v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := e.L.CallByParam(lua.P{Fn: decide, NRet: 1, Protect: true}, compiled, input, atMillis); err != nil {
			b.Fatal(err)
		}
		e.L.Pop(1)
	}
}
