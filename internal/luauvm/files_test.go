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

// TestFilesFormatted: the SDK (src/), its spec harness (spec/) and its
// benchmark (bench/) are as StyLua writes them, with sdk/luau/stylua.toml.
func TestFilesFormatted(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not installed")
	}
	stylua := filepath.Join(sdkDir, "node_modules", ".bin", "stylua")
	if _, err := os.Stat(stylua); err != nil {
		testenv.Missing(t, "StyLua is not installed: npm ci --prefix sdk/luau")
	}
	cmd := exec.Command(filepath.Join("node_modules", ".bin", "stylua"), "--check", "src", "spec", "bench")
	cmd.Dir = sdkDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stylua --check src spec bench (run `stylua src spec bench` in sdk/luau): %v\n%s", err, out)
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
	// Wally keeps a file that matches include or does not match exclude:
	// the harness must be excluded by name, or it is published anyway.
	x := regexp.MustCompile(`(?m)^exclude\s*=\s*\[(.*)\]`).FindSubmatch(manifest)
	if x == nil {
		t.Fatal("wally.toml has no exclude list: Wally would publish spec/ and bench/ whatever include says")
	}
	excluded := map[string]bool{}
	for _, entry := range regexp.MustCompile(`"([^"]*)"`).FindAllSubmatch(x[1], -1) {
		excluded[string(entry[1])] = true
	}
	for _, name := range []string{"spec", "bench", "node_modules", "package.json", "package-lock.json", "stylua.toml"} {
		if !excluded[name] {
			t.Errorf("wally.toml does not exclude %s", name)
		}
	}
}

// TestSDKRequiresByString: every require in src/ names its module by a
// string, as the platform resolves it in a ModuleScript ("@self/Queue" in
// init.luau, "./Queue" beside it), so that luau-analyze follows each one
// and checks the types across modules.
func TestSDKRequiresByString(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sdkDir, "src", "*.luau"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no SDK sources (%v)", err)
	}
	call := regexp.MustCompile(`\brequire\s*\(([^)]*)\)`)
	comments := regexp.MustCompile(`--\[\[[\s\S]*?\]\]|--\[=\[[\s\S]*?\]=\]|--[^\n]*`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = comments.ReplaceAll(src, nil) // the examples in doc comments are the game's requires
		want := `^"\./[A-Za-z]+"$`
		if filepath.Base(f) == "init.luau" {
			want = `^"@self/[A-Za-z]+"$`
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			if !regexp.MustCompile(want).MatchString(m[1]) {
				t.Errorf("%s: require(%s), want a path matching %s", filepath.Base(f), m[1], want)
			}
		}
	}
}

// TestReadmeShowsThePublicAPI: sdk/luau/README.md shows every function
// of the package and every type it exports, and the package re-exports
// every public type of Types.luau.
func TestReadmeShowsThePublicAPI(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(sdkDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, init, types := read("README.md"), read("src/init.luau"), read("src/Types.luau")
	functions := regexp.MustCompile(`(?m)^function Gatehouse\.(\w+)\(`).FindAllStringSubmatch(init, -1)
	exported := regexp.MustCompile(`(?m)^export type (\w+) = Types\.(\w+)$`).FindAllStringSubmatch(init, -1)
	if len(functions) < 5 || len(exported) < 5 {
		t.Fatalf("init.luau: %d functions, %d exported types", len(functions), len(exported))
	}
	for _, f := range functions {
		if !strings.Contains(readme, "Gatehouse."+f[1]+"(") {
			t.Errorf("README.md does not show Gatehouse.%s", f[1])
		}
	}
	reexported := map[string]bool{}
	for _, e := range exported {
		reexported[e[2]] = true
		if !regexp.MustCompile(`(?m)^type ` + e[1] + ` = `).MatchString(readme) {
			t.Errorf("README.md does not show the type %s", e[1])
		}
	}
	internal := map[string]bool{"Attributes": true, "ActiveUnlock": true, "ActiveSpan": true, "ActiveGrant": true, "DecisionInput": true}
	for _, m := range regexp.MustCompile(`(?m)^export type (\w+)`).FindAllStringSubmatch(types, -1) {
		if !reexported[m[1]] && !internal[m[1]] {
			t.Errorf("Types.%s is public but init.luau does not re-export it", m[1])
		}
	}
}

// TestReadmeInstallsByHandEveryModule: the README's install by hand names
// one child ModuleScript per file of src, so that a package set up from it
// finds every module it requires.
func TestReadmeInstallsByHandEveryModule(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(sdkDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, byHand, ok := strings.Cut(string(readme), "**By hand**")
	byHand, _, _ = strings.Cut(byHand, "\n\n")
	if !ok {
		t.Fatal("README.md has no **By hand** install")
	}
	names, err := filepath.Glob(filepath.Join(sdkDir, "src", "*.luau"))
	if err != nil || len(names) < 10 {
		t.Fatalf("src: %v, %v", names, err)
	}
	for _, name := range names {
		module := strings.TrimSuffix(filepath.Base(name), ".luau")
		if module != "init" && !strings.Contains(byHand, "`"+module+"`") {
			t.Errorf("the README's install by hand does not name the ModuleScript %s", module)
		}
	}
}
