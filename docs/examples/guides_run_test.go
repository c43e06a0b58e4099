//go:build unix

package examples_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestGuidesRunOnTheDemo runs every guide as a reader does: after the
// README's quick start, in the shell that holds the variables the demo
// printed, each ```sh block pasted in order. It builds the gatehouse
// binary, starts `gatehouse demo` on a free loopback port and a database
// of its own, and runs each guide's blocks in a fresh `bash -euo
// pipefail` whose working directory is the clone's root, with the demo's
// variables exported, the binary first on PATH and GATEHOUSE_DB naming the
// demo's database. A block fails when a command exits non-zero, or when
// the server answers one of its requests with a status of 400 or more
// that no comment of the block names (examples.md's "See what a 400
// says" names its 400). A block whose first line is "# needs: PROGRAM"
// (python3) runs only where PROGRAM is installed; elsewhere it is left
// out, and CI, which installs it, fails instead. A block whose first line
// is "# in a terminal of its own" is the quick start's demo, which the
// test has started: it is not run again. Files a guide writes in the
// clone's root are removed after it.
//
// Before the first guide, and after each, it takes a snapshot of the
// demo's own records (demoSnapshot): a guide may add records of its own,
// never change or remove the demo's; what it changes it changes back.
func TestGuidesRunOnTheDemo(t *testing.T) {
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, "%s is not installed", tool)
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil || !strings.Contains(string(readme), "```sh\n"+quickStart+" ") {
		t.Fatalf("the README's quick start is no longer %q, which this test runs (%v)", quickStart, err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "gatehouse"), "./cmd/gatehouse")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gatehouse: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "gatehouse.db")
	d := startDemo(t, root, bin, db)
	before := demoSnapshot(t, db, d.vars["ORG_ID"])

	guides, err := filepath.Glob(filepath.Join(root, "docs/guide/*.md"))
	if err != nil || len(guides) == 0 {
		t.Fatalf("no guides: %v", err)
	}
	env := guideEnv(bin, db, d.vars)
	for _, guide := range guides {
		name := strings.TrimSuffix(filepath.Base(guide), ".md")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(guide)
			if err != nil {
				t.Fatal(err)
			}
			// After each guide, also one that failed, so that a change is
			// laid at its door.
			defer func() {
				after := demoSnapshot(t, db, d.vars["ORG_ID"])
				for id, was := range before {
					switch now, ok := after[id]; {
					case !ok:
						t.Errorf("the guide removed the demo's %s:\n%s", id, was)
					case now != was:
						t.Errorf("the guide changed the demo's %s:\nbefore %s\nafter  %s", id, was, now)
					}
				}
			}()
			runGuide(t, root, env, d, runnableBlocks(string(text)))
		})
	}
}

// runningDemo is a running `gatehouse demo`: the variables it printed,
// the base URL of its server and the file its log goes to.
type runningDemo struct {
	vars map[string]string
	base string
	log  string
}

// startDemo runs `gatehouse demo` as the README's quick start does, on a
// free loopback port and the database db, and returns once it has
// printed its variables; it is stopped when t ends.
func startDemo(t *testing.T, root, bin, db string) runningDemo {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "demo.out"))
	if err != nil {
		t.Fatal(err)
	}
	d := runningDemo{vars: map[string]string{}, log: filepath.Join(dir, "demo.log")}
	stderr, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "gatehouse"), "demo", "--addr", "127.0.0.1:0")
	cmd.Dir = root
	cmd.Env = append(withoutGatehouse(os.Environ()), "GATEHOUSE_DB="+db)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, _ := os.ReadFile(stdout.Name())
		if bytes.Contains(out, []byte("\nDashboard: ")) {
			d.vars = demoVariables(t, out)
			break
		}
		select {
		case err := <-exited:
			errs, _ := os.ReadFile(d.log)
			t.Fatalf("gatehouse demo exited (%v):\n%s\n%s", err, out, errs)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gatehouse demo printed no variables in 2 minutes:\n%s", out)
		}
	}
	d.base = strings.TrimSuffix(d.vars["API"], "/api/consumer/v1")
	return d
}

// demoVariables reads the variables the demo tells the reader to paste:
// the indented NAME=value lines after "Paste these variables".
func demoVariables(t *testing.T, out []byte) map[string]string {
	t.Helper()
	_, rest, ok := bytes.Cut(out, []byte("Paste these variables"))
	if !ok {
		t.Fatalf("the demo no longer tells what to paste:\n%s", out)
	}
	vars := map[string]string{}
	line := regexp.MustCompile(`^  (?:export )?([A-Z_]+)=(\S+)$`)
	sc := bufio.NewScanner(bytes.NewReader(rest))
	sc.Scan() // the rest of the sentence
	for sc.Scan() {
		if sc.Text() == "" && len(vars) == 0 {
			continue
		}
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			break
		}
		vars[m[1]] = m[2]
	}
	for _, name := range []string{"KEY", "API", "ORG_ID", "LOCATION_ID", "ACCESS_POINT_ID", "EVENT_ID", "SINCE"} {
		if vars[name] == "" {
			t.Fatalf("the demo printed no %s:\n%s", name, out)
		}
	}
	return vars
}

// withoutGatehouse is env without the settings of gatehouse itself
// (GATEHOUSE_*), which a developer's or CI's environment may hold.
func withoutGatehouse(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GATEHOUSE_") })
}

// guideEnv is the environment of the reader's shell after the quick
// start: the demo's variables, gatehouse on PATH, its database named.
func guideEnv(bin, db string, vars map[string]string) []string {
	env := slices.DeleteFunc(withoutGatehouse(os.Environ()), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		_, printed := vars[name]
		return printed || name == "PATH" || name == "BASH_ENV" || name == "ENV" || name == "CDPATH"
	})
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GATEHOUSE_DB="+db)
	for name, value := range vars {
		env = append(env, name+"="+value)
	}
	return env
}
