package luasdk

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The SDK uses nothing of Lua 5.1 that Luau lacks, so that it runs on the
// platform as it runs here (TestSDKSourceIsLua51 checks the other way).
func TestSDKSourceUsesNothingLuauLacks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sdkSource, "*.luau"))
	if err != nil || len(files) < 5 {
		t.Fatalf("SDK files %v, %v", files, err)
	}
	notInLuau := regexp.MustCompile(`\b(?:setfenv|getfenv|loadstring|dofile|loadfile|gfind|getn|setn|goto)\b|\bmodule\s*\(|\bmath\.mod\b|\b(?:io|debug)\.|\bos\.(?:execute|exit|getenv|remove|rename|tmpname)\b`)
	blockComment := regexp.MustCompile(`(?s)--\[\[.*?\]\]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Block comments are blanked, keeping the line count.
		text := blockComment.ReplaceAllStringFunc(string(src), func(c string) string {
			return strings.Repeat("\n", strings.Count(c, "\n"))
		})
		for i, line := range strings.Split(text, "\n") {
			code, _, _ := strings.Cut(line, "--")
			if m := notInLuau.FindString(code); m != "" {
				t.Errorf("%s:%d uses %s, which Luau does not have", f, i+1, m)
			}
		}
	}
}
