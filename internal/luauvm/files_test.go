package luauvm

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestSpecFilesFormatted: the spec harness is as StyLua writes it, with
// sdk/luau/stylua.toml. (The SDK's own files are formatted by the typed
// rewrite; until then only spec/ is checked.)
func TestSpecFilesFormatted(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not installed")
	}
	stylua := filepath.Join(sdkDir, "node_modules", ".bin", "stylua")
	if _, err := os.Stat(stylua); err != nil {
		testenv.Missing(t, "StyLua is not installed: npm ci --prefix sdk/luau")
	}
	cmd := exec.Command(filepath.Join("node_modules", ".bin", "stylua"), "--check", "spec")
	cmd.Dir = sdkDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stylua --check spec (run `stylua spec` in sdk/luau): %v\n%s", err, out)
	}
}

// TestEverySpecFileRuns: main.luau requires every *.spec.luau, so that
// a new spec file cannot be left out of the suite unnoticed.
func TestEverySpecFileRuns(t *testing.T) {
	main, err := os.ReadFile(filepath.Join(sdkDir, "spec", "main.luau"))
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]bool{}
	for _, m := range regexp.MustCompile(`require\("\./([A-Za-z]+\.spec)"\)`).FindAllStringSubmatch(string(main), -1) {
		required[m[1]] = true
	}
	files, err := filepath.Glob(filepath.Join(sdkDir, "spec", "*.spec.luau"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no spec files (%v)", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".luau")
		if !required[name] {
			t.Errorf("spec/main.luau does not require ./%s", name)
		}
		delete(required, name)
	}
	for name := range required {
		t.Errorf("spec/main.luau requires ./%s, which is not a file", name)
	}
}

// TestWallyPackageLeavesOutTheHarness: the package a studio installs holds
// the SDK, not its specs or the tools that check them.
func TestWallyPackageLeavesOutTheHarness(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join(sdkDir, "wally.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^include\s*=\s*\[(.*)\]`).FindSubmatch(manifest)
	if m == nil {
		t.Fatal("wally.toml has no include list: the whole folder, spec/ too, would be published")
	}
	for _, entry := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(m[1], -1) {
		switch name := string(entry[1]); {
		case name == "spec" || strings.HasPrefix(name, "spec/"),
			name == "node_modules", name == "package.json", name == "package-lock.json", name == "stylua.toml":
			t.Errorf("wally.toml includes %s", name)
		}
	}
}
