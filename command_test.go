package gatehouse_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

func str(s string) *string { return &s }

// TestCommandRequestCheck: defaults are filled, and every bad field is
// named at once.
func TestCommandRequestCheck(t *testing.T) {
	ap := uuid.New()
	r, err := gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopeUniverse}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != gatehouse.CommandUnlock || r.DurationSeconds != 10 || r.TTLSeconds != 60 {
		t.Fatalf("defaults: %+v", r)
	}
	same, _ := gatehouse.CommandRequest{Type: "UNLOCK", AccessPointID: ap, Scope: gatehouse.ScopeUniverse, DurationSeconds: 10, TTLSeconds: 60, Note: str("")}.Check()
	if same.Digest() != r.Digest() {
		t.Error("a request that spells the defaults out must have the same digest")
	}
	other, _ := gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopeUniverse, DurationSeconds: 11}.Check()
	if other.Digest() == r.Digest() {
		t.Error("another duration must change the digest")
	}

	_, err = gatehouse.CommandRequest{Type: "LOCK", Scope: "PLANET", DurationSeconds: 3601, TTLSeconds: 4,
		Note: str(strings.Repeat("n", 201))}.Check()
	issues := issuesOf(t, err)
	for _, f := range []string{"type", "accessPointId", "scope", "durationSeconds", "ttlSeconds", "note"} {
		if _, ok := issues[f]; !ok {
			t.Errorf("no issue for %s in %v", f, issues)
		}
	}
	for _, tc := range []struct {
		r     gatehouse.CommandRequest
		field string
	}{
		{gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopeServer}, "serverJobId"},
		{gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopePlayer}, "platformUserId"},
		{gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopePlayer, PlatformUserID: str("12a")}, "platformUserId"},
		{gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopeUniverse, ServerJobID: str("job")}, "serverJobId"},
		{gatehouse.CommandRequest{AccessPointID: ap, Scope: gatehouse.ScopeServer, ServerJobID: str("a\u202eb")}, "serverJobId"},
	} {
		if _, ok := issuesOf(t, func() error { _, err := tc.r.Check(); return err }())[tc.field]; !ok {
			t.Errorf("%+v: want an issue for %s", tc.r, tc.field)
		}
	}
}

func issuesOf(t *testing.T, err error) map[string][]string {
	t.Helper()
	ve, ok := err.(*gatehouse.ValidationError)
	if !ok {
		t.Fatalf("want a *ValidationError, got %v", err)
	}
	return ve.Issues
}

// TestSettle is the one rule of status: a command moves only forward,
// SERVER and PLAYER on their server's answer, UNIVERSE when every server
// live at issue answered.
func TestSettle(t *testing.T) {
	executed := gatehouse.Ack{Result: gatehouse.AckExecuted}
	failed := gatehouse.Ack{Result: gatehouse.AckFailed, Detail: str("door is broken")}
	cmd := func(scope gatehouse.CommandScope, status gatehouse.CommandStatus, t gatehouse.CommandTargets) gatehouse.Command {
		return gatehouse.Command{Scope: scope, Status: status, Targets: t}
	}
	for _, tc := range []struct {
		name   string
		c      gatehouse.Command
		ack    gatehouse.Ack
		target bool
		want   gatehouse.CommandStatus
		reason string
	}{
		{"server executed", cmd(gatehouse.ScopeServer, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 1, Delivered: 1, Executed: 1}), executed, true, gatehouse.CommandExecuted, ""},
		{"server failed keeps its message", cmd(gatehouse.ScopeServer, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 1, Delivered: 1, Failed: 1}), failed, true, gatehouse.CommandFailed, "door is broken"},
		{"universe waits for every target", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 3, Delivered: 3, Executed: 2}), executed, true, gatehouse.CommandDelivered, ""},
		{"universe all executed", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 3, Delivered: 3, Executed: 3}), executed, true, gatehouse.CommandExecuted, ""},
		{"universe one failed", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 3, Delivered: 3, Executed: 2, Failed: 1}), executed, true, gatehouse.CommandFailed, "1 of 3 servers failed"},
		{"a joined server does not settle a universe with targets", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 2, Delivered: 2, Joined: 1}), executed, false, gatehouse.CommandDelivered, ""},
		{"no target: the first joined server settles", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Joined: 1}), executed, false, gatehouse.CommandExecuted, ""},
		{"no target, joined server failed", cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Joined: 1}), failed, false, gatehouse.CommandFailed, "door is broken"},
		{"settled never moves", cmd(gatehouse.ScopeServer, gatehouse.CommandCancelled, gatehouse.CommandTargets{Live: 1, Delivered: 1, Executed: 1}), executed, true, gatehouse.CommandCancelled, ""},
	} {
		got, reason := gatehouse.Settle(tc.c, tc.ack, tc.target)
		if got != tc.want || deref(reason) != tc.reason {
			t.Errorf("%s: got %s %q, want %s %q", tc.name, got, deref(reason), tc.want, tc.reason)
		}
	}
	if st, _ := gatehouse.Expire(cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 3, Executed: 2})); st != gatehouse.CommandExpired {
		t.Errorf("expiry with no failure: %s", st)
	}
	if st, r := gatehouse.Expire(cmd(gatehouse.ScopeUniverse, gatehouse.CommandDelivered, gatehouse.CommandTargets{Live: 3, Executed: 1, Failed: 1})); st != gatehouse.CommandFailed || deref(r) != "1 of 3 servers failed" {
		t.Errorf("expiry after a failure: %s %q", st, deref(r))
	}
	for _, st := range gatehouse.CommandStatuses {
		if st.Settled() == slices.Contains([]gatehouse.CommandStatus{gatehouse.CommandPending, gatehouse.CommandDelivered}, st) {
			t.Errorf("%s: Settled() = %v", st, st.Settled())
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestRemaining: a server that joins a running unlock keeps it open for
// what remains, rounded up, never less than a second.
func TestRemaining(t *testing.T) {
	start := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	c := gatehouse.Command{DurationSeconds: 30}
	if got := c.Remaining(start); got != 30 {
		t.Errorf("not started: %d", got)
	}
	st := gatehouse.Time(start)
	c.StartedAt = &st
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 30}, {10 * time.Second, 20}, {10*time.Second + time.Millisecond, 20}, {29*time.Second + 900*time.Millisecond, 1}, {40 * time.Second, 1}} {
		if got := c.Remaining(start.Add(tc.at)); got != tc.want {
			t.Errorf("at +%s: %d, want %d", tc.at, got, tc.want)
		}
	}
}

// TestIssuedCommandWakes: an unlock wakes its target servers, or the
// whole universe for a UNIVERSE unlock (servers that start during it
// receive it); a command failed at issue wakes nobody.
func TestIssuedCommandWakes(t *testing.T) {
	org := uuid.New()
	cmd := func(scope gatehouse.CommandScope, jobs ...string) gatehouse.IssuedCommand {
		return gatehouse.IssuedCommand{Command: gatehouse.Command{OrgID: org, UniverseID: "7", Scope: scope}, TargetJobIDs: jobs}
	}
	for _, tc := range []struct {
		c    gatehouse.IssuedCommand
		want []gatehouse.Wake
	}{
		{cmd(gatehouse.ScopeUniverse, "a", "b"), []gatehouse.Wake{{OrgID: org, UniverseID: "7"}}},
		{cmd(gatehouse.ScopeUniverse), []gatehouse.Wake{{OrgID: org, UniverseID: "7"}}},
		{cmd(gatehouse.ScopeServer, "a"), []gatehouse.Wake{{OrgID: org, UniverseID: "7", JobID: "a"}}},
		{cmd(gatehouse.ScopePlayer, "b"), []gatehouse.Wake{{OrgID: org, UniverseID: "7", JobID: "b"}}},
		{cmd(gatehouse.ScopeServer), []gatehouse.Wake{}},
	} {
		if got := tc.c.Wakes(); !slices.Equal(got, tc.want) {
			t.Errorf("%s to %v: wakes %v, want %v", tc.c.Scope, tc.c.TargetJobIDs, got, tc.want)
		}
	}
}

// TestSyncRequestCheck: a sync's body is bounded and every bad field
// named.
func TestSyncRequestCheck(t *testing.T) {
	wait := 31
	r := gatehouse.SyncRequest{ServerJobID: "job-1", UniverseID: "0123", Players: []string{"1", "x"},
		Acks:   []gatehouse.Ack{{Result: "DONE"}},
		Cursor: str("-1"), WaitSeconds: &wait}
	_, _, _, err := r.Check()
	issues := issuesOf(t, err)
	for _, f := range []string{"universeId", "players[1]", "acks[0].commandId", "acks[0].result", "cursor", "waitSeconds"} {
		if _, ok := issues[f]; !ok {
			t.Errorf("no issue for %s in %v", f, issues)
		}
	}
	ok := gatehouse.SyncRequest{ServerJobID: "job-1", UniverseID: "123", Cursor: str("7")}
	_, cursor, d, err := ok.Check()
	if err != nil || cursor != 7 || d != gatehouse.DefaultSyncWait*time.Second {
		t.Errorf("got %d %s %v", cursor, d, err)
	}
}
