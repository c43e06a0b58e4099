package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestDemoAndGuidesUseTheSameVariables: the demo prints, as shell
// variables, every id its curl lines use, under the names the README and
// the guides use, so that their examples run in the shell the demo's
// output was pasted into.
func TestDemoAndGuidesUseTheSameVariables(t *testing.T) {
	out, _ := startDemoJSON(t, filepath.Join(t.TempDir(), "demo.db"))
	printed := map[string]bool{"KEY": true}
	for name := range out.Variables {
		printed[name] = true
	}
	for _, snippet := range out.Curl {
		assigned := map[string]bool{}
		for _, m := range shellAssign.FindAllStringSubmatch(snippet, -1) {
			assigned[m[1]], printed[m[1]] = true, true // NEXT_CURSOR, which the demo shows how to get
		}
		for _, m := range shellUse.FindAllStringSubmatch(snippet, -1) {
			if !printed[m[1]] && !assigned[m[1]] {
				t.Errorf("the demo's example uses $%s, which it does not print:\n%s", m[1], snippet)
			}
		}
		if strings.Contains(snippet, "gk_") {
			t.Errorf("an example holds the raw key rather than $KEY:\n%s", snippet)
		}
	}
	for _, name := range []string{"API", "ORG_ID", "LOCATION_ID", "ACCESS_POINT_ID", "EVENT_ID"} {
		if out.Variables[name] == "" {
			t.Errorf("the demo prints no %s: %v", name, out.Variables)
		}
	}

	docs, _ := filepath.Glob("../../docs/guide/*.md")
	for _, doc := range append(docs, "../../README.md") {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		reported := map[string]bool{}
		// A doc may compute a value of its own (SINCE=$(date …), a key
		// or a door it creates), for its later blocks too: a guide is
		// pasted in order. One it does not compute is the demo's.
		computed := map[string]bool{}
		for _, block := range shellBlock.FindAllStringSubmatch(string(b), -1) {
			for _, m := range shellAssign.FindAllStringSubmatch(block[1], -1) {
				computed[m[1]] = m[2] != "" || !printed[m[1]] // KEY=gk_… stands for the demo's
			}
			for _, m := range shellRead.FindAllStringSubmatch(block[1], -1) {
				computed[m[1]] = true
			}
			for _, m := range shellUse.FindAllStringSubmatch(block[1], -1) {
				if !printed[m[1]] && !computed[m[1]] && !reported[m[1]] {
					reported[m[1]] = true
					t.Errorf("%s uses $%s, which gatehouse demo does not print (it prints %v)", doc, m[1], slices.Sorted(maps.Keys(printed)))
				}
			}
		}
	}
}

// TestDemoExamplesWorkWithItsKey pastes each printed example into a shell
// with the printed variables and runs it: each answers without an error,
// the demo shows every request the README documents, and its key carries
// the scopes of its examples and no other.
func TestDemoExamplesWorkWithItsKey(t *testing.T) {
	for _, tool := range []string{"sh", "curl", "grep", "cut", "date"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, "the demo's examples need %s", tool)
		}
	}
	out, _ := startDemoJSON(t, filepath.Join(t.TempDir(), "demo.db"))
	var vars strings.Builder
	for name, value := range out.Variables {
		fmt.Fprintf(&vars, "%s='%s'\n", name, value)
	}
	fmt.Fprintf(&vars, "KEY='%s'\n", out.Key.Key)
	route := regexp.MustCompile(`"\$API(/[a-z]+)`)
	needed := map[gatehouse.Scope]bool{}
	shown := map[string]bool{}
	var firstPage struct{ Data []struct{ ID string } }
	if err := json.Unmarshal(httpGet(t, out.Variables["API"]+"/events?limit=2", out.Key.Key), &firstPage); err != nil || len(firstPage.Data) != 2 {
		t.Fatalf("the first page of two: %v %v", firstPage, err)
	}
	for _, snippet := range out.Curl {
		last := snippet[strings.LastIndex(snippet, "\n")+1:]
		m := route.FindStringSubmatch(last)
		if m == nil {
			t.Fatalf("an example with no $API route:\n%s", snippet)
		}
		method := "GET"
		if strings.Contains(last, " -d ") {
			method = "POST"
		}
		shown[method+" "+m[1]] = true
		needed[demoEndpoints[method+" "+m[1]]] = true

		stdout, err := exec.Command("sh", "-c", vars.String()+snippet).Output()
		if err != nil {
			t.Fatalf("%v: %s\n%s", err, stdout, snippet)
		}
		var answer struct {
			Code     string
			Accepted int
			Data     []struct {
				ID                    string
				Location, AccessPoint struct{ ID string }
			}
		}
		if err := json.Unmarshal(stdout, &answer); err != nil || answer.Code != "" {
			t.Errorf("the example answered %s (%v):\n%s", stdout, err, snippet)
			continue
		}
		var ids []string
		for _, e := range answer.Data {
			ids = append(ids, e.ID)
		}
		switch {
		case method == "POST":
			if answer.Accepted != 1 {
				t.Errorf("recording an attempt: %s", stdout)
			}
		case len(answer.Data) == 0:
			t.Errorf("the example finds nothing in the demo data:\n%s", snippet)
		case strings.Contains(last, "q=$EVENT_ID") && (len(ids) != 1 || ids[0] != out.Variables["EVENT_ID"]):
			t.Errorf("q=$EVENT_ID answered %v, want %s", ids, out.Variables["EVENT_ID"])
		case strings.Contains(last, "locationId=$LOCATION_ID") && answer.Data[0].Location.ID != out.Variables["LOCATION_ID"],
			strings.Contains(last, "accessPointId=$ACCESS_POINT_ID") && answer.Data[0].AccessPoint.ID != out.Variables["ACCESS_POINT_ID"]:
			t.Errorf("the example answered another place's events: %s\n%s", stdout, snippet)
		case strings.Contains(last, "cursor=$NEXT_CURSOR") && slices.Contains(ids, firstPage.Data[0].ID):
			t.Errorf("the next page %v repeats the first %v: the cursor was lost", ids, firstPage.Data)
		}
	}
	for endpoint := range demoEndpoints {
		if !shown[endpoint] {
			t.Errorf("the demo shows no example of %s, which the README documents", endpoint)
		}
	}
	var want []gatehouse.Scope
	for _, sc := range gatehouse.Scopes {
		if needed[sc] {
			want = append(want, sc)
		}
	}
	if got := strings.Join(out.Key.Scopes, ","); got != gatehouse.JoinScopes(want) {
		t.Errorf("the demo key's scopes are %s; its examples need %s", got, gatehouse.JoinScopes(want))
	}
}
