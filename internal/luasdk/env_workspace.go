package luasdk

import (
	lua "github.com/yuin/gopher-lua"
)

// installWorkspace adds workspace (also game.Workspace) with WaitForChild and FindFirstChild,
// and Players:GetPlayerFromCharacter: enough for door scripts whose parts
// fire Touched.
func (e *Env) installWorkspace() {
	L := e.L
	ws := L.NewTable()
	ws.RawSetString("Name", lua.LString("Workspace"))
	child := func(L *lua.LState) int {
		L.Push(L.CheckTable(1).RawGetString(L.CheckString(2)))
		return 1
	}
	ws.RawSetString("FindFirstChild", L.NewFunction(child))
	ws.RawSetString("WaitForChild", L.NewFunction(child))
	L.SetGlobal("workspace", ws)
	e.services["Workspace"] = ws
	L.GetGlobal("game").(*lua.LTable).RawSetString("Workspace", ws)
	e.workspace = ws
	e.services["Players"].RawSetString("GetPlayerFromCharacter", L.NewFunction(func(L *lua.LState) int {
		model := L.Get(2)
		for _, p := range e.players {
			if p.value.RawGetString("Character") == model {
				L.Push(p.value)
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}))
	e.parts = map[string]*signal{}
}

// AddPart puts a part named name in workspace, with a Touched signal.
func (e *Env) AddPart(name string) {
	L := e.L
	part := L.NewTable()
	part.RawSetString("Name", lua.LString(name))
	part.RawSetString("Transparency", lua.LNumber(0))
	part.RawSetString("CanCollide", lua.LTrue)
	s, t := e.newSignal()
	part.RawSetString("Touched", t)
	part.RawSetString("Parent", e.workspace)
	e.workspace.RawSetString(name, part)
	e.parts[name] = s
}

// Part returns the part named name, to read its properties.
func (e *Env) Part(name string) *lua.LTable {
	return e.workspace.RawGetString(name).(*lua.LTable)
}

// Touch makes p's character touch the part named name.
func (e *Env) Touch(name string, p *Player) {
	limb := e.L.NewTable()
	limb.RawSetString("Name", lua.LString("HumanoidRootPart"))
	limb.RawSetString("Parent", p.value.RawGetString("Character"))
	e.parts[name].fire(limb)
}
