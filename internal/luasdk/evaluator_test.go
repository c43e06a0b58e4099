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
// Go one: each twice, with the unlocks' until as the RFC 3339 of the file
// and as epoch milliseconds, which is how the SDK holds them.
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
			until, err := time.Parse(time.RFC3339Nano, u["until"].(string))
			if err != nil {
				t.Fatalf("%s: until: %v", c.Name, err)
			}
			u["until"] = until.UnixMilli()
		}
		if got := e.decide(compiled, input, at); got != c.Want {
			t.Errorf("%s: with until in milliseconds, at %s got %+v, want %+v", c.Name, c.At, got, c.Want)
		}
	}
}
