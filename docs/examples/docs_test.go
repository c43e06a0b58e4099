package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
)

// The documentation is checked against what the repository holds, so that
// it cannot drift the way a new user found it had: a Go version other than
// go.mod's, a flag that does not exist, an error code missing from the
// tables, a file that is not there, a date that goes stale.

const root = "../.."

// markdown returns every Markdown file of the repository but node_modules.
func markdown(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			b, err := os.ReadFile(path)
			docs[path] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func TestReadmeGoVersionIsGoMod(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil || m == nil {
		t.Fatal(err, m)
	}
	if !bytes.Contains(readme, []byte("Go "+string(m[1])+" ")) {
		t.Errorf("README.md does not name Go %s, the version go.mod requires", m[1])
	}
}

func TestErrorTablesListEveryCode(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "internal/server/openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var openapi struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Code struct{ Enum []string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(doc, &openapi); err != nil {
		t.Fatal(err)
	}
	codes := openapi.Components.Schemas.Error.Properties.Code.Enum
	if !slices.Contains(codes, "validation_failed") {
		t.Fatalf("no error codes in the document: %v", codes)
	}
	for _, file := range []string{"README.md", "docs/api.md", "docs/guide/errors.md"} {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range codes {
			if !bytes.Contains(b, []byte("`"+code+"`")) {
				t.Errorf("%s does not list the error code %s", file, code)
			}
		}
	}
}

// otherTools are flags the docs name of programs other than gatehouse.
var otherTools = []string{"compressed"} // curl

func TestDocsNameOnlyRealFlags(t *testing.T) {
	flags := map[string]bool{}
	var usage bytes.Buffer
	cli.Run(context.Background(), []string{"--help"}, func(string) string { return "" }, nil, &usage, io.Discard)
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z-]+(?: [a-z-]+)?)  `).FindAllStringSubmatch(usage.String(), -1) {
		var help bytes.Buffer
		cli.Run(context.Background(), append(strings.Fields(m[1]), "--help"), func(string) string { return "" }, nil, &help, io.Discard)
		for _, f := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(help.String(), -1) {
			flags[f[1]] = true
		}
	}
	if !flags["expires-in"] || !flags["db"] {
		t.Fatalf("flags read from the help: %v", flags)
	}
	span := regexp.MustCompile("`--([a-z][a-z-]*)[^`]*`")
	for path, text := range markdown(t) {
		for _, m := range span.FindAllStringSubmatch(text, -1) {
			if !flags[m[1]] && !slices.Contains(otherTools, m[1]) {
				t.Errorf("%s names --%s, which no gatehouse command has", path, m[1])
			}
		}
	}
}

func TestDocsCiteFilesThatExist(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	quoted := regexp.MustCompile("`([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+\\.(?:md|go|py|sql|luau|json|yaml|sh))`")
	for path, text := range markdown(t) {
		var cited []string
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
				cited = append(cited, filepath.Join(filepath.Dir(path), m[1]))
			}
		}
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err == nil {
				continue
			}
			cited = append(cited, filepath.Join(root, m[1])) // a path from the repository's root
		}
		for _, c := range cited {
			if _, err := os.Stat(c); err != nil {
				t.Errorf("%s cites %s, which the repository does not have", path, c)
			}
		}
	}
}

// TestDocsQueriesHaveNoFixedDates: an example query for a fixed date
// returns nothing once the demo's 90 days have moved past it.
func TestDocsQueriesHaveNoFixedDates(t *testing.T) {
	fixed := regexp.MustCompile(`(?m)^.*curl .*date(?:From|To)=\d{4}-\d\d-\d\d.*$`)
	for path, text := range markdown(t) {
		for _, m := range fixed.FindAllString(text, -1) {
			t.Errorf("%s queries a fixed date, which goes stale; compute it:\n%s", path, m)
		}
	}
}

// TestDocsQuoteExamplesVerbatim: a code block that starts with
// "-- from FILE" is an excerpt of docs/examples/FILE and must appear
// there as it is, so that the guide and the file cannot drift apart.
func TestDocsQuoteExamplesVerbatim(t *testing.T) {
	excerpt := regexp.MustCompile("(?s)```[a-z]*\n-- from ([A-Za-z0-9_.]+)\n(.*?)```")
	quoted := 0
	for path, text := range markdown(t) {
		for _, m := range excerpt.FindAllStringSubmatch(text, -1) {
			quoted++
			src, err := os.ReadFile(filepath.Join(root, "docs/examples", m[1]))
			if err != nil {
				t.Errorf("%s quotes %s: %v", path, m[1], err)
				continue
			}
			if !strings.Contains(string(src), m[2]) {
				t.Errorf("%s quotes lines that docs/examples/%s does not have:\n%s", path, m[1], m[2])
			}
		}
	}
	if quoted == 0 {
		t.Error("no excerpt found: the pattern no longer matches the guide")
	}
}

// TestRepositoryStandsAlone: a clone in any folder has only what the
// repository holds, so no file may point outside it. .ci/run alone may use
// what the machine it runs on provides.
func TestRepositoryStandsAlone(t *testing.T) {
	// A path out of the clone, or a citation of the contract that lives
	// outside it: CONTRACT in parentheses, with .md, or leading a line (a
	// licence's "ACTION OF CONTRACT" is none of these).
	contract := "CONTRACT"
	outside := regexp.MustCompile(`(?m)\.\./(?:\.\./)*shared/|\(` + contract + `\b|\b` + contract + `\.md\b|^` + contract + `\b`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if loc := outside.FindIndex(b); loc != nil {
			line := bytes.Count(b[:loc[0]], []byte("\n")) + 1
			t.Errorf("%s:%d refers to %s, outside the repository", path, line, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArchitectureNamesRealPaths: every file and directory
// docs/architecture.md names is in the repository. It once cited
// internal/server/policybody.go long after the file had gone.
//
// A name is a word (spaces, backticks and punctuation around it removed)
// that ends in a file extension (.go, .md, .sql, .json, .lua, .luau, .py,
// .html, ...), or ends in "/", or has a "/" and begins with a top-level
// directory of the repository (internal/app). Words that begin with "/"
// (routes such as /api/consumer/v1/events) or hold "{" are not names, nor
// is a "/" between other words (Open/OpenExisting, net/http). A "*" is a
// glob and must match at least one path.
//
// Where a name is looked for:
//   - On a row of the package table (a line of a code block that starts
//     with a package, and the indented lines under it): a name with a "/"
//     from the repository's root or from the row's package; a bare name
//     (policy.go) in the row's package or a directory the row names
//     (internal/sqlite), never the root package unless that is the row's
//     (the "gatehouse (root)" row), so a file that moves out of the root
//     is looked for where the doc now says it lives. The package itself
//     must exist ("gatehouse" is the root).
//   - Anywhere else (prose, the drawing): a name that begins with a
//     top-level directory from the repository's root; any other name at
//     the end of some path of the repository (routes.go,
//     templates/events.html).
//
// A row that cites a file of another package by its bare name lists it in
// citedElsewhere, with the directory it lives in.
func TestArchitectureNamesRealPaths(t *testing.T) {
	// citedElsewhere: row package → bare name → the directory ("" for the
	// root) where the row's name points.
	citedElsewhere := map[string]map[string]string{
		"sdk/luau": {"decide.go": ""}, // the Luau evaluator decides as the root's decide.go
	}
	usedElsewhere := map[string]bool{}
	doc, err := os.ReadFile(filepath.Join(root, "docs/architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string // every file and directory, slash-separated from the root
	top := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		paths = append(paths, rel)
		if d.IsDir() && !strings.Contains(rel, "/") {
			top[rel] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// in reports whether pattern (a path, maybe a glob) matches a path
	// under dir ("" for the root); with anyDepth, the end of a path
	// anywhere.
	in := func(dir, pattern string, anyDepth bool) bool {
		pattern = strings.TrimSuffix(pattern, "/")
		if dir != "" {
			pattern = dir + "/" + pattern
		}
		for _, p := range paths {
			for p != "" {
				if ok, _ := filepath.Match(pattern, p); ok {
					return true
				}
				_, rest, more := strings.Cut(p, "/")
				if !anyDepth || !more {
					break
				}
				p = rest
			}
		}
		return false
	}
	ext := regexp.MustCompile(`\.(?:go|md|sql|json|lua|luau|py|html|css|js|mjs|ts|yaml|yml|sh|toml|txt|png)$`)
	row := regexp.MustCompile(`^([A-Za-z][\w./-]*)(?: \(root\))? {2,}\S`)
	url := regexp.MustCompile(`[a-z]+://\S+`)

	named, code, pkg := 0, false, ""
	var dirs []string // the directories the current row names
	for n, line := range strings.Split(string(doc), "\n") {
		at := fmt.Sprintf("docs/architecture.md:%d", n+1)
		if strings.HasPrefix(line, "```") {
			code, pkg = !code, ""
			continue
		}
		if !code || strings.TrimSpace(line) == "" {
			pkg, dirs = "", nil
		} else if m := row.FindStringSubmatch(line); m != nil {
			pkg, dirs = m[1], nil
			if pkg == "gatehouse" {
				pkg = "."
			} else if !in("", pkg, false) {
				t.Errorf("%s names the package %s, which the repository does not have", at, pkg)
			}
		}
		var words []string
		for _, w := range strings.Fields(url.ReplaceAllString(line, " ")) {
			w = strings.Trim(w, "`()[],.:;'\"")
			slash := strings.Contains(w, "/")
			switch {
			case w == "" || strings.HasPrefix(w, "/") || strings.Contains(w, "{"):
			case ext.MatchString(w) || strings.HasSuffix(w, "/"):
				words = append(words, w)
			case slash && top[strings.SplitN(w, "/", 2)[0]]:
				words, dirs = append(words, w), append(dirs, w)
			}
		}
		for _, w := range words {
			named++
			found := false
			switch {
			case pkg == "":
				found = in("", w, !top[strings.SplitN(w, "/", 2)[0]])
			case strings.Contains(strings.TrimSuffix(w, "/"), "/") || strings.HasSuffix(w, "/"):
				found = in("", w, false) || in(strings.TrimPrefix(pkg, "."), w, false)
			default:
				for _, d := range append([]string{pkg}, dirs...) {
					found = found || in(strings.TrimPrefix(d, "."), w, false)
				}
				if dir, ok := citedElsewhere[pkg][w]; ok && !found {
					found, usedElsewhere[pkg+" "+w] = in(dir, w, false), true
				}
			}
			if !found {
				where := "the repository"
				if pkg != "" {
					where = pkg + " (the package of its row)"
				}
				t.Errorf("%s names %s, which %s does not have", at, w, where)
			}
		}
	}
	if named < 40 {
		t.Errorf("only %d names found in docs/architecture.md: the rule no longer reads it", named)
	}
	for pkg, names := range citedElsewhere {
		for name := range names {
			if !usedElsewhere[pkg+" "+name] {
				t.Errorf("citedElsewhere lists %s on the %s row, which no longer needs it: remove the entry", name, pkg)
			}
		}
	}
}
