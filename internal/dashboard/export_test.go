package dashboard

import (
	"reflect"
	"regexp"
	"runtime"
)

// Route is one line of the floor plan, for the external tests: its
// method ("" for every method), its pattern's path, the name of the
// dashboard's method that serves it ("" for a handler of its own), and
// who may reach it ("anyone", "member" or "memberStream").
type Route struct{ Method, Path, Handler, Access string }

// accessNames are the access levels by the names the tests use.
var accessNames = map[access]string{anyone: "anyone", member: "member", memberStream: "memberStream"}

var handlerName = regexp.MustCompile(`\(\*dashboard\)\.(\w+)`)

// Routes is the floor plan as [New] registers it.
func Routes() []Route {
	var out []Route
	for _, rt := range (&dashboard{}).routes() {
		// A method value is "….(*dashboard).NAME-fm"; a closure NAME made,
		// inlined in routes, "….(*dashboard).routes.(*dashboard).NAME.func1".
		var name string
		if m := handlerName.FindAllStringSubmatch(runtime.FuncForPC(reflect.ValueOf(rt.handler).Pointer()).Name(), -1); m != nil && m[len(m)-1][1] != "routes" {
			name = m[len(m)-1][1]
		}
		a, ok := accessNames[rt.access]
		if !ok {
			panic("dashboard: a route's access has no name in export_test.go")
		}
		out = append(out, Route{rt.method, Prefix + rt.path, name, a})
	}
	return out
}
