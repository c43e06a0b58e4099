// Package luasdk runs the game-server SDK (sdk/luau) in a Lua 5.1 VM
// (gopher-lua), so that Go tests hold it to the conformance vectors and
// drive it against a live server.
package luasdk

import (
	"bytes"
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// LuaFromJSON decodes JSON into a Lua value as the platform's
// HttpService:JSONDecode does: objects and arrays become tables (arrays
// from 1), numbers are numbers and null is nil (so a null field is
// absent from its table).
func LuaFromJSON(L *lua.LState, data []byte) (lua.LValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return lua.LNil, err
	}
	return LuaValue(L, v)
}

// LuaValue converts a Go value to Lua: what encoding/json decodes into
// an any (maps, slices, json.Number, float64, string, bool, nil) as
// LuaFromJSON does, and any other value through its JSON.
func LuaValue(L *lua.LState, v any) (lua.LValue, error) {
	switch v := v.(type) {
	case nil:
		return lua.LNil, nil
	case bool:
		return lua.LBool(v), nil
	case string:
		return lua.LString(v), nil
	case float64:
		return lua.LNumber(v), nil
	case int:
		return lua.LNumber(v), nil
	case int64:
		return lua.LNumber(v), nil
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return lua.LNil, err
		}
		return lua.LNumber(f), nil
	case []any:
		t := L.CreateTable(len(v), 0)
		for i, e := range v {
			lv, err := LuaValue(L, e)
			if err != nil {
				return lua.LNil, err
			}
			t.RawSetInt(i+1, lv)
		}
		return t, nil
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, e := range v {
			lv, err := LuaValue(L, e)
			if err != nil {
				return lua.LNil, err
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	case lua.LValue:
		return v, nil
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return lua.LNil, err
		}
		return LuaFromJSON(L, b)
	}
}

// GoValue converts a Lua value back: tables whose keys are 1..n become
// []any, other tables map[string]any (keys written with %v), numbers
// float64. Functions, threads and userdata are an error: they have no
// data to compare.
func GoValue(v lua.LValue) (any, error) {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LString:
		return string(v), nil
	case lua.LNumber:
		return float64(v), nil
	case *lua.LTable:
		n := v.MaxN()
		count := 0
		v.ForEach(func(lua.LValue, lua.LValue) { count++ })
		if n > 0 && n == count {
			out := make([]any, n)
			for i := 1; i <= n; i++ {
				e, err := GoValue(v.RawGetInt(i))
				if err != nil {
					return nil, err
				}
				out[i-1] = e
			}
			return out, nil
		}
		out := make(map[string]any, count)
		var err error
		v.ForEach(func(k, e lua.LValue) {
			if err != nil {
				return
			}
			key := fmt.Sprint(k)
			out[key], err = GoValue(e)
		})
		return out, err
	default:
		return nil, fmt.Errorf("a Lua %s has no Go value", v.Type())
	}
}
