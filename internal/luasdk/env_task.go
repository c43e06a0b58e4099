package luasdk

import (
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// frame is the platform's step: task.wait() and task.delay(0) resume on
// the next one, so a loop of task.wait() lets virtual time move.
const frame = time.Second / 60

// seconds converts a Lua number of seconds to a duration.
func seconds(n lua.LNumber) time.Duration { return time.Duration(float64(n) * float64(time.Second)) }

// installBase replaces print and pcall with the platform's: output is
// kept for the test, and pcall lets the protected function yield (the
// platform's does; gopher-lua's cannot), which RequestAsync under pcall
// needs.
func (e *Env) installBase() {
	L := e.L
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		e.Prints = append(e.Prints, joinArgs(L))
		return 0
	}))
	L.SetGlobal("warn", L.NewFunction(func(L *lua.LState) int {
		e.Warnings = append(e.Warnings, joinArgs(L))
		return 0
	}))
	must(L.DoString(`
local create, resume, yield, status, unpack, select = coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, unpack, select
local function pass(co, ok, ...)
	if not ok then
		return false, ...
	end
	if status(co) == "dead" then
		return true, ...
	end
	return pass(co, resume(co, yield(...)))
end
function pcall(f, ...)
	if type(f) ~= "function" then
		local mt = getmetatable(f)
		if not (mt and mt.__call) then
			return false, "attempt to call a " .. type(f) .. " value"
		end
	end
	local co = create(function(...) return f(...) end)
	return pass(co, resume(co, ...))
end
function xpcall(f, handler, ...)
	local r = { pcall(f, ...) }
	if r[1] then
		return unpack(r, 1, table.maxn(r))
	end
	return false, handler(r[2])
end
`))
}

func joinArgs(L *lua.LState) string {
	var parts []string
	for i := 1; i <= L.GetTop(); i++ {
		parts = append(parts, L.ToStringMeta(L.Get(i)).String())
	}
	return strings.Join(parts, " ")
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// installTask installs the task library on the virtual clock.
func (e *Env) installTask() {
	L := e.L
	t := L.NewTable()
	L.SetFuncs(t, map[string]lua.LGFunction{
		"wait": func(L *lua.LState) int {
			d := max(seconds(L.OptNumber(1, 0)), frame)
			cur := e.current
			from := e.now
			e.after(d, cur, func() []lua.LValue { return []lua.LValue{lua.LNumber((e.now - from).Seconds())} })
			return L.Yield()
		},
		"spawn": func(L *lua.LState) int {
			fn := L.CheckFunction(1)
			th := e.spawn(L, fn, restArgs(L, 2))
			L.Push(th)
			return 1
		},
		"defer": func(L *lua.LState) int {
			fn := L.CheckFunction(1)
			th, _ := e.L.NewThread()
			tk := &task{th: th, fn: fn}
			e.tasks[th] = tk
			e.schedule(tk, restArgs(L, 2)...)
			L.Push(th)
			return 1
		},
		"delay": func(L *lua.LState) int {
			d := max(seconds(L.CheckNumber(1)), frame)
			fn := L.CheckFunction(2)
			args := restArgs(L, 3)
			th, _ := e.L.NewThread()
			tk := &task{th: th, fn: fn}
			e.tasks[th] = tk
			e.after(d, tk, func() []lua.LValue { return args })
			L.Push(th)
			return 1
		},
		"cancel": func(L *lua.LState) int {
			if tk, ok := e.tasks[L.CheckThread(1)]; ok {
				tk.cancelled = true
				delete(e.tasks, tk.th)
			}
			return 0
		},
	})
	L.SetGlobal("task", t)
}

func restArgs(L *lua.LState, from int) []lua.LValue {
	var args []lua.LValue
	for i := from; i <= L.GetTop(); i++ {
		args = append(args, L.Get(i))
	}
	return args
}

// installTime makes os.clock, os.time and DateTime read the virtual
// clock.
func (e *Env) installTime() {
	L := e.L
	osT := L.GetGlobal("os").(*lua.LTable)
	osT.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(e.now.Seconds()))
		return 1
	}))
	osT.RawSetString("time", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(e.Wall().Unix()))
		return 1
	}))
	dt := L.NewTable()
	dt.RawSetString("now", L.NewFunction(func(L *lua.LState) int {
		L.Push(e.dateTime(e.Wall().UnixMilli()))
		return 1
	}))
	dt.RawSetString("fromUnixTimestampMillis", L.NewFunction(func(L *lua.LState) int {
		L.Push(e.dateTime(int64(L.CheckNumber(1))))
		return 1
	}))
	dt.RawSetString("fromUnixTimestamp", L.NewFunction(func(L *lua.LState) int {
		L.Push(e.dateTime(int64(float64(L.CheckNumber(1)) * 1000)))
		return 1
	}))
	L.SetGlobal("DateTime", dt)
}

// dateTime is a DateTime value: its Unix fields and ToIsoDate (UTC,
// milliseconds, as the platform writes it).
func (e *Env) dateTime(ms int64) *lua.LTable {
	L := e.L
	t := L.NewTable()
	t.RawSetString("UnixTimestampMillis", lua.LNumber(ms))
	t.RawSetString("UnixTimestamp", lua.LNumber(ms/1000))
	t.RawSetString("ToIsoDate", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")))
		return 1
	}))
	return t
}
