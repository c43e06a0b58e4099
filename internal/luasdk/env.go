// Package luasdk runs the Luau game-server SDK (sdk/luau/src) in a pure-Go
// Lua 5.1 VM inside a fake game environment, against a live Gatehouse,
// so that `go test ./...` checks the SDK the way a game server runs it.
//
// The environment keeps a virtual clock: task.wait, task.delay, os.clock
// and DateTime read it, and it moves only when a test calls Advance. HTTP
// is real; a request yields the calling thread like the platform's
// RequestAsync does, and finishes before virtual time moves on (it takes
// no virtual time), except that a sync's long poll with nothing to answer
// comes back when its wait has passed in virtual time.
package luasdk

import (
	"container/heap"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Options describe the game server an Env pretends to be.
type Options struct {
	// SrcDir is the SDK's source tree (init.luau and its siblings).
	SrcDir string
	// Start is the wall-clock instant at virtual time zero.
	Start time.Time
	// Secrets are what HttpService:GetSecret finds, by name.
	Secrets map[string]string
	// HTTPDisabled makes RequestAsync fail as with "Allow HTTP Requests"
	// off.
	HTTPDisabled bool
	// Studio is what RunService:IsStudio answers.
	Studio          bool
	JobID           string
	PlaceID, GameID int64
	Client          *http.Client
	// OnAdvance is called with every step of virtual time (a test moves
	// the server's clock along).
	OnAdvance func(time.Duration)
}

// Env is one fake game server with its Lua VM.
type Env struct {
	opts Options
	L    *lua.LState

	now     time.Duration // virtual time since Start
	seq     int
	timers  timerHeap
	ready   []resumption
	tasks   map[*lua.LState]*task
	current *task

	httpMu   sync.Mutex
	inflight map[*request]bool
	done     chan *request

	modules  map[string]lua.LValue
	closers  []*lua.LFunction
	players  []*Player
	services map[string]*lua.LTable
	subs     map[string][]*lua.LFunction
	paths    map[*lua.LTable]string
	script   *lua.LTable

	playerAdded, playerRemoving *signal
	workspace                   *lua.LTable
	parts                       map[string]*signal

	// Requests counts HTTP requests by virtual minute (time since Start
	// divided by a minute).
	Requests map[int]int
	// Paths counts HTTP requests by method and path.
	Paths map[string]int
	// LoseAnswers makes the next n answers to "METHOD /path" be lost
	// after the server handled the request: the SDK sees a network error.
	LoseAnswers map[string]int
	// Warnings and Prints are what warn and print wrote; Errors are the
	// errors that ended a thread.
	Warnings, Prints, Errors []string
}

type task struct {
	th        *lua.LState
	fn        *lua.LFunction
	started   bool
	cancelled bool
}

type resumption struct {
	t    *task
	args []lua.LValue
}

type timer struct {
	at   time.Duration
	seq  int
	t    *task
	args func() []lua.LValue
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// New returns an environment with the platform's globals installed.
func New(opts Options) *Env {
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	}
	e := &Env{
		opts:     opts,
		L:        lua.NewState(),
		tasks:    map[*lua.LState]*task{},
		inflight: map[*request]bool{},
		done:     make(chan *request, 64),
		modules:  map[string]lua.LValue{},
		services: map[string]*lua.LTable{},
		subs:     map[string][]*lua.LFunction{},
		Requests: map[int]int{},
		Paths:    map[string]int{},

		LoseAnswers: map[string]int{},
	}
	e.installBase()
	e.installTask()
	e.installTime()
	e.installServices()
	e.installGame()
	e.installWorkspace()
	return e
}

// Close releases the VM.
func (e *Env) Close() { e.L.Close() }

// Now is the virtual time since Start.
func (e *Env) Now() time.Duration { return e.now }

// Wall is the wall-clock instant the game server believes it is.
func (e *Env) Wall() time.Time { return e.opts.Start.Add(e.now) }

// SetWall sets the game server's wall clock to t, as a clock that was
// wrong and is corrected jumps: virtual time and the timers do not move.
func (e *Env) SetWall(t time.Time) { e.opts.Start = t.Add(-e.now) }

// spawn starts fn in a new thread at once, as task.spawn does; it
// returns the thread.
func (e *Env) spawn(from *lua.LState, fn *lua.LFunction, args []lua.LValue) *lua.LState {
	th, _ := e.L.NewThread()
	t := &task{th: th, fn: fn}
	e.tasks[th] = t
	e.resume(from, t, args)
	return th
}

// schedule makes t run again at the next scheduler turn with args.
func (e *Env) schedule(t *task, args ...lua.LValue) {
	e.ready = append(e.ready, resumption{t, args})
}

// after makes t run again at now+d.
func (e *Env) after(d time.Duration, t *task, args func() []lua.LValue) {
	if d < 0 {
		d = 0
	}
	e.seq++
	heap.Push(&e.timers, &timer{at: e.now + d, seq: e.seq, t: t, args: args})
}

// resume runs t until it yields or ends. from is the thread asking (the
// main state for the scheduler, the running thread for task.spawn).
func (e *Env) resume(from *lua.LState, t *task, args []lua.LValue) {
	if t.cancelled || t.th.Dead {
		return
	}
	prev := e.current
	e.current = t
	fn := t.fn
	if t.started {
		fn = nil
	}
	t.started = true
	st, err, _ := from.Resume(t.th, fn, args...)
	e.current = prev
	if st == lua.ResumeError {
		e.Errors = append(e.Errors, err.Error())
	}
	if st != lua.ResumeYield {
		delete(e.tasks, t.th)
	}
}

// turn runs every ready thread and delivers answered requests, until
// nothing is ready and no request is in flight: a request takes no
// virtual time.
func (e *Env) turn() {
	for {
		for len(e.ready) > 0 {
			r := e.ready[0]
			e.ready = e.ready[1:]
			e.resume(e.L, r.t, r.args)
		}
		if e.collect(e.inflightCount() > 0) == 0 && len(e.ready) == 0 {
			return
		}
	}
}

// Advance moves virtual time forward by d, running every timer due on
// the way in order.
func (e *Env) Advance(d time.Duration) {
	end := e.now + d
	e.turn()
	for {
		if len(e.timers) == 0 || e.timers[0].at > end {
			break
		}
		tm := heap.Pop(&e.timers).(*timer)
		e.moveTo(tm.at)
		var args []lua.LValue
		if tm.args != nil {
			args = tm.args()
		}
		e.resume(e.L, tm.t, args)
		e.turn()
	}
	e.moveTo(end)
	e.turn()
}

func (e *Env) moveTo(at time.Duration) {
	if at <= e.now {
		return
	}
	step := at - e.now
	e.now = at
	if e.opts.OnAdvance != nil {
		e.opts.OnAdvance(step)
	}
}

// Run runs code (a chunk of Lua) in a new thread as a server Script
// beside the SDK package, and advances nothing: what it does until its
// first yield is done on return.
func (e *Env) Run(code string) {
	fn, err := e.L.LoadString(code)
	if err != nil {
		e.Errors = append(e.Errors, err.Error())
		return
	}
	env := e.L.NewTable()
	mt := e.L.NewTable()
	mt.RawSetString("__index", e.L.Get(lua.GlobalsIndex))
	e.L.SetMetatable(env, mt)
	env.RawSetString("script", e.scriptInstance())
	e.L.SetFEnv(fn, env)
	e.spawn(e.L, fn, nil)
	e.turn()
}

// Shutdown runs the functions bound with game:BindToClose, each in its own
// thread, as the platform does when the server shuts down, and advances
// virtual time until they all return or limit passes. It returns the
// virtual time they took and whether they finished.
func (e *Env) Shutdown(limit time.Duration) (time.Duration, bool) {
	start := e.now
	var ths []*lua.LState
	for _, fn := range e.closers {
		ths = append(ths, e.spawn(e.L, fn, nil))
	}
	e.turn()
	for e.now-start < limit {
		alive := false
		for _, th := range ths {
			if _, ok := e.tasks[th]; ok {
				alive = true
			}
		}
		if !alive {
			return e.now - start, true
		}
		e.Advance(100 * time.Millisecond)
	}
	return e.now - start, false
}

// RequestsPerMinute returns the requests of each whole virtual minute
// from the first to the last that saw one.
func (e *Env) RequestsPerMinute() []int {
	var mins []int
	for m := range e.Requests {
		mins = append(mins, m)
	}
	sort.Ints(mins)
	if len(mins) == 0 {
		return nil
	}
	out := make([]int, mins[len(mins)-1]+1)
	for m, n := range e.Requests {
		out[m] = n
	}
	return out
}

// Eval evaluates a Lua expression in a new thread, as the test Script
// would (e.g. "require(script.Parent.Gatehouse).stats()"), and returns its
// first value; it fails when the expression yields or errors.
func (e *Env) Eval(expr string) (lua.LValue, error) {
	fn, err := e.L.LoadString("return " + expr)
	if err != nil {
		return lua.LNil, err
	}
	env := e.L.NewTable()
	mt := e.L.NewTable()
	mt.RawSetString("__index", e.L.Get(lua.GlobalsIndex))
	e.L.SetMetatable(env, mt)
	env.RawSetString("script", e.scriptInstance())
	e.L.SetFEnv(fn, env)
	th, _ := e.L.NewThread()
	prev := e.current
	e.current = &task{th: th, fn: fn, started: true}
	st, err, vals := e.L.Resume(th, fn)
	e.current = prev
	if err != nil {
		return lua.LNil, err
	}
	if st != lua.ResumeOK {
		return lua.LNil, fmt.Errorf("%s yielded", expr)
	}
	return vals[0], nil
}
