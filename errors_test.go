package gatehouse_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// A store's label names the method and the ids in the log, and is left
// out of the text a client reads, however deep it sits.
func TestErrorTextLeavesStoreLabelsOut(t *testing.T) {
	org := uuid.MustParse("01a22163-2733-729e-b1de-97f35ccf1243")
	cause := fmt.Errorf("%w: sql: database is closed", gatehouse.ErrUnavailable)
	inner := &gatehouse.StoreError{Op: "Store.FindLocation", IDs: []uuid.UUID{org, org}, Err: cause}
	outer := &gatehouse.StoreError{Op: "Store.RenameLocation", IDs: []uuid.UUID{org}, Err: inner}
	err := fmt.Errorf("reading the feed: %w", outer)

	want := "reading the feed: Store.RenameLocation(" + org.String() + "): Store.FindLocation(" + org.String() + ", " + org.String() + "): service unavailable: sql: database is closed"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if got := gatehouse.ErrorText(err); got != "reading the feed: service unavailable: sql: database is closed" {
		t.Errorf("ErrorText = %q", got)
	}
	if !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Error("the label hides the cause from errors.Is")
	}
	if got := gatehouse.ErrorText(cause); got != cause.Error() {
		t.Errorf("ErrorText of an unlabelled error = %q", got)
	}
}
