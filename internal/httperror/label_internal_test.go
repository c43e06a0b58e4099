package httperror

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// TestStoresLabelWhatTheTableAnswersAsTheirFault reads the table row by
// row, so an error added to it is classified for the stores' labels too:
// [sqlstore.Label] leaves an error the request made (a 4xx) as it is,
// since an answer, a form or the command line may quote its text, and
// labels what an operator reads in the log (a 5xx, and a cancelled
// request's 499, which is not logged). The test lives here, not in
// internal/sqlstore, because the table is this package's own; sqlstore
// does not import httperror, so there is no cycle.
func TestStoresLabelWhatTheTableAnswersAsTheirFault(t *testing.T) {
	// labelledAnyway are the 4xx the stores label all the same, and why.
	labelledAnyway := map[error]string{
		gatehouse.ErrBusy: "a 429 of fixed text: the organization's own load, which wraps ErrUnavailable and is read in the log like an outage",
	}
	org := uuid.MustParse("0190c1e2-0000-7000-8000-000000000001")
	labeled := func(fail error) (err error) {
		defer sqlstore.Label(&err, "Store.FindLocation", org)
		return fail
	}
	used := map[error]bool{}
	for _, row := range table {
		for _, e := range []error{row.err, fmt.Errorf("location %s: %w", org, row.err)} {
			_, anyway := labelledAnyway[row.err]
			used[row.err] = used[row.err] || anyway
			want := row.status >= http.StatusInternalServerError || row.status == StatusClientClosed || anyway
			if got := labeled(e) != e; got != want {
				t.Errorf("%v (answered %d %s): labelled = %v; want %v", e, row.status, row.code, got, want)
			}
		}
	}
	for e := range labelledAnyway {
		if !used[e] {
			t.Errorf("labelledAnyway lists %v, which the table no longer has: remove it", e)
		}
	}
}
