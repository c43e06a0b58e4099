package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// testFailuresNameTheirMethod: a store failure names the store method and
// the organization (and record) it acted on, so the one log line of a 5xx
// (internal/server's writeError logs err.Error()) says where it failed;
// errors.Is still sees the cause. The client's errors keep their text,
// which answers quote.
func testFailuresNameTheirMethod(t *testing.T, f *fixture) {
	a := f.org("Acme")
	hq := f.location(a.ID, "HQ")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	_, err := f.s.ListEvents(cancelled, a.ID, gatehouse.EventFilter{Limit: 10})
	if want := "Store.ListEvents(" + a.ID.String() + "): "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ListEvents on a cancelled context: %v; want the text to start %q", err, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ListEvents on a cancelled context: %v; want errors.Is context.Canceled", err)
	}
	_, err = f.s.FindLocation(cancelled, a.ID, hq.ID)
	if want := "Store.FindLocation(" + a.ID.String() + ", " + hq.ID.String() + "): "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("FindLocation on a cancelled context: %v; want the text to start %q", err, want)
	}

	_, err = f.s.FindLocation(ctx, a.ID, uuid.New())
	if !errors.Is(err, gatehouse.ErrNotFound) || strings.Contains(err.Error(), "Store.") {
		t.Errorf("FindLocation of an unknown location: %v; want ErrNotFound, unlabelled", err)
	}
}
