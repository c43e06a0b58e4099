package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/demo"
)

// shellBlocks returns the ```sh blocks of a guide, each line continued
// with a backslash joined to the next.
func shellBlocks(text string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, strings.ReplaceAll(m[1], "\\\n", " "))
	}
	return blocks
}

// requiredScopes maps "METHOD /path/{param}" to the scopes that allow
// it, any one of them (POST /grants: policies:write, or server for a
// purchase), from the OpenAPI document; none for an open route.
func requiredScopes(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "internal/server/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Scope    string                `json:"x-required-scope"`
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	scopes := map[string][]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			var allowed []string
			if op.Scope != "" {
				allowed = append(allowed, op.Scope)
			}
			for _, s := range op.Security {
				for _, sc := range s["apiKey"] {
					if !slices.Contains(allowed, sc) {
						allowed = append(allowed, sc)
					}
				}
			}
			scopes[strings.ToUpper(method)+" "+strings.TrimPrefix(path, "/api/consumer/v1")] = allowed
		}
	}
	return scopes
}

// TestGuidesLeaveTheDemoAlone: the guides are pasted after the quick
// start, into a shell that holds the variables the demo printed (and
// TestGuidesRunOnTheDemo runs them so). So a guide never binds those
// names, never changes the demo's door ($ACCESS_POINT_ID's policy), never
// claims a demo venue's universe for a place it creates, and calls each
// endpoint with a key that has its scope: the demo's key ($KEY) only
// where the demo's scopes suffice, else a key the guide creates with that
// scope.
func TestGuidesLeaveTheDemoAlone(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Its key, named `demo`, has the scopes its examples\\s+need \\(([^)]*)\\)").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README no longer says the demo key's scopes")
	}
	demoScopes := strings.Split(strings.NewReplacer("`", "", " ", "", "\n", "").Replace(string(m[1])), ",")
	scopes := requiredScopes(t)
	printed := []string{"API", "KEY", "ORG_ID", "LOCATION_ID", "ACCESS_POINT_ID", "EVENT_ID"}
	// NAME=value: not even a placeholder (KEY=gk_...), which would
	// replace the demo's key in the reader's shell.
	rebind := regexp.MustCompile(`(?m)^\s*(?:export\s+)?([A-Z_]+)=(\S*)`)
	keyMade := regexp.MustCompile(`(?m)^\s*([A-Z_]+)=\$\(gatehouse key create [^\n]*--scopes ([a-z:,]+)`)
	// KEY=$(echo "$KEY_JSON" | grep -o '"key"…): the raw key of a key
	// created with --json into KEY_JSON.
	keyOf := regexp.MustCompile(`(?m)^\s*([A-Z_]+)=\$\(echo "\$([A-Z_]+)" \| grep -o '"key"`)
	universe := regexp.MustCompile(`(?:--universe-id|set-universe \S+) "?(\d+)`)
	curl := regexp.MustCompile(`(?m)^.*\bcurl\b.*$`)
	bearer := regexp.MustCompile(`Bearer \$\{?([A-Z_]+)\}?`)
	route := regexp.MustCompile(`"?\$\{?API\}?(/[^"?' ]*)`)
	// A change to the demo door's policy, through the CLI or a PUT.
	demoPolicy := regexp.MustCompile(`(?m)policy set "?\$\{?ACCESS_POINT_ID\b|^.*-X PUT.*access-points/\$\{?ACCESS_POINT_ID\}?/policy.*$`)
	param := regexp.MustCompile(`\$[A-Z_]+|\$\{[A-Z_]+\}|'\$[A-Z_]+'|"\$[A-Z_]+"`)
	guides, err := filepath.Glob(filepath.Join(root, "docs/guide/*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides: %v", err)
	}
	for _, guide := range guides {
		text, err := os.ReadFile(guide)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(guide)
		blocks := shellBlocks(string(text))
		made := map[string][]string{} // key variables the guide creates, and their scopes
		for _, b := range blocks {
			for _, k := range keyMade.FindAllStringSubmatch(b, -1) {
				made[k[1]] = strings.Split(k[2], ",")
			}
			for _, k := range keyOf.FindAllStringSubmatch(b, -1) {
				made[k[1]] = made[k[2]]
			}
		}
		for _, b := range blocks {
			for _, r := range rebind.FindAllStringSubmatch(b, -1) {
				if slices.Contains(printed, r[1]) {
					t.Errorf("%s binds $%s, which holds the demo's, to %s: the demo printed it, so use it as it is, and name what is the guide's own for itself", name, r[1], r[2])
				}
			}
			for _, u := range universe.FindAllStringSubmatch(b, -1) {
				if slices.Contains(demo.Universes(), u[1]) {
					t.Errorf("%s puts a place of its own in universe %s, a demo venue's", name, u[1])
				}
			}
			if demoPolicy.MatchString(b) {
				t.Errorf("%s changes the policy of the demo's door $ACCESS_POINT_ID: give it a door of its own", name)
			}
			for _, line := range curl.FindAllString(b, -1) {
				line, _, _ = strings.Cut(line[strings.Index(line, "curl"):], " | ")
				key, path := bearer.FindStringSubmatch(line), route.FindStringSubmatch(line)
				if key == nil || path == nil {
					continue
				}
				method := "GET"
				if mm := regexp.MustCompile(`(?:-X|--request) ([A-Z]+)`).FindStringSubmatch(line); mm != nil {
					method = mm[1]
				} else if regexp.MustCompile(` (?:-d|--data\S*|--json) ?`).MatchString(line) {
					method = "POST"
				}
				scope, ok := findScope(scopes, method, param.ReplaceAllString(path[1], "*"))
				if !ok {
					t.Errorf("%s calls %s %s, which the API does not have:\n%s", name, method, path[1], line)
					continue
				}
				has := func(held []string) bool {
					return slices.ContainsFunc(scope, func(s string) bool { return slices.Contains(held, s) })
				}
				switch {
				case len(scope) == 0:
				case key[1] == "KEY" && !has(demoScopes):
					t.Errorf("%s calls %s %s (%s) with the demo's key, which has only %v: create a key with it", name, method, path[1], strings.Join(scope, " or "), demoScopes)
				case key[1] != "KEY" && made[key[1]] == nil:
					t.Errorf("%s calls with $%s, which it never creates", name, key[1])
				case key[1] != "KEY" && !has(made[key[1]]):
					t.Errorf("%s calls %s %s (%s) with $%s, made with %v", name, method, path[1], strings.Join(scope, " or "), key[1], made[key[1]])
				}
			}
		}
	}
}

// findScope finds the scopes of method on path, its variables as "*".
func findScope(scopes map[string][]string, method, path string) ([]string, bool) {
	path = strings.TrimSuffix(path, "/")
	for op, scope := range scopes {
		m, p, _ := strings.Cut(op, " ")
		if m != method {
			continue
		}
		pattern := "^" + regexp.MustCompile(`\\\{[^}]*\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$"
		if regexp.MustCompile(pattern).MatchString(path) {
			return scope, true
		}
	}
	return nil, false
}

// TestGuidesShipTheFilesTheyName: a file a guide's command reads (a
// policy for policy set or curl -d @) is in the repository, at the path
// the command names from the clone's root.
func TestGuidesShipTheFilesTheyName(t *testing.T) {
	named := regexp.MustCompile(`(?:policy set \S+ |< |-d @)([A-Za-z0-9_./-]+\.json)`)
	guides, _ := filepath.Glob(filepath.Join(root, "docs/guide/*.md"))
	for _, guide := range guides {
		text, _ := os.ReadFile(guide)
		for _, b := range shellBlocks(string(text)) {
			for _, m := range named.FindAllStringSubmatch(b, -1) {
				if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
					t.Errorf("%s reads %s, which the repository does not have", filepath.Base(guide), m[1])
				}
			}
		}
	}
}
