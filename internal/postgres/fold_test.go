package postgres

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
)

// TestSearchFoldMigration checks that migration 0003 maps exactly the
// lower-case characters whose gatehouse.FoldCase differs from themselves:
// rows stored before it hold lower case, rows after it FoldCase.
func TestSearchFoldMigration(t *testing.T) {
	var from, to []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.ToLower(r) != r || !utf8.ValidRune(r) {
			continue
		}
		if f := []rune(gatehouse.FoldCase(string(r))); f[0] != r {
			from, to = append(from, r), append(to, f[0])
		}
	}
	body, err := migrations.ReadFile("migrations/0003_search_fold.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := "translate(search, '" + string(from) + "', '" + string(to) + "')"
	if n := strings.Count(string(body), want); n != 2 {
		t.Errorf("the migration should translate with %s (twice), found it %d times", want, n)
	}
}
