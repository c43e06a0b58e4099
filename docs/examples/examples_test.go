// Package examples holds the runnable examples of the guide; its tests run
// them (poll.py, the guide's Go snippet) against a live server, and check
// the documentation against the repository (docs_test.go).
package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestPollPy runs poll.py twice against a live server: the first poll
// prints every matching event, the second only those that arrived since,
// including late ones that occurred before the newest event of the first.
func TestPollPy(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Missing(t, "python3 is not installed")
	}
	a := apitest.Start(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1000, Per: time.Second}, Burst: 1000})
	key := a.NewKey(t, gatehouse.ScopeEventsRead)
	state := filepath.Join(t.TempDir(), "state.json")
	now := a.Clock.Now()
	ingest := func(denied bool, at ...time.Time) (ids []string) {
		var events []gatehouse.NewEvent
		for i, t := range at {
			ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: ptr(gatehouse.Granted),
				OccurredAt: t, AccessPointID: a.AccessPointID, PlatformUserID: ptr(fmt.Sprint(100 + i))}
			if denied {
				ev.Type, ev.Allowed, ev.Reason = gatehouse.EventAccessDenied, ptr(gatehouse.Denied), ptr("OUTSIDE_SCHEDULE")
			}
			events = append(events, ev)
			ids = append(ids, ev.ID.String())
		}
		if _, err := a.Store.IngestEvents(context.Background(), a.OrgID, events); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	poll := func() map[string]bool {
		t.Helper()
		got := map[string]bool{}
		for _, line := range runPollPy(t, python, key, "--url", a.URL, "--state", state, "--once",
			"--overlap", "600", "--filter", "allowed=denied") {
			var ev struct{ ID, Allowed string }
			if err := json.Unmarshal(line, &ev); err != nil || ev.Allowed != "denied" {
				t.Fatalf("poll.py printed %s (%v)", line, err)
			}
			if got[ev.ID] {
				t.Fatalf("poll.py printed %s twice", ev.ID)
			}
			got[ev.ID] = true
		}
		return got
	}
	same := func(got map[string]bool, want []string) bool {
		if len(got) != len(want) {
			return false
		}
		for _, id := range want {
			if !got[id] {
				return false
			}
		}
		return true
	}

	// 600 denied events over the last 50 minutes, two per instant, so the
	// walk crosses pages; granted ones around them.
	var times []time.Time
	for i := range 600 {
		times = append(times, now.Add(-time.Duration(i/2)*10*time.Second))
	}
	first := ingest(true, times...)
	ingest(false, times[:100]...)
	if got := poll(); !same(got, first) {
		t.Fatalf("first poll: %d events, want the %d denied", len(got), len(first))
	}
	// New events, and two that arrive late: they occurred three minutes
	// before the newest event of the first poll.
	later := ingest(true, now.Add(time.Second), now.Add(2*time.Second), now.Add(-3*time.Minute), now.Add(-3*time.Minute))
	if got := poll(); !same(got, later) {
		t.Fatalf("second poll: %v, want exactly %v", got, later)
	}
	if got := poll(); len(got) != 0 {
		t.Fatalf("third poll, nothing new: %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

// TestPollPyRepeatedFilters: a filter given twice keeps both values, as
// the API's repeated type parameter does, instead of the last alone; and
// --url takes the API's base as well as the server's address.
func TestPollPyRepeatedFilters(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		testenv.Missing(t, "python3 is not installed")
	}
	a := apitest.Start(t, ratelimit.Limit{Rate: gatehouse.Rate{Count: 1000, Per: time.Second}, Burst: 1000})
	key := a.NewKey(t, gatehouse.ScopeEventsRead)
	now := a.Clock.Now()
	var events []gatehouse.NewEvent
	want := map[string]bool{}
	for i, typ := range []gatehouse.EventType{gatehouse.EventAccessGranted, gatehouse.EventAccessDenied, gatehouse.EventRemoteUnlock} {
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: typ, OccurredAt: now.Add(-time.Duration(i) * time.Minute),
			AccessPointID: a.AccessPointID}
		switch typ {
		case gatehouse.EventAccessGranted:
			ev.Allowed = ptr(gatehouse.Granted)
		case gatehouse.EventAccessDenied:
			ev.Allowed = ptr(gatehouse.Denied)
		case gatehouse.EventRemoteUnlock:
			ev.Scope = ptr(gatehouse.ScopeUniverse)
		}
		if typ != gatehouse.EventAccessDenied {
			want[ev.ID.String()] = true
		}
		events = append(events, ev)
	}
	if _, err := a.Store.IngestEvents(context.Background(), a.OrgID, events); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	// The API's base as --url, as the guide gives it ($API).
	for _, line := range runPollPy(t, python, key, "--url", a.URL+"/api/consumer/v1", "--state", filepath.Join(t.TempDir(), "state.json"), "--once",
		"--filter", "type=ACCESS_GRANTED", "--filter", "type=REMOTE_UNLOCK") {
		var ev struct{ ID string }
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("poll.py printed %s (%v)", line, err)
		}
		got[ev.ID] = true
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("poll.py with two type filters printed %v, want the granted and the unlock %v", got, want)
	}
}

// runPollPy runs poll.py with args and key, and returns the lines it
// printed; a failed run fails the test with what it wrote to stderr.
func runPollPy(t *testing.T, python, key string, args ...string) [][]byte {
	t.Helper()
	cmd := exec.Command(python, append([]string{"poll.py"}, args...)...)
	cmd.Env = append(os.Environ(), "GATEHOUSE_KEY="+key)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("poll.py: %v\n%s", err, stderr.String())
	}
	var lines [][]byte
	for sc := bufio.NewScanner(&stdout); sc.Scan(); {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	return lines
}
