//go:build unix

package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guideBlock is a ```sh block of a guide and what it needs to run.
type guideBlock struct {
	text  string
	needs string // a program that is not on every machine, or ""
	// ownTerminal marks a server the reader starts in a terminal of its
	// own ("# in a terminal of its own"): the quick start's demo, which
	// the test has started.
	ownTerminal bool
}

// quickStart is the command of the README's quick start, which the test
// runs as startDemo does.
const quickStart = "go run ./cmd/gatehouse demo"

// runnableBlocks returns the ```sh blocks of a guide as written.
func runnableBlocks(text string) []guideBlock {
	var blocks []guideBlock
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		b := guideBlock{text: m[1]}
		if n := regexp.MustCompile(`^# needs: (\S+)\n`).FindStringSubmatch(b.text); n != nil {
			b.needs = n[1]
		}
		b.ownTerminal = strings.HasPrefix(b.text, "# in a terminal of its own")
		blocks = append(blocks, b)
	}
	return blocks
}

// blockMark starts the output of each block.
const blockMark = "@@ guide block "

// runGuide runs blocks in order in one bash, as pasted into one shell,
// and fails t with the block, its output and the requests the server
// refused when one fails.
func runGuide(t *testing.T, root string, env []string, d runningDemo, blocks []guideBlock) {
	dir := t.TempDir()
	var script strings.Builder
	script.WriteString("cd " + strconv.Quote(root) + "\n")
	for i, b := range blocks {
		text := b.text
		if b.ownTerminal {
			if commands(text) != quickStart {
				t.Fatalf("block %d is a server in a terminal of its own, but not the quick start's %q, which the test started:\n%s", i+1, quickStart, text)
			}
			text = ""
		}
		if _, err := exec.LookPath(b.needs); b.needs != "" && err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("block %d needs %s (CI installs it)", i+1, b.needs)
			}
			t.Logf("block %d left out: it needs %s, which is not installed", i+1, b.needs)
			text = ""
		}
		file := filepath.Join(dir, fmt.Sprintf("block-%d.sh", i+1))
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		// Each block ends with a request the test finds in the server's
		// log: the requests logged before it are the block's.
		fmt.Fprintf(&script, "printf '\\n%s%d\\n'\n. %s\ncurl -s -o /dev/null %s/guide-block-end\n",
			blockMark, i+1, strconv.Quote(file), strconv.Quote(d.base))
	}
	fmt.Fprintf(&script, "printf '\\n%sdone\\n'\n", blockMark)
	driver := filepath.Join(dir, "guide.sh")
	if err := os.WriteFile(driver, []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	logStart := fileSize(t, d.log)
	entries := topLevel(t, root)
	var all strings.Builder
	for _, b := range blocks {
		all.WriteString(b.text)
	}
	defer removeNew(t, root, entries, all.String())

	out, err := os.Create(filepath.Join(dir, "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", driver)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, out, out
	// A group of its own, so that what a guide starts in the background
	// (a webhook receiver) ends with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	output, _ := os.ReadFile(out.Name())
	outputs := splitBlocks(output)
	if runErr != nil {
		n := len(outputs) // the block that was running
		if n == 0 || n > len(blocks) {
			t.Fatalf("the guide did not run (%v):\n%s", runErr, output)
		}
		t.Fatalf("block %d failed (%v):\n%s\noutput:\n%s", n, runErr, blocks[n-1].text, tail(outputs[n-1]))
	}
	for _, r := range refusedRequests(t, d.log, logStart) {
		if r.block < 1 || r.block > len(blocks) {
			t.Errorf("a request outside any block was answered %d: %s %s", r.Status, r.Method, r.Path)
			continue
		}
		b := blocks[r.block-1]
		if !commentNames(b.text, r.Status) {
			t.Errorf("block %d: %s %s answered %d (request %s):\n%s\noutput:\n%s",
				r.block, r.Method, r.Path, r.Status, r.RequestID, b.text, tail(outputs[r.block-1]))
		}
	}
}

// commands is a block without its comments and blank lines.
func commands(block string) string {
	var lines []string
	for _, line := range strings.Split(block, "\n") {
		if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) != "" {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return strings.Join(lines, "\n")
}

// tail is the end of a block's output, enough to see what failed.
func tail(output string) string {
	const most = 4000
	if len(output) > most {
		return "…" + output[len(output)-most:]
	}
	return output
}

// splitBlocks cuts a guide's output at the marks that start each block.
func splitBlocks(output []byte) []string {
	var outs []string
	for _, part := range strings.Split(string(output), "\n"+blockMark)[1:] {
		n, rest, _ := strings.Cut(part, "\n")
		if n == "done" {
			break
		}
		outs = append(outs, rest)
	}
	return outs
}

// refusedRequest is a request the server answered with 400 or more, and
// the block that sent it.
type refusedRequest struct {
	Msg, Method, Path, RequestID string
	Status                       int
	block                        int
}

// refusedRequests reads the server's log from offset: the requests
// answered 400 or more, each with its block, counted by the requests
// that end the blocks.
func refusedRequests(t *testing.T, log string, offset int64) []refusedRequest {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var refused []refusedRequest
	block := 1
	for _, line := range bytes.Split(b[offset:], []byte("\n")) {
		var r refusedRequest
		if json.Unmarshal(line, &r) != nil || r.Msg != "request" {
			continue
		}
		switch {
		case r.Path == "/guide-block-end":
			block++
		case r.Status >= http.StatusBadRequest:
			r.block = block
			refused = append(refused, r)
		}
	}
	return refused
}

// commentNames reports whether a comment of block names status: a
// block that shows an error says so.
func commentNames(block string, status int) bool {
	word := regexp.MustCompile(`\b` + strconv.Itoa(status) + `\b`)
	for _, line := range strings.Split(block, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ') && word.MatchString(line[i:]) {
			return true
		}
	}
	return false
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// topLevel lists the names in dir.
func topLevel(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// removeNew removes the files a guide made in the clone's root, where
// the reader runs it (a cursor file, a poller's state), so that the clone
// stays as it was: those new since had that the guide's text names.
// Another, which some other program may have made meanwhile, is left.
func removeNew(t *testing.T, dir string, had map[string]bool, guide string) {
	t.Helper()
	for name := range topLevel(t, dir) {
		switch {
		case had[name]:
		case strings.Contains(guide, name):
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Error(err)
			}
		default:
			t.Logf("%s appeared in the clone's root while the guide ran, which the guide does not name: left there", name)
		}
	}
}
