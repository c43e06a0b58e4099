package luauvm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

const (
	sdkDir  = "../../sdk/luau"
	vectors = "../../conformance/decisions.json"
	// doorsExample is the door script of the docs, run as a spec.
	doorsExample = "../../docs/examples/Doors.server.luau"
	// vectorPrefix names the specs that are conformance vectors.
	vectorPrefix = "Conformance vectors / "
	// jobID is the fake server's job id.
	jobID = "8d2f4c1e-job-one"
	// fakeURL is where the specs' SDK believes Gatehouse is.
	fakeURL = "https://gatehouse.example"
)

// toolchain returns the folder holding luau and luau-analyze, or skips t
// (fails it in CI) when GATEHOUSE_TEST_LUAU is unset or lacks them.
func toolchain(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GATEHOUSE_TEST_LUAU")
	if dir == "" {
		testenv.Missing(t, "GATEHOUSE_TEST_LUAU is not set: the folder holding the Luau toolchain (luau, luau-analyze)")
	}
	for _, name := range []string{"luau", "luau-analyze"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			testenv.Missing(t, "GATEHOUSE_TEST_LUAU=%s holds no program %s", dir, name)
		}
	}
	return dir
}

// specLine is one machine-readable line of the runner: @@spec (also
// @@request, @@decision and @@summary, each with its JSON).
type specLine struct {
	Name    string  `json:"name"`
	OK      bool    `json:"ok"`
	Message string  `json:"message"`
	Seconds float64 `json:"seconds"` // the VM's CPU time
}

// request is one HTTP request the SDK made in a spec, as the fake
// platform logged it: the key's value is the marker <secret>.
type request struct {
	Spec     string  `json:"spec"`
	Method   string  `json:"method"`
	Path     string  `json:"path"`
	Headers  headers `json:"headers"`
	Body     *string `json:"body"`
	AtMillis int64   `json:"atMillis"`
	// Expect is "accept", or "refuse" when the spec sent something bad on
	// purpose and the fake refused it (Answer): Gatehouse must refuse it too.
	Expect string `json:"expect"`
	// Answer is what the fake answered (none for a network error); Own
	// says it is the fake Gatehouse's own answer, not one a spec scripted.
	Answer *struct {
		Status  int             `json:"status"`
		Headers headers         `json:"headers"`
		Body    json.RawMessage `json:"body"`
	} `json:"answer"`
	Own bool `json:"own"`
}

// headers are a request's headers; the runner writes none as [] (an
// empty table is an array to JSONEncode).
type headers map[string]string

func (h *headers) UnmarshalJSON(b []byte) error {
	if string(b) == "[]" {
		*h = headers{}
		return nil
	}
	return json.Unmarshal(b, (*map[string]string)(h))
}

type summary struct {
	Specs, Passed, Failed int
}

// outcome is what one run of the suite printed.
type outcome struct {
	specs     []specLine
	requests  []request
	decisions []decisionLine
	summary   *summary
	other     []string // lines that are not the runner's (print, errors)
}

// runSuite runs the spec suite once and reads what it printed.
func runSuite(t *testing.T, luau, work string, codegen bool) outcome {
	t.Helper()
	args := []string{"main.luau"}
	if codegen {
		args = []string{"--codegen", "main.luau", "-a", "native"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(luau, "luau"), args...)
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	// luau exits 1 when the script raised; the runner itself returns
	// normally whatever its specs did, and says so in @@summary.
	var o outcome
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		text := sc.Text()
		kind, payload, _ := strings.Cut(text, " ")
		var err error
		switch kind {
		case "@@spec":
			var s specLine
			err = json.Unmarshal([]byte(payload), &s)
			o.specs = append(o.specs, s)
		case "@@request":
			var r request
			err = json.Unmarshal([]byte(payload), &r)
			o.requests = append(o.requests, r)
		case "@@decision":
			var d decisionLine
			err = json.Unmarshal([]byte(payload), &d)
			o.decisions = append(o.decisions, d)
		case "@@summary":
			o.summary = &summary{}
			err = json.Unmarshal([]byte(payload), o.summary)
		default:
			o.other = append(o.other, text)
		}
		if err != nil {
			t.Fatalf("a line of the runner is not JSON (%v): %.300s", err, text)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err != nil || o.summary == nil {
		t.Fatalf("luau %s: %v; no summary; stderr:\n%s\nother output:\n%s", strings.Join(args, " "), err, stderr.String(), strings.Join(o.other, "\n"))
	}
	if len(o.other) > 0 {
		t.Logf("luau %s printed:\n%s", strings.Join(args, " "), strings.Join(o.other, "\n"))
	}
	return o
}

// generous lets the replay, not the server's key limit, set the pace.
var generous = ratelimit.Limit{Rate: gatehouse.Rate{Count: 100000, Per: time.Second}, Burst: 100000}

// TestLuauSpecs runs the spec suite under luau and under luau --codegen,
// a subtest per spec, then replays against a live Gatehouse every request
// the SDK made in it.
func TestLuauSpecs(t *testing.T) {
	luau := toolchain(t)
	api := apitest.Start(t, generous)
	door, err := api.Store.FindAccessPoint(context.Background(), api.OrgID, api.AccessPointID)
	if err != nil {
		t.Fatal(err)
	}
	work := generate(t, map[string]any{
		"door":        api.AccessPointID.String(),
		"location":    door.LocationID.String(),
		"universeId":  "42",
		"jobId":       jobID,
		"url":         fakeURL,
		"startMillis": api.Clock.Now().UnixMilli(),
	})
	t.Run("luau-analyze", func(t *testing.T) {
		// The harness analyzes clean, each file in its own mode: the
		// runner and its JSON are --!strict, the fakes not yet.
		// luau-analyze follows every require, into generated/ too: the
		// SDK's own problems are left to TestSDKStrictlyTyped.
		strict := 0
		files, _ := filepath.Glob(filepath.Join(work, "*.luau"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			isStrict := strings.HasPrefix(string(b), "--!strict\n")
			if isStrict {
				strict++
			}
			if name := filepath.Base(f); (name == "Json.luau" || name == "Spec.luau") && !isStrict {
				t.Errorf("spec/%s is no longer --!strict", name)
			}
		}
		t.Logf("the spec harness: %d of %d files --!strict", strict, len(files))
		cmd := exec.Command(filepath.Join(luau, "luau-analyze"), "--formatter=plain", "main.luau")
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		var problems []string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if line != "" && !strings.Contains(line, "generated/") {
				problems = append(problems, line)
			}
		}
		if len(problems) > 0 {
			t.Errorf("luau-analyze main.luau (%v):\n%s", err, strings.Join(problems, "\n"))
		}
	})
	modes := []struct {
		name    string
		codegen bool
	}{{"luau", false}, {"luau --codegen", true}}
	// The plain run loads the SDK with loadstring; the native one from
	// generated modules, which luau --codegen compiles to native code.
	var runs []outcome
	for _, m := range modes {
		start := time.Now()
		o := runSuite(t, luau, work, m.codegen)
		runs = append(runs, o)
		nVectors := 0
		for _, s := range o.specs {
			if strings.HasPrefix(s.Name, vectorPrefix) {
				nVectors++
			}
		}
		t.Run(m.name, func(t *testing.T) {
			for _, s := range o.specs {
				t.Run(s.Name, func(t *testing.T) {
					if !s.OK {
						t.Error(s.Message)
					}
				})
			}
			if o.summary.Specs != len(o.specs) || o.summary.Failed != countFailed(o.specs) {
				t.Errorf("summary %+v disagrees with the %d spec lines", *o.summary, len(o.specs))
			}
		})
		t.Logf("%s: %d specs (%d passed, %d failed), %d conformance vectors, %d requests, in %v",
			m.name, len(o.specs)-nVectors, o.summary.Passed-(nVectors-countFailedPrefix(o.specs, vectorPrefix)), countFailed(o.specs)-countFailedPrefix(o.specs, vectorPrefix),
			nVectors, len(o.requests), time.Since(start).Round(time.Millisecond))
	}
	// The virtual clock and the GUIDs are deterministic: both VMs must
	// have sent the very same requests.
	if len(runs[0].requests) != len(runs[1].requests) {
		t.Errorf("luau sent %d requests, luau --codegen %d", len(runs[0].requests), len(runs[1].requests))
	} else {
		for i := range runs[0].requests {
			a, _ := json.Marshal(runs[0].requests[i])
			b, _ := json.Marshal(runs[1].requests[i])
			if !bytes.Equal(a, b) {
				t.Errorf("request %d differs between the VMs:\n%.1000s\n%.1000s", i, a, b)
				break
			}
		}
	}
	t.Run("replay", func(t *testing.T) { replay(t, api, runs[0].requests) })
	t.Run("decisions", func(t *testing.T) { checkDecisions(t, api, runs[0].decisions) })
}

func countFailed(specs []specLine) int { return countFailedPrefix(specs, "") }

func countFailedPrefix(specs []specLine, prefix string) int {
	n := 0
	for _, s := range specs {
		if !s.OK && strings.HasPrefix(s.Name, prefix) {
			n++
		}
	}
	return n
}
