package dashboard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"path/filepath"
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
		section, _, _ := strings.Cut(strings.TrimPrefix(path, "/dashboard/"), "/")
		id, ok := ids[section]
		if !ok {
			id = gatehouse.NewID().String()
		}
		path = strings.NewReplacer("{id}", id, "{delivery}", gatehouse.NewID().String(), "{$}", "", "/assets/", "/assets/style.css").Replace(path)
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
