package luasdk

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// request is one RequestAsync in flight.
type request struct {
	t *task
	// hold is the virtual time before which an empty long-poll answer is
	// not delivered (0: deliver at once).
	hold time.Duration
	// status etc. are filled by the goroutine and turned into res by
	// deliver, on the VM's goroutine.
	status int
	header http.Header
	body   []byte
	err    error
}

// secret is what GetSecret returns: usable in a request's headers, never
// readable as a string by the game's code.
type secret struct{ value string }

// installHTTP adds HttpService.
func (e *Env) installHTTP(svc *lua.LTable) {
	L := e.L
	secretMT := L.NewTable()
	secretMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("Secret"))
		return 1
	}))
	methods := L.NewTable()
	secretMT.RawSetString("__index", methods)
	newSecret := func(v string) *lua.LUserData {
		ud := L.NewUserData()
		ud.Value = &secret{v}
		L.SetMetatable(ud, secretMT)
		return ud
	}
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"AddPrefix": func(L *lua.LState) int {
			s := L.CheckUserData(1).Value.(*secret)
			L.Push(newSecret(L.CheckString(2) + s.value))
			return 1
		},
		"AddSuffix": func(L *lua.LState) int {
			s := L.CheckUserData(1).Value.(*secret)
			L.Push(newSecret(s.value + L.CheckString(2)))
			return 1
		},
	})
	L.SetFuncs(svc, map[string]lua.LGFunction{
		"GetSecret": func(L *lua.LState) int {
			name := L.CheckString(2)
			v, ok := e.opts.Secrets[name]
			if !ok {
				L.RaiseError("Can't find secret with given key")
			}
			L.Push(newSecret(v))
			return 1
		},
		"GenerateGUID": func(L *lua.LState) int {
			var b [16]byte
			rand.Read(b[:])
			b[6] = b[6]&0x0f | 0x40
			b[8] = b[8]&0x3f | 0x80
			s := strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
			if L.GetTop() < 2 || lua.LVAsBool(L.Get(2)) {
				s = "{" + s + "}"
			}
			L.Push(lua.LString(s))
			return 1
		},
		"UrlEncode": func(L *lua.LState) int {
			L.Push(lua.LString(url.QueryEscape(L.CheckString(2))))
			return 1
		},
		"JSONEncode": func(L *lua.LState) int {
			v, err := toGo(L.Get(2), 0)
			if err != nil {
				L.RaiseError("Can't convert to JSON: %v", err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				L.RaiseError("Can't convert to JSON: %v", err)
			}
			L.Push(lua.LString(b))
			return 1
		},
		"JSONDecode": func(L *lua.LState) int {
			var v any
			d := json.NewDecoder(strings.NewReader(L.CheckString(2)))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				L.RaiseError("Can't parse JSON")
			}
			L.Push(toLua(L, v))
			return 1
		},
		"_request": func(L *lua.LState) int {
			return e.requestAsync(L, L.CheckTable(2))
		},
	})
	// RequestAsync raises on a network error, as the platform's does; the
	// Go half yields and is resumed with (ok, response or message).
	fn, err := L.LoadString(`
local svc = ...
local request = svc._request
svc._request = nil
function svc.RequestAsync(self, options)
	local ok, res = request(self, options)
	if not ok then
		error(res, 2)
	end
	return res
end
`)
	must(err)
	L.Push(fn)
	L.Push(svc)
	must(L.PCall(1, 0, nil))
}

// requestAsync starts options as a real HTTP request and yields the
// calling thread until it answers.
func (e *Env) requestAsync(L *lua.LState, opts *lua.LTable) int {
	if e.opts.HTTPDisabled {
		L.Push(lua.LFalse)
		L.Push(lua.LString("Http requests are not enabled. Enable via game settings"))
		return 2
	}
	method := "GET"
	if m, ok := opts.RawGetString("Method").(lua.LString); ok {
		method = string(m)
	}
	u := lua.LVAsString(opts.RawGetString("Url"))
	var body io.Reader
	var rawBody []byte
	if b, ok := opts.RawGetString("Body").(lua.LString); ok {
		rawBody = []byte(b)
	}
	// A long poll is asked of the server with waitSeconds 0, so that it
	// answers at once with the commands already there, and its empty
	// answer is held until the wait has passed in virtual time: syncs
	// come as often as on a real server, and a command issued meanwhile
	// comes with the next one.
	var hold time.Duration
	if wait, short, ok := longPoll(u, rawBody); ok {
		hold, rawBody = e.now+wait, short
	}
	if rawBody != nil {
		body = bytes.NewReader(rawBody)
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		L.Push(lua.LFalse)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	if h, ok := opts.RawGetString("Headers").(*lua.LTable); ok {
		h.ForEach(func(k, v lua.LValue) {
			switch v := v.(type) {
			case *lua.LUserData:
				if s, ok := v.Value.(*secret); ok {
					req.Header.Set(k.String(), s.value)
				}
			default:
				req.Header.Set(k.String(), v.String())
			}
		})
	}
	e.Requests[int(e.now/time.Minute)]++
	e.Paths[method+" "+req.URL.Path]++
	r := &request{t: e.current, hold: hold}
	key := method + " " + req.URL.Path
	lose := e.LoseAnswers[key] > 0
	if lose {
		e.LoseAnswers[key]--
	}
	e.httpMu.Lock()
	e.inflight[r] = true
	e.httpMu.Unlock()
	go func() {
		res, err := e.opts.Client.Do(req)
		if err != nil {
			r.err = err
		} else {
			r.status, r.header = res.StatusCode, res.Header
			r.body, r.err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		if lose && r.err == nil {
			// The server did the work; the answer is lost on the way back.
			r.err = fmt.Errorf("connection reset by peer")
		}
		e.done <- r
	}()
	return L.Yield()
}

// longPoll reads a sync that may wait: its wait (waitSeconds, 25 when
// left out) and its body with waitSeconds 0.
func longPoll(u string, body []byte) (time.Duration, []byte, bool) {
	if !strings.HasSuffix(strings.SplitN(u, "?", 2)[0], "/sync") {
		return 0, nil, false
	}
	var b map[string]any
	if json.Unmarshal(body, &b) != nil {
		return 0, nil, false
	}
	wait := 25.0
	if w, ok := b["waitSeconds"].(float64); ok {
		wait = w
	}
	if wait <= 0 {
		return 0, nil, false
	}
	b["waitSeconds"] = 0
	short, _ := json.Marshal(b)
	return time.Duration(wait * float64(time.Second)), short, true
}

func (e *Env) inflightCount() int {
	e.httpMu.Lock()
	defer e.httpMu.Unlock()
	return len(e.inflight)
}

// collect delivers the requests that have answered; with block it waits
// for one first. It returns how many it delivered.
func (e *Env) collect(block bool) int {
	n := 0
	if block {
		select {
		case r := <-e.done:
			e.deliver(r)
			n++
		case <-time.After(30 * time.Second):
			panic("an HTTP request took more than 30 s")
		}
	}
	for {
		select {
		case r := <-e.done:
			e.deliver(r)
			n++
		default:
			return n
		}
	}
}

// deliver resumes the thread that sent r with its outcome: the
// platform's response table, or a network error.
func (e *Env) deliver(r *request) {
	e.httpMu.Lock()
	delete(e.inflight, r)
	e.httpMu.Unlock()
	L := e.L
	if r.err != nil {
		e.schedule(r.t, lua.LFalse, lua.LString("HttpError: ConnectFail "+r.err.Error()))
		return
	}
	res := L.NewTable()
	res.RawSetString("Success", lua.LBool(r.status >= 200 && r.status < 300))
	res.RawSetString("StatusCode", lua.LNumber(r.status))
	res.RawSetString("StatusMessage", lua.LString(http.StatusText(r.status)))
	res.RawSetString("Body", lua.LString(r.body))
	h := L.NewTable()
	for k, v := range r.header {
		h.RawSetString(strings.ToLower(k), lua.LString(strings.Join(v, ", ")))
	}
	res.RawSetString("Headers", h)
	if r.hold > e.now && r.status == http.StatusOK && emptySync(r.body) {
		e.after(r.hold-e.now, r.t, func() []lua.LValue { return []lua.LValue{lua.LTrue, res} })
		return
	}
	e.schedule(r.t, lua.LTrue, res)
}

func emptySync(body []byte) bool {
	var b struct{ Commands []json.RawMessage }
	return json.Unmarshal(body, &b) == nil && len(b.Commands) == 0
}

// toGo converts a Lua value to what encoding/json writes as the
// platform's JSONEncode does: a table with only keys 1..n is an array
// (the empty table too), any other a map.
func toGo(v lua.LValue, depth int) (any, error) {
	if depth > 50 {
		return nil, fmt.Errorf("nesting too deep")
	}
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		return json.Number(v.String()), nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		n := v.Len()
		count := 0
		v.ForEach(func(lua.LValue, lua.LValue) { count++ })
		if count == n {
			arr := make([]any, n)
			for i := 1; i <= n; i++ {
				x, err := toGo(v.RawGetInt(i), depth+1)
				if err != nil {
					return nil, err
				}
				arr[i-1] = x
			}
			return arr, nil
		}
		m := map[string]any{}
		var err error
		v.ForEach(func(k, x lua.LValue) {
			if err != nil {
				return
			}
			ks, ok := k.(lua.LString)
			if !ok {
				err = fmt.Errorf("mixed or non-string keys")
				return
			}
			m[string(ks)], err = toGo(x, depth+1)
		})
		return m, err
	}
	return nil, fmt.Errorf("cannot encode a %s", v.Type())
}

// toLua converts decoded JSON to Lua; null becomes nil.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case json.Number:
		f, _ := v.Float64()
		return lua.LNumber(f)
	case string:
		return lua.LString(v)
	case []any:
		t := L.NewTable()
		for i, x := range v {
			t.RawSetInt(i+1, toLua(L, x))
		}
		return t
	case map[string]any:
		t := L.NewTable()
		for k, x := range v {
			t.RawSetString(k, toLua(L, x))
		}
		return t
	}
	return lua.LNil
}
