package examples_test

// The docs cite tests as evidence and give go test commands to
// reproduce figures: both must still find what they name.

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameTestsThatExist: a test, benchmark or fuzz target the docs
// cite as evidence is one the repository has. Tests move and are renamed
// (the SDK's became Luau specs); a citation of one that is gone proves
// nothing.
func TestDocsNameTestsThatExist(t *testing.T) {
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Z]\w*)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		for _, m := range def.FindAllSubmatch(b, -1) {
			defined[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	guides, _ := filepath.Glob(filepath.Join(root, "docs", "guide", "*.md"))
	cited := regexp.MustCompile("`((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)")
	for _, doc := range append(append(docs, guides...), filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cited.FindAllSubmatchIndex(b, -1) {
			if name := string(b[m[2]:m[3]]); !defined[name] {
				t.Errorf("%s:%d cites %s, which no test file defines", filepath.Base(doc), bytes.Count(b[:m[0]], []byte("\n"))+1, name)
			}
		}
	}
}

// TestDocsGoTestCommandsRunSomething: a `go test -run X` or `-bench X`
// the docs give to reproduce a figure finds what it names in the package
// it names (a test that moved to internal/service left `-v .` running
// nothing).
func TestDocsGoTestCommandsRunSomething(t *testing.T) {
	command := regexp.MustCompile(`go test[^` + "`" + `\n]*`)
	flag := regexp.MustCompile(`-(run|bench) ('[^']*'|"[^"]*"|\S+)`)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, doc := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range command.FindAllString(strings.ReplaceAll(string(b), "\n  ", " "), -1) {
			pkg := "."
			for _, f := range strings.Fields(cmd) {
				if f == "." || strings.HasPrefix(f, "./") {
					pkg = strings.TrimSuffix(f, "/...")
				}
			}
			for _, m := range flag.FindAllStringSubmatch(cmd, -1) {
				pattern := strings.Trim(m[2], `'"`)
				if pattern == "^$" {
					continue
				}
				prefix := "Test|Fuzz"
				if m[1] == "bench" {
					prefix = "Benchmark"
				}
				if !packageDefines(t, filepath.Join(root, pkg), prefix, pattern) {
					t.Errorf("%s: %q finds no %s matching %q in %s", filepath.Base(doc), cmd, prefix, pattern, pkg)
				}
			}
		}
	}
}

// packageDefines reports whether a test file of dir defines a function
// whose name begins with prefix and matches pattern as go test does.
func packageDefines(t *testing.T, dir, prefix, pattern string) bool {
	re, err := regexp.Compile(strings.Split(pattern, "/")[0])
	if err != nil {
		t.Errorf("pattern %q: %v", pattern, err)
		return true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	def := regexp.MustCompile(`(?m)^func ((?:` + prefix + `)\w*)\(`)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range def.FindAllSubmatch(b, -1) {
			name := string(m[1])
			if prefix == "Benchmark" {
				name = strings.TrimPrefix(name, "Benchmark")
			}
			if re.MatchString(name) || re.MatchString(string(m[1])) {
				return true
			}
		}
	}
	return false
}
