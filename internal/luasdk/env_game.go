package luasdk

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Player is a player of the fake server, with what the platform's
// services tell about them.
type Player struct {
	UserID     int64
	Premium    bool
	Groups     map[int64]int // group id → rank
	Gamepasses map[int64]bool
	Badges     map[int64]bool
	value      *lua.LTable
}

// signal is an RBXScriptSignal: handlers run each in a new thread.
type signal struct {
	e        *Env
	handlers []*lua.LFunction
}

func (e *Env) newSignal() (*signal, *lua.LTable) {
	s := &signal{e: e}
	L := e.L
	t := L.NewTable()
	t.RawSetString("Connect", L.NewFunction(func(L *lua.LState) int {
		fn := L.CheckFunction(2)
		s.handlers = append(s.handlers, fn)
		conn := L.NewTable()
		conn.RawSetString("Disconnect", L.NewFunction(func(L *lua.LState) int {
			for i, h := range s.handlers {
				if h == fn {
					s.handlers = append(s.handlers[:i], s.handlers[i+1:]...)
					break
				}
			}
			return 0
		}))
		L.Push(conn)
		return 1
	}))
	return s, t
}

func (s *signal) fire(args ...lua.LValue) {
	for _, h := range append([]*lua.LFunction(nil), s.handlers...) {
		s.e.spawn(s.e.L, h, args)
	}
	s.e.turn()
}

// installServices adds game:GetService's services.
func (e *Env) installServices() {
	L := e.L
	for _, name := range []string{"HttpService", "Players", "MarketplaceService", "BadgeService", "MessagingService", "RunService", "ServerScriptService"} {
		t := L.NewTable()
		t.RawSetString("Name", lua.LString(name))
		e.services[name] = t
	}
	e.installHTTP(e.services["HttpService"])

	players := e.services["Players"]
	added, addedT := e.newSignal()
	removing, removingT := e.newSignal()
	players.RawSetString("PlayerAdded", addedT)
	players.RawSetString("PlayerRemoving", removingT)
	e.playerAdded, e.playerRemoving = added, removing
	players.RawSetString("GetPlayers", L.NewFunction(func(L *lua.LState) int {
		t := L.NewTable()
		for _, p := range e.players {
			t.Append(p.value)
		}
		L.Push(t)
		return 1
	}))
	players.RawSetString("GetPlayerByUserId", L.NewFunction(func(L *lua.LState) int {
		id := int64(L.CheckNumber(2))
		for _, p := range e.players {
			if p.UserID == id {
				L.Push(p.value)
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}))

	byID := func(L *lua.LState) *Player {
		id := int64(L.CheckNumber(2))
		for _, p := range e.players {
			if p.UserID == id {
				return p
			}
		}
		return &Player{}
	}
	e.services["MarketplaceService"].RawSetString("UserOwnsGamePassAsync", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(byID(L).Gamepasses[int64(L.CheckNumber(3))]))
		return 1
	}))
	e.services["BadgeService"].RawSetString("UserHasBadgeAsync", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(byID(L).Badges[int64(L.CheckNumber(3))]))
		return 1
	}))

	msg := e.services["MessagingService"]
	msg.RawSetString("SubscribeAsync", L.NewFunction(func(L *lua.LState) int {
		topic, fn := L.CheckString(2), L.CheckFunction(3)
		e.subs[topic] = append(e.subs[topic], fn)
		conn := L.NewTable()
		conn.RawSetString("Disconnect", L.NewFunction(func(L *lua.LState) int {
			for i, h := range e.subs[topic] {
				if h == fn {
					e.subs[topic] = append(e.subs[topic][:i], e.subs[topic][i+1:]...)
					break
				}
			}
			return 0
		}))
		L.Push(conn)
		return 1
	}))
	msg.RawSetString("PublishAsync", L.NewFunction(func(L *lua.LState) int {
		e.publish(L.CheckString(2), L.Get(3))
		return 0
	}))
	e.services["RunService"].RawSetString("IsStudio", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(e.opts.Studio))
		return 1
	}))

	enum := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("Premium", lua.LString("Enum.MembershipType.Premium"))
	mt.RawSetString("None", lua.LString("Enum.MembershipType.None"))
	enum.RawSetString("MembershipType", mt)
	L.SetGlobal("Enum", enum)
}

// Publish delivers data on topic as MessagingService does: each
// subscriber gets {Data, Sent} in a new thread.
func (e *Env) Publish(topic string, data string) {
	e.publish(topic, lua.LString(data))
	e.turn()
}

func (e *Env) publish(topic string, data lua.LValue) {
	for _, fn := range append([]*lua.LFunction(nil), e.subs[topic]...) {
		m := e.L.NewTable()
		m.RawSetString("Data", data)
		m.RawSetString("Sent", lua.LNumber(e.Wall().Unix()))
		e.spawn(e.L, fn, []lua.LValue{m})
	}
}

// AddPlayer makes p join: it is in GetPlayers and PlayerAdded fires.
func (e *Env) AddPlayer(p *Player) {
	L := e.L
	t := L.NewTable()
	t.RawSetString("UserId", lua.LNumber(p.UserID))
	t.RawSetString("Name", lua.LString("Player"+strconv.FormatInt(p.UserID, 10)))
	if p.Premium {
		t.RawSetString("MembershipType", lua.LString("Enum.MembershipType.Premium"))
	} else {
		t.RawSetString("MembershipType", lua.LString("Enum.MembershipType.None"))
	}
	t.RawSetString("IsInGroup", L.NewFunction(func(L *lua.LState) int {
		_, ok := p.Groups[int64(L.CheckNumber(2))]
		L.Push(lua.LBool(ok))
		return 1
	}))
	t.RawSetString("GetRankInGroup", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(p.Groups[int64(L.CheckNumber(2))]))
		return 1
	}))
	character := L.NewTable()
	character.RawSetString("Name", t.RawGetString("Name"))
	t.RawSetString("Character", character)
	p.value = t
	e.players = append(e.players, p)
	e.playerAdded.fire(t)
}

// RemovePlayer makes p leave: PlayerRemoving fires, then it is gone.
func (e *Env) RemovePlayer(p *Player) {
	e.playerRemoving.fire(p.value)
	for i, q := range e.players {
		if q == p {
			e.players = append(e.players[:i], e.players[i+1:]...)
			break
		}
	}
}

// installGame adds game (its ids, GetService, BindToClose), the SDK's
// ModuleScripts and require over them.
func (e *Env) installGame() {
	L := e.L
	game := L.NewTable()
	game.RawSetString("JobId", lua.LString(e.opts.JobID))
	game.RawSetString("PlaceId", lua.LNumber(e.opts.PlaceID))
	game.RawSetString("GameId", lua.LNumber(e.opts.GameID))
	game.RawSetString("GetService", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(2)
		s, ok := e.services[name]
		if !ok {
			L.RaiseError("'%s' is not a valid Service name", name)
		}
		L.Push(s)
		return 1
	}))
	game.RawSetString("BindToClose", L.NewFunction(func(L *lua.LState) int {
		e.closers = append(e.closers, L.CheckFunction(2))
		return 0
	}))
	for name, s := range e.services {
		game.RawSetString(name, s)
	}
	L.SetGlobal("game", game)

	// The SDK's package is a ModuleScript in ServerScriptService, its
	// sibling files its children; the test's Script sits beside it.
	sss := e.services["ServerScriptService"]
	if e.opts.SrcDir != "" {
		pkg := e.instance("Gatehouse", filepath.Join(e.opts.SrcDir, "init.luau"), sss)
		entries, err := os.ReadDir(e.opts.SrcDir)
		must(err)
		for _, f := range entries {
			name, ok := strings.CutSuffix(f.Name(), ".luau")
			if !ok || name == "init" {
				continue
			}
			e.instance(name, filepath.Join(e.opts.SrcDir, f.Name()), pkg)
		}
	}
	e.script = L.NewTable()
	e.script.RawSetString("Name", lua.LString("Main"))
	e.script.RawSetString("Parent", sss)

	L.SetGlobal("require", L.NewFunction(func(L *lua.LState) int {
		inst := L.CheckTable(1)
		path, ok := e.paths[inst]
		if !ok {
			L.RaiseError("Attempted to call require with invalid argument(s).")
		}
		if v, ok := e.modules[path]; ok {
			L.Push(v)
			return 1
		}
		fn, err := L.LoadFile(path)
		if err != nil {
			L.RaiseError("%v", err)
		}
		env := L.NewTable()
		mt := L.NewTable()
		mt.RawSetString("__index", L.Get(lua.GlobalsIndex))
		L.SetMetatable(env, mt)
		env.RawSetString("script", inst)
		L.SetFEnv(fn, env)
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		e.modules[path] = v
		return 1
	}))
}

// instance makes a ModuleScript named name under parent, backed by the
// file at path.
func (e *Env) instance(name, path string, parent *lua.LTable) *lua.LTable {
	t := e.L.NewTable()
	t.RawSetString("Name", lua.LString(name))
	t.RawSetString("Parent", parent)
	parent.RawSetString(name, t)
	if e.paths == nil {
		e.paths = map[*lua.LTable]string{}
	}
	e.paths[t] = path
	return t
}

func (e *Env) scriptInstance() *lua.LTable { return e.script }
