package luauvm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDKStrictlyTyped: every file of the SDK is --!strict, and
// luau-analyze --mode=strict finds no problem in src/ (with src/.luaurc,
// which declares the platform's globals) nor in bench/: no type error, no
// lint warning.
func TestSDKStrictlyTyped(t *testing.T) {
	luau := toolchain(t)
	files, err := filepath.Glob(filepath.Join(sdkDir, "src", "*.luau"))
	if err != nil || len(files) < 5 {
		t.Fatalf("SDK sources %v (%v)", files, err)
	}
	args := []string{"--mode=strict", "--formatter=plain"}
	bench, err := filepath.Glob(filepath.Join(sdkDir, "bench", "*.luau"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range bench {
		args = append(args, filepath.Join("bench", filepath.Base(f)))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), "--!strict\n") {
			t.Errorf("%s does not start with --!strict", filepath.Base(f))
		}
		args = append(args, filepath.Join("src", filepath.Base(f)))
	}
	cmd := exec.Command(filepath.Join(luau, "luau-analyze"), args...)
	cmd.Dir = sdkDir
	// luau-analyze exits 0 whatever it finds: its lines are the verdict.
	out, _ := cmd.CombinedOutput()
	var problems []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			problems = append(problems, line)
		}
	}
	t.Logf("luau-analyze --mode=strict: %d files, %d problems", len(args)-2, len(problems))
	if len(problems) > 0 {
		t.Errorf("luau-analyze --mode=strict src/*.luau:\n%s", strings.Join(problems, "\n"))
	}

	// The check is real: in a copy of src/, a module that misuses another's
	// type through a require is caught.
	probe := t.TempDir()
	for _, f := range append(files, filepath.Join(sdkDir, "src", ".luaurc")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(probe, filepath.Base(f)), b)
	}
	write(t, filepath.Join(probe, "Probe.luau"), []byte("--!strict\nlocal Queue = require(\"./Queue\")\nlocal size: string = Queue.new(1):size()\nreturn size\n"))
	cmd = exec.Command(filepath.Join(luau, "luau-analyze"), "--mode=strict", "--formatter=plain", "Probe.luau")
	cmd.Dir = probe
	out, _ = cmd.CombinedOutput()
	if !strings.Contains(string(out), "Probe.luau:3") || !strings.Contains(string(out), "TypeError") {
		t.Errorf("luau-analyze let a number pass for a string across a require:\n%s", out)
	}
}
