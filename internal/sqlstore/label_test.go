package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/httperror"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

var (
	labelOrg = uuid.MustParse("0190c1e2-0000-7000-8000-000000000001")
	labelID  = uuid.MustParse("0190c1e2-0000-7000-8000-0000000000ff")
)

func labeled(fail error) (err error) {
	defer sqlstore.Label(&err, "Store.FindLocation", labelOrg, labelID)
	return fail
}

func TestLabelNamesTheMethodAndItsIDs(t *testing.T) {
	driver := errors.New("sql: database is closed")
	err := labeled(fmt.Errorf("%w: %w", gatehouse.ErrUnavailable, driver))
	want := "Store.FindLocation(" + labelOrg.String() + ", " + labelID.String() + "): service unavailable: sql: database is closed"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v; want %s", err, want)
	}
	if !errors.Is(err, gatehouse.ErrUnavailable) || !errors.Is(err, driver) {
		t.Errorf("errors.Is does not see through the label: %v", err)
	}
	if err := labeled(nil); err != nil {
		t.Errorf("labeled(nil) = %v; want nil", err)
	}
	var noIDs error = context.Canceled
	sqlstore.Label(&noIDs, "Store.SweepCommands")
	if got := noIDs.Error(); got != "Store.SweepCommands(): context canceled" {
		t.Errorf("without ids: %q", got)
	}
}

// The success path formats nothing: the deferred call allocates nothing.
func TestLabelDoesNotAllocateOnSuccess(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = labeled(nil) }); n != 0 {
		t.Errorf("a labelled call that succeeds allocates %v times; want 0", n)
	}
}

// The client's errors keep their text: an answer, a form or the command
// line may quote it. The label goes on what an operator reads in the log
// instead: the errors answered 5xx (and a cancelled request, 499, which is
// not logged). The lists below are written out by hand, with the answers
// httperror.For gives them; the table of internal/httperror is read row
// by row in its own package (label_internal_test.go), so a new domain
// error added there is classified there.
func TestLabelLeavesTheClientsErrors(t *testing.T) {
	var (
		ve gatehouse.ValidationError
		ce = &gatehouse.ConflictError{Field: "name", Message: "is taken"}
		sc = &gatehouse.ScopeError{Scope: gatehouse.ScopeEventsRead}
	)
	ve.Add("name", "is required")
	for _, e := range []error{
		gatehouse.ErrInvalid, gatehouse.ErrNotFound, gatehouse.ErrUnknownUniverse, gatehouse.ErrConflict,
		gatehouse.ErrTooManyServers, gatehouse.ErrForbidden, gatehouse.ErrTooMany, gatehouse.ErrSignInLimited,
		gatehouse.ErrUniverseFull, gatehouse.ErrUniverseTooLarge, &ve, ce, sc,
		fmt.Errorf("location %s: %w", labelID, gatehouse.ErrNotFound),
	} {
		if got := labeled(e); got != e {
			t.Errorf("%v became %v; want it unlabelled", e, got)
		}
		if a := httperror.For(e); a.Status >= 500 {
			t.Errorf("%v is answered %d, yet left unlabelled", e, a.Status)
		}
	}
	// The errors the doors answer themselves (a sign-in form, the choice
	// of an organization, a cursor or key that does not parse) keep their
	// text too.
	for _, e := range []error{
		gatehouse.ErrBadCredentials, gatehouse.ErrChooseOrganization, gatehouse.ErrCursorInvalid,
		gatehouse.ErrCursorMismatch, gatehouse.ErrMalformedKey,
	} {
		if got := labeled(e); got != e {
			t.Errorf("%v became %v; want it unlabelled", e, got)
		}
	}
	for _, e := range []error{
		gatehouse.ErrUnavailable, gatehouse.ErrBusy, gatehouse.ErrUnreadable, context.DeadlineExceeded,
		context.Canceled, errors.New("pq: syntax error"),
	} {
		if got := labeled(e); got == e {
			t.Errorf("%v left unlabelled", e)
		}
		// ErrBusy is a 429 of fixed text; a cancelled request a 499 nobody reads.
		if a := httperror.For(e); a.Status < 500 && a.Status != http.StatusTooManyRequests && a.Status != httperror.StatusClientClosed {
			t.Errorf("%v is answered %d, yet labelled", e, a.Status)
		}
	}
}
