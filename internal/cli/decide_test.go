package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/google/go-cmp/cmp"
)

// decisionJSON is decide --json's document, the API's DecisionResult.
type decisionJSON struct {
	Allowed, Reason, Rule string
	PolicyVersion         *int64
	EventID               *string
	AccessPoint, Location struct{ ID, Name string }
	At                    string
}

// TestDecide: decide explains the decision of the policy at given
// instants, inside and outside its schedule (in the schedule's zone,
// across midnight and on exceptions), with the rule's text for people and
// the API's DecisionResult with --json; it records nothing.
func TestDecide(t *testing.T) {
	d := newPolicyDoor(t)

	// Without a policy the access point fails closed.
	var res decisionJSON
	d.json(&res, "decide", "--access-point", d.door.ID, "--platform-user-id", "1")
	if res.Allowed != "denied" || res.Reason != gatehouse.ReasonAccessPointDisabled || res.Rule != "failMode" || res.PolicyVersion != nil {
		t.Errorf("a decision without a policy: %+v", res)
	}
	out, _, err := d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "1", "--at", "2026-03-02T10:00:00Z")
	if err != nil || !strings.Contains(out, "  policy        none\n") ||
		!strings.Contains(out, "  rule          failMode: the access point has no policy, and fails closed until one is set") {
		t.Errorf("decide without a policy, for people: %q, %v", out, err)
	}

	if _, _, err := d.run(nil, "policy", "set", d.door.ID, d.file(berlinPolicy)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, at, player, attributes string
		want                         []string // the lines after the access point's
	}{
		{"a group rank inside office hours (11:00 in Berlin, winter time)", "2026-03-02T10:00:00Z", "5", `{"groups": {"456": 210}}`, []string{
			"granted: ALLOWLIST",
			"  at            2026-03-02T10:00:00.000Z, Mon 2026-03-02 11:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          allow[1]: members of group 456 of rank 200 or more"}},
		{"a rank below the minimum", "2026-03-02T10:00:00Z", "5", `{"groups": {"456": 199}}`, []string{
			"denied: NOT_ON_ALLOWLIST",
			"  at            2026-03-02T10:00:00.000Z, Mon 2026-03-02 11:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          allow: no allow rule matches the player (of 4)"}},
		{"after office hours: 17:30 in Berlin ends the window", "2026-03-02T16:30:00Z", "111", "", []string{
			"denied: OUTSIDE_SCHEDULE",
			"  at            2026-03-02T16:30:00.000Z, Mon 2026-03-02 17:30 Europe/Berlin",
			"  policy        version 1",
			"  rule          schedule: outside every window of the schedule (Europe/Berlin)"}},
		{"summer time: 09:00 in Berlin is 07:00 UTC", "2026-07-01T07:00:00Z", "111", "", []string{
			"granted: ALLOWLIST",
			"  at            2026-07-01T07:00:00.000Z, Wed 2026-07-01 09:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          allow[0]: player 111"}},
		{"Saturday 00:30 is in Friday's night window", "2026-03-06T23:30:00Z", "5", `{"premium": true}`, []string{
			"granted: ALLOWLIST",
			"  at            2026-03-06T23:30:00.000Z, Sat 2026-03-07 00:30 Europe/Berlin",
			"  policy        version 1",
			"  rule          allow[3]: Premium members"}},
		{"denied for good, whatever the schedule", "2026-03-02T10:00:00Z", "666", `{"premium": true}`, []string{
			"denied: BLOCKED",
			"  at            2026-03-02T10:00:00.000Z, Mon 2026-03-02 11:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          deny[0]: platform user 666, for good"}},
		{"a deny that has ended", "2027-01-04T10:00:00Z", "667", `{"gamepasses": ["789"]}`, []string{
			"granted: ALLOWLIST",
			"  at            2027-01-04T10:00:00.000Z, Mon 2027-01-04 11:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          allow[2]: owners of gamepass 789"}},
		{"a closed day", "2026-12-24T10:00:00Z", "111", "", []string{
			"denied: OUTSIDE_SCHEDULE",
			"  at            2026-12-24T10:00:00.000Z, Thu 2026-12-24 11:00 Europe/Berlin",
			"  policy        version 1",
			"  rule          schedule.exceptions[0]: 2026-12-24 closed Europe/Berlin"}},
		{"after a special day's hours", "2026-12-31T14:30:00Z", "111", "", []string{
			"denied: OUTSIDE_SCHEDULE",
			"  at            2026-12-31T14:30:00.000Z, Thu 2026-12-31 15:30 Europe/Berlin",
			"  policy        version 1",
			"  rule          schedule.exceptions[1]: 2026-12-31 only 10:00–14:00 Europe/Berlin"}},
	} {
		// The instants are before the policy was set: tests of its rules.
		args := []string{"decide", "--access-point", d.door.ID, "--platform-user-id", c.player, "--at", c.at, "--current-policy"}
		if c.attributes != "" {
			args = append(args, "--attributes", c.attributes)
		}
		out, _, err := d.run(nil, args...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 5 || lines[1] != "  access point  Front door ("+d.door.ID+") at HQ ("+d.hq.ID+")" {
			t.Errorf("%s: printed\n%s", c.name, out)
			continue
		}
		if diff := cmp.Diff(c.want, append(lines[:1:1], lines[2:]...)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}

	// Where the schedule has special hours, the window that admits is named.
	if _, _, err := d.run(nil, "policy", "set", d.door.ID, d.file(`{"mode": "RULES", "schedule": {"timeZone": "America/Sao_Paulo",
		"windows": [{"days": ["SAT", "SUN"], "from": "22:00", "to": "04:00"}],
		"exceptions": [{"date": "2026-12-31", "windows": [{"from": "20:00", "to": "02:00"}]}]}}`)); err != nil {
		t.Fatal(err)
	}
	d.json(&res, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", "2027-01-01T04:30:00Z", "--current-policy")
	want := decisionJSON{Allowed: "granted", Reason: gatehouse.ReasonSchedule, Rule: "schedule.exceptions[0].windows[0]",
		PolicyVersion: res.PolicyVersion, AccessPoint: res.AccessPoint, Location: res.Location, At: "2027-01-01T04:30:00.000Z"}
	if diff := cmp.Diff(want, res); diff != "" || res.PolicyVersion == nil || *res.PolicyVersion != 2 ||
		res.AccessPoint.ID != d.door.ID || res.AccessPoint.Name != "Front door" || res.Location.ID != d.hq.ID || res.Location.Name != "HQ" {
		t.Errorf("decide --json (-want +got):\n%s\n%+v", diff, res)
	}
	out, _, err = d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", "2027-01-01T04:30:00Z", "--current-policy")
	if err != nil || !strings.Contains(out, "Fri 2027-01-01 01:30 America/Sao_Paulo") ||
		!strings.Contains(out, "  rule          schedule.exceptions[0].windows[0]: 2026-12-31 20:00–02:00 (next day) America/Sao_Paulo (special hours)\n") {
		t.Errorf("decide in special hours: %q, %v", out, err)
	}
	d.json(&res, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", "2027-01-03T01:00:00Z", "--current-policy")
	if res.Reason != gatehouse.ReasonSchedule || res.Rule != "schedule.windows[0]" {
		t.Errorf("decide in a weekly window: %+v", res)
	}
	out, _, _ = d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", "2027-01-03T01:00:00Z", "--current-policy")
	if !strings.Contains(out, "  rule          schedule.windows[0]: SAT, SUN 22:00–04:00 (next day) America/Sao_Paulo\n") {
		t.Errorf("decide in a weekly window, for people:\n%s", out)
	}

	// A decision without --at is now; no decision is ever recorded.
	d.json(&res, "decide", "--access-point", d.door.ID, "--platform-user-id", "5")
	if res.EventID != nil || res.At == "" {
		t.Errorf("decide now: %+v", res)
	}
	if n := countEvents(t, d.gh, d.org.ID); n != 0 {
		t.Errorf("decide recorded %d events, want none", n)
	}
}

// TestDecideRefusesBadInput: every bad flag is named at once, by the
// flag (and the path in --attributes), before anything is decided.
func TestDecideRefusesBadInput(t *testing.T) {
	d := newPolicyDoor(t)
	_, _, err := d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "x1", "--server-job-id", strings.Repeat("j", 200),
		"--attributes", `{"groups": {"456": "a", "x": 3, "7": 300}, "gamepass": ["1"], "badges": [1], "premium": "yes"}`)
	want := "--attributes badges: must be a string; --attributes gamepass: is not a known field; " +
		"--attributes groups: must be an integer; --attributes premium: must be true or false; " +
		"--platform-user-id: must be a platform user id (digits); --server-job-id: "
	if cli.ExitStatus(err) != 1 || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("decide with bad flags: %v\nwant it to start with %s", err, want)
	}
	_, _, err = d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "1",
		"--attributes", `{"groups": {"x": 3, "7": 300}}`)
	want = "--attributes groups: keys must be group ids (positive integers); --attributes groups.7: must be a rank between 0 and 255"
	if cli.ExitStatus(err) != 1 || err == nil || err.Error() != want {
		t.Errorf("decide with bad groups: %v\nwant %s", err, want)
	}
	for _, args := range [][]string{
		{"decide", "--platform-user-id", "1"},
		{"decide", "--access-point", d.door.ID},
		{"decide", "--access-point", "nope", "--platform-user-id", "1"},
		{"decide", "--access-point", d.door.ID, "--platform-user-id", "1", "--at", "yesterday"},
		{"decide", "--access-point", d.door.ID, "--platform-user-id", "1", "--at", "2026-03-02T10:00:00"},
		{"decide", "--access-point", d.door.ID, "--platform-user-id", "1", "extra"},
	} {
		if _, _, err := d.run(nil, args...); cli.ExitStatus(err) != 2 {
			t.Errorf("gatehouse %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	_, _, err = d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "1", "--attributes", `{"groups": `)
	if cli.ExitStatus(err) != 1 || err == nil || !strings.Contains(err.Error(), "--attributes: is not valid JSON") {
		t.Errorf("decide with --attributes that is not JSON: %v", err)
	}
}

// TestDecideRemoteUnlock: an unlock of one server lets its players
// through a LOCKED door, and decide says so for that server only.
func TestDecideRemoteUnlock(t *testing.T) {
	s := newUnlockSetup(t)
	if _, _, err := s.run(strings.NewReader(`{"mode": "LOCKED"}`), "policy", "set", s.door.ID, "-"); err != nil {
		t.Fatal(err)
	}
	live := &gameServer{g: s.gh, org: s.org.ID, job: "job-1", players: []string{"5"}}
	live.sync()
	if c := s.unlock("--scope", "SERVER", "--server-job-id", "job-1", "--duration", "5m"); c.Status != "PENDING" {
		t.Fatalf("the unlock is %s", c.Status)
	}
	out, _, err := s.run(nil, "decide", "--access-point", s.door.ID, "--platform-user-id", "5", "--server-job-id", "job-1")
	if err != nil || !strings.HasPrefix(out, "granted: REMOTE_UNLOCK\n") ||
		!strings.Contains(out, "  rule          remoteUnlock: an active remote unlock covers the player, their server or the universe\n") {
		t.Errorf("decide on the unlocked server: %q, %v", out, err)
	}
	var res decisionJSON
	s.json(&res, "decide", "--access-point", s.door.ID, "--platform-user-id", "5", "--server-job-id", "job-2")
	if res.Allowed != "denied" || res.Reason != gatehouse.ReasonAccessPointDisabled || res.Rule != "mode" {
		t.Errorf("decide on another server: %+v", res)
	}
}
