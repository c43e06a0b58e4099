package service_test

import (
	"strconv"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// TestWakes: a wake closes the channels its waiters hold, and only
// theirs: a universe's wake every server of it, a server's wake that
// server; a zero organization wakes everyone.
func TestWakes(t *testing.T) {
	w := service.NewWakes()
	org, other := uuid.New(), uuid.New()
	aU, aS, _ := w.Wait(org, "1", "a")
	bU, bS, _ := w.Wait(org, "1", "b")
	cU, _, _ := w.Wait(org, "2", "a")
	dU, _, _ := w.Wait(other, "1", "a")
	woken := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	w.Wake(gatehouse.Wake{OrgID: org, UniverseID: "1", JobID: "a"})
	if !woken(aS) || woken(aU) || woken(bS) || woken(bU) {
		t.Errorf("a server's wake: a %v/%v, b %v/%v; want only a's server channel", woken(aU), woken(aS), woken(bU), woken(bS))
	}
	w.Wake(gatehouse.Wake{OrgID: org, UniverseID: "1"})
	if !woken(aU) || !woken(bU) || woken(bS) {
		t.Error("a universe's wake must close the universe channel of each of its servers")
	}
	if woken(cU) || woken(dU) {
		t.Error("another universe or organization was woken")
	}
	if again, _, _ := w.Wait(org, "1", "a"); again == aU {
		t.Error("a wake must leave a fresh channel for the next wait")
	}
	w.Wake(gatehouse.Wake{})
	if !woken(cU) || !woken(dU) || !woken(bS) {
		t.Error("the wake of everyone missed a waiter")
	}
}

// TestWakesGoWithTheirLastWaiter: a channel is kept while a waiter holds
// it, and dropped when the last one leaves, so that syncs of job ids and
// universes never seen again leave nothing behind. A waiter that leaves
// after a wake does not drop the channel of the waiters that came after.
func TestWakesGoWithTheirLastWaiter(t *testing.T) {
	w := service.NewWakes()
	org := uuid.New()
	for i := range 1000 {
		_, _, leave := w.Wait(org, strconv.Itoa(i%7+1), "job-"+strconv.Itoa(i))
		leave()
	}
	if n := w.Waiting(); n != 0 {
		t.Fatalf("%d channels kept after every waiter left, want 0", n)
	}
	aU, _, leaveA := w.Wait(org, "1", "a")
	_, _, leaveB := w.Wait(org, "1", "b")
	leaveA()
	if n := w.Waiting(); n != 2 {
		t.Errorf("%d channels with b waiting, want 2 (its universe's and its own)", n)
	}
	w.Wake(gatehouse.Wake{OrgID: org, UniverseID: "1"})
	cU, _, leaveC := w.Wait(org, "1", "c")
	if cU == aU {
		t.Fatal("a wake must leave a fresh channel for the next wait")
	}
	leaveB() // woken before c came: c's universe channel stays
	if n := w.Waiting(); n != 2 {
		t.Errorf("%d channels with c waiting, want 2", n)
	}
	w.Wake(gatehouse.Wake{OrgID: org, UniverseID: "1"})
	select {
	case <-cU:
	default:
		t.Error("c's universe channel was dropped by a waiter woken before it came")
	}
	leaveC()
	if n := w.Waiting(); n != 0 {
		t.Errorf("%d channels left, want 0", n)
	}
}
