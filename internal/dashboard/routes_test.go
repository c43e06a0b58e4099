package dashboard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/dashboard"
)

// TestEveryHandlerIsRouted: each method of the dashboard that serves a
// request (or makes the handler that does) has a line in the floor plan,
// so a route lost from routes.go fails here.
func TestEveryHandlerIsRouted(t *testing.T) {
	routed := map[string]bool{}
	for _, rt := range dashboard.Routes() {
		routed[rt.Handler] = true
	}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	handlers := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || types(fn.Recv) != "*dashboard" {
				continue
			}
			serves := types(fn.Type.Params) == "http.ResponseWriter *http.Request" && fn.Type.Results == nil
			makes := types(fn.Type.Results) == "http.HandlerFunc"
			if !serves && !makes {
				continue
			}
			handlers++
			if !routed[fn.Name.Name] {
				t.Errorf("%s: (*dashboard).%s serves requests but no route of routes.go reaches it", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
	if handlers < 50 {
		t.Errorf("found %d handlers in the package's files: the test no longer finds them", handlers)
	}
}

// types is the types of a field list, space-separated ("" for none).
func types(fl *ast.FieldList) string {
	if fl == nil {
		return ""
	}
	var out []string
	for _, f := range fl.List {
		s := typeText(f.Type)
		for range max(1, len(f.Names)) {
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func typeText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + typeText(e.X)
	case *ast.SelectorExpr:
		return typeText(e.X) + "." + e.Sel.Name
	}
	return "?"
}

// TestEveryRouteAnswers: signed in as an organization's admin, each route
// of the floor plan answers its method with something else than 405 or
// the catch-all's "There is no such page.", so each line of routes.go is
// registered as written. Unknown ids may well answer 404: from the
// handler, in its own words.
func TestEveryRouteAnswers(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	csrf := csrfOf(t, b.do("GET", "/dashboard/events", nil).body)
	ids := map[string]string{"events": acme.denied.ID.String(), "locations": acme.loc.ID.String(), "access-points": acme.ap.ID.String()}
	var logout *dashboard.Route
	routes := dashboard.Routes()
	if len(routes) < 50 {
		t.Fatalf("the floor plan has %d routes", len(routes))
	}
	ask := func(rt dashboard.Route) {
		t.Helper()
		path := rt.Path
		path = concretePath(path, ids)
		var form url.Values
		if rt.Method == "POST" {
			form = url.Values{"csrf": {csrf}}
		}
		r := b.do(rt.Method, path, form)
		if r.status == http.StatusMethodNotAllowed || strings.Contains(r.body, "There is no such page.") {
			t.Errorf("%s %s (%s) answers %d %.200s", rt.Method, path, rt.Path, r.status, r.body)
		}
	}
	for _, rt := range routes {
		switch {
		case rt.Method == "":
			if r := b.do("GET", rt.Path+"nowhere", nil); r.status != http.StatusNotFound || !strings.Contains(r.body, "There is no such page.") {
				t.Errorf("GET %snowhere answers %d %.200s", rt.Path, r.status, r.body)
			}
		case rt.Path == "/dashboard/logout":
			logout = &rt
		default:
			ask(rt)
		}
	}
	if logout == nil {
		t.Fatal("no route signs out")
	}
	ask(*logout)
}

// openRoutes are the routes a visitor reaches without signing in, kept
// here apart from routes.go so that opening a route is a change to this
// list too, made on purpose.
var openRoutes = []string{
	"GET /dashboard/assets/",              // the style sheet and scripts of the sign-in form
	"GET /dashboard/{$}",                  // a redirect to the Event Log, which asks for a session itself
	"GET /dashboard/login",                // the sign-in form
	"POST /dashboard/login",               // signing in
	"POST /dashboard/login/choose",        // choosing the organization to sign in to
	"POST /dashboard/login/code",          // the code of the second factor, after the password
	"GET /dashboard/login/oidc",           // signing in through the OpenID provider: off to it
	"GET /dashboard/login/oidc/callback",  // and back from it
	"POST /dashboard/login/oidc/accept",   // joining an invitation the provider's email has
	"POST /dashboard/login/oidc/continue", // or going on without
	"GET /dashboard/join/{token}",         // an invitation link's page: the token is the credential
	"POST /dashboard/join/{token}",        // choosing one's password through it
	" /dashboard/",                        // the catch-all's "There is no such page."
}

// TestEveryRouteAsksForASession: every route is for members but those of
// openRoutes. Asked by a visitor who is not signed in, each route for
// members answers as the dashboard answers such a visitor (a page: a
// redirect to the sign-in form that comes back to it; anything else: 403
// "Your session has ended"), and each route for anyone answers without
// either. So a route switched from member to anyone, or the reverse,
// fails here.
func TestEveryRouteAsksForASession(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ids := map[string]string{"events": acme.denied.ID.String(), "locations": acme.loc.ID.String(), "access-points": acme.ap.ID.String()}
	const ended = "Your session has ended; sign in again."
	levels := map[string]int{}
	planned := map[string]bool{}
	for _, rt := range dashboard.Routes() {
		levels[rt.Access]++
		key := rt.Method + " " + rt.Path
		planned[key] = true
		if slices.Contains(openRoutes, key) != (rt.Access == "anyone") {
			t.Errorf("%s is for %s in routes.go, but openRoutes says it is%s open: a route opens or closes on purpose, in both places", key, rt.Access, map[bool]string{true: "", false: " not"}[slices.Contains(openRoutes, key)])
		}
		method, path := rt.Method, rt.Path
		if method == "" {
			method, path = "GET", rt.Path+"nowhere"
		}
		path = concretePath(path, ids)
		var form url.Values
		if method == "POST" {
			form = url.Values{}
		}
		r := s.browser().do(method, path, form)
		toSignIn := r.status == http.StatusSeeOther && strings.HasPrefix(r.header.Get("Location"), "/dashboard/login")
		switch rt.Access {
		case "anyone":
			if toSignIn || strings.Contains(r.body, ended) {
				t.Errorf("%s %s is for anyone, but a visitor who is not signed in gets %d %s %.200s", method, path, r.status, r.header.Get("Location"), r.body)
			}
		case "member", "memberStream":
			want := "403 " + ended
			ok := r.status == http.StatusForbidden && strings.Contains(r.body, ended)
			if method == "GET" {
				want = "303 to /dashboard/login?next=" + url.QueryEscape(path)
				ok = r.status == http.StatusSeeOther && r.header.Get("Location") == "/dashboard/login?next="+url.QueryEscape(path)
			}
			if !ok {
				t.Errorf("%s %s is for members, but a visitor who is not signed in gets %d %s %.200s; want %s", method, path, r.status, r.header.Get("Location"), r.body, want)
			}
		default:
			t.Errorf("%s %s: access %q unknown to this test", method, path, rt.Access)
		}
	}
	for _, key := range openRoutes {
		if !planned[key] {
			t.Errorf("openRoutes names %s, which routes.go does not have", key)
		}
	}
	for _, a := range []string{"anyone", "member", "memberStream"} {
		if levels[a] == 0 {
			t.Errorf("no route is for %s: the test no longer reads the floor plan's access", a)
		}
	}
}

// concretePath fills in a route's pattern: the id of a record of its
// section where the test made one (ids, by the path's first segment after
// /dashboard/), else an unknown id, and a real asset.
func concretePath(path string, ids map[string]string) string {
	section, _, _ := strings.Cut(strings.TrimPrefix(path, "/dashboard/"), "/")
	id, ok := ids[section]
	if !ok {
		id = gatehouse.NewID().String()
	}
	return strings.NewReplacer("{id}", id, "{delivery}", gatehouse.NewID().String(), "{$}", "", "/assets/", "/assets/style.css").Replace(path)
}
