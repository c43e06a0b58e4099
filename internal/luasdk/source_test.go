package luasdk

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// The SDK uses nothing of Lua 5.1 that Luau lacks, so that it runs on the
// platform as it runs here (TestSDKSourceIsLua51 checks the other way).
func TestSDKSourceUsesNothingLuauLacks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sdkSource, "*.luau"))
	if err != nil || len(files) < 5 {
		t.Fatalf("SDK files %v, %v", files, err)
	}
	notInLuau := regexp.MustCompile(`\b(?:setfenv|getfenv|loadstring|dofile|loadfile|gfind|getn|setn|goto)\b|\bmodule\s*\(|\bmath\.mod\b|\b(?:io|debug)\.|\bos\.(?:execute|exit|getenv|remove|rename|tmpname)\b`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(stripLua(string(src)), "\n") {
			if m := notInLuau.FindString(line); m != "" {
				t.Errorf("%s:%d uses %s, which Luau does not have", f, i+1, m)
			}
		}
	}
}

// TestSDKSourceIsLua51: every file of the SDK is in the part of Luau that
// is also Lua 5.1, so that these tests can run it: gopher-lua compiles
// each, and what Luau alone would accept is named where it is.
func TestSDKSourceIsLua51(t *testing.T) {
	luauOnly := []struct {
		what string
		re   *regexp.Regexp
	}{
		{"a compound assignment", regexp.MustCompile(`(\+|-|\*|/|%|\^|\.\.)=`)},
		{"continue", regexp.MustCompile(`\bcontinue\b`)},
		{"floor division", regexp.MustCompile(`//`)},
		{"string interpolation", regexp.MustCompile("`")},
		{"a type declaration", regexp.MustCompile(`(?m)^\s*(export\s+)?type\s+\w+`)},
		{"a type annotation", regexp.MustCompile(`\blocal\s+\w+(\s*,\s*\w+)*\s*:[^:]|\bfunction\b[^(\n]*\([^)]*\w\s*:\s*\w|\bfunction\b[^(\n]*\([^)]*\)\s*:`)},
		// On one line: a string blanked out after "=" must not make the
		// next line's if statement look like an expression.
		{"an if-expression", regexp.MustCompile(`(=|\(|,|\breturn)[ \t]*if\b`)},
	}
	files := 0
	err := filepath.WalkDir(sdkSource, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".luau") {
			return err
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if chunk, err := parse.Parse(strings.NewReader(string(src)), path); err != nil {
			t.Errorf("%s is not Lua 5.1: %v", path, err)
		} else if _, err := lua.Compile(chunk, path); err != nil {
			t.Errorf("%s does not compile: %v", path, err)
		}
		code := stripLua(string(src))
		for _, l := range luauOnly {
			if loc := l.re.FindStringIndex(code); loc != nil {
				line := strings.Count(code[:loc[0]], "\n") + 1
				t.Errorf("%s:%d: %s (%q), which Lua 5.1 lacks", path, line, l.what, code[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no .luau file under %s", sdkSource)
	}
}

// stripLua blanks comments and string literals (keeping their line
// breaks, so that lines still count), leaving the code to search.
func stripLua(src string) string {
	var b strings.Builder
	blank := func(s string) {
		for _, r := range s {
			if r == '\n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
	}
	longOpen := regexp.MustCompile(`^\[(=*)\[`)
	for i := 0; i < len(src); {
		rest := src[i:]
		long := func(from int) int { // the end of a long bracket starting at from, or len(src)
			m := longOpen.FindStringSubmatch(src[from:])
			end := strings.Index(src[from+len(m[0]):], "]"+m[1]+"]")
			if end < 0 {
				return len(src)
			}
			return from + len(m[0]) + end + len(m[1]) + 2
		}
		switch {
		case strings.HasPrefix(rest, "--"):
			end := i + 2
			if longOpen.MatchString(src[end:]) {
				end = long(end)
			} else if nl := strings.IndexByte(src[end:], '\n'); nl >= 0 {
				end += nl
			} else {
				end = len(src)
			}
			blank(src[i:end])
			i = end
		case longOpen.MatchString(rest):
			end := long(i)
			blank(src[i:end])
			i = end
		case rest[0] == '"' || rest[0] == '\'':
			end := i + 1
			for end < len(src) && src[end] != rest[0] && src[end] != '\n' {
				if src[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(src))
			blank(src[i:end])
			i = end
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String()
}

// TestStripLua: what the source check searches is the code alone.
func TestStripLua(t *testing.T) {
	src := "local a = \"x += 1 // continue\" -- y += 2\nlocal b = [[\n`z`]] --[==[ type T = {}\n]==] a = a .. 'it''s'\nb = 1"
	got := stripLua(src)
	for _, bad := range []string{"+=", "//", "continue", "`", "type"} {
		if strings.Contains(got, bad) {
			t.Errorf("stripLua left %q in %q", bad, got)
		}
	}
	if strings.Count(got, "\n") != strings.Count(src, "\n") || !strings.Contains(got, "a = a ..") || !strings.HasSuffix(got, "b = 1") {
		t.Errorf("stripLua(%q) = %q", src, got)
	}
}
