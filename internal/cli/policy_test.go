package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// berlinPolicy is office hours in Berlin, a weekend night that crosses
// midnight, a closed Christmas Eve and short New Year's Eve hours, four
// kinds of allow rule and two denies.
const berlinPolicy = `{
  "mode": "RULES",
  "schedule": {
    "timeZone": "Europe/Berlin",
    "windows": [
      {"days": ["MON", "TUE", "WED", "THU", "FRI"], "from": "09:00", "to": "17:30"},
      {"days": ["FRI", "SAT"], "from": "22:00", "to": "04:00"}
    ],
    "exceptions": [
      {"date": "2026-12-24", "closed": true},
      {"date": "2026-12-31", "windows": [{"from": "10:00", "to": "14:00"}]}
    ]
  },
  "allow": [
    {"platformUserId": "111"},
    {"groupId": "456", "minRank": 200},
    {"gamepassId": "789"},
    {"premium": true}
  ],
  "deny": [
    {"platformUserId": "666"},
    {"platformUserId": "667", "until": "2027-01-01T00:00:00Z"}
  ]
}`

// policyDoor is an organization with a door in HQ, with no policy yet.
type policyDoor struct {
	*gh
	org, hq, door record
}

func newPolicyDoor(t *testing.T) *policyDoor {
	t.Helper()
	d := &policyDoor{gh: newBackendGH(t)}
	d.json(&d.org, "org", "create", "--name", "Acme")
	d.json(&d.hq, "location", "create", "--org", d.org.ID, "--name", "HQ")
	d.json(&d.door, "access-point", "create", "--location", d.hq.ID, "--name", "Front door")
	return d
}

// file writes content to a file of the test and returns its path.
func (d *policyDoor) file(content string) string {
	d.t.Helper()
	path := filepath.Join(d.t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		d.t.Fatal(err)
	}
	return path
}

// TestPolicySetAndShow: a policy set from a file or stdin is shown as it
// was written (with its version and time), for people and as the API's
// JSON; setting the same policy again is "unchanged"; an access point
// without a policy exits 3.
func TestPolicySetAndShow(t *testing.T) {
	d := newPolicyDoor(t)
	out, _, err := d.run(nil, "policy", "show", d.door.ID)
	if cli.ExitStatus(err) != 3 || out != "" || !strings.Contains(err.Error(), "has no policy yet") {
		t.Fatalf("policy show without a policy: %q, %v (exit %d), want exit 3", out, err, cli.ExitStatus(err))
	}

	start := time.Now().Add(-time.Second)
	out, _, err = d.run(nil, "policy", "set", d.door.ID, d.file(berlinPolicy))
	if err != nil || out != "stored policy version 1 of access point "+d.door.ID+"\n" {
		t.Fatalf("policy set: %q, %v", out, err)
	}
	var shown gatehouse.Policy
	d.json(&shown, "policy", "show", d.door.ID)
	var written gatehouse.Policy
	if err := json.Unmarshal([]byte(berlinPolicy), &written); err != nil {
		t.Fatal(err)
	}
	want, _ := written.Check()
	if shown.Version != 1 || shown.UpdatedAt == nil || time.Time(*shown.UpdatedAt).Before(start) {
		t.Errorf("policy show --json: version %d, updatedAt %v", shown.Version, shown.UpdatedAt)
	}
	shown.Version, shown.UpdatedAt = 0, nil
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("policy show --json differs from what was set (-set +shown):\n%s", diff)
	}

	out, _, err = d.run(nil, "policy", "show", d.door.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"policy version 1 of access point " + d.door.ID + ", set ",
		"mode       RULES",
		"fail mode  CLOSED",
		"schedule   Europe/Berlin",
		"  schedule.windows[0]      MON–FRI 09:00–17:30\n",
		"  schedule.windows[1]      FRI, SAT 22:00–04:00 (next day)\n",
		"  schedule.exceptions[0]   2026-12-24 closed\n",
		"  schedule.exceptions[1]   2026-12-31 only 10:00–14:00\n",
		"  allow[0]                 player 111\n",
		"  allow[1]                 members of group 456 of rank 200 or more\n",
		"  allow[2]                 owners of gamepass 789\n",
		"  allow[3]                 Premium members\n",
		"  deny[0]                  platform user 666, for good\n",
		"  deny[1]                  platform user 667 until 2027-01-01T00:00:00.000Z\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("policy show lacks %q:\n%s", line, out)
		}
	}

	// The same policy again, from stdin and spelled otherwise (compact,
	// with the version and time show --json prints), makes no version.
	printed, _, err := d.run(nil, "policy", "show", d.door.ID, "--json")
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = d.run(strings.NewReader(printed), "policy", "set", d.door.ID, "-")
	if err != nil || !strings.HasPrefix(out, "unchanged: ") || !strings.Contains(out, "version 1") {
		t.Errorf("policy set of the policy it has: %q, %v", out, err)
	}
	var rec struct {
		AccessPointID string
		Changed       bool
		Policy        gatehouse.Policy
	}
	d.json(&rec, "policy", "set", d.door.ID, d.file(berlinPolicy))
	if rec.Changed || rec.Policy.Version != 1 || rec.AccessPointID != d.door.ID {
		t.Errorf("policy set --json of the same policy: %+v", rec)
	}
	d.json(&rec, "policy", "set", d.door.ID, d.file(`{"mode": "OPEN", "failMode": "OPEN"}`))
	if !rec.Changed || rec.Policy.Version != 2 || rec.Policy.Mode != gatehouse.ModeOpen || rec.Policy.FailMode != gatehouse.FailOpen {
		t.Errorf("policy set --json of a new policy: %+v", rec)
	}
	out, _, err = d.run(nil, "policy", "show", d.door.ID)
	if err != nil || !strings.Contains(out, "mode       OPEN (everyone not denied passes") ||
		!strings.Contains(out, "schedule   none: always in schedule") || !strings.Contains(out, "allow      none") {
		t.Errorf("policy show of an OPEN policy: %q, %v", out, err)
	}
}

// TestPolicySetRefusesEveryProblem: a policy with unknown fields, values
// of the wrong type and values the check refuses prints every problem on
// stderr, one a line by field path in document order, exits 1, and
// stores nothing; a file that is not JSON says where.
func TestPolicySetRefusesEveryProblem(t *testing.T) {
	d := newPolicyDoor(t)
	bad := `{
  "mode": "SOMETIMES",
  "schedule": {"timezone": "Europe/Berlin", "timeZone": "Mars/Olympus",
    "windows": [{"days": ["MON", "MON", "XYZ"], "from": "9:00", "to": "25:00"},
                {"days": ["FRI"], "from": "22:00", "to": "22:00"},
                {"days": ["SUN"], "from": "10:00", "to": "11:00"}, {"days": ["SUN"], "from": "12:00", "to": "13:00"},
                {"days": ["SUN"], "from": "14:00", "to": "15:00"}, {"days": ["SUN"], "from": "16:00", "to": "17:00"},
                {"days": ["SUN"], "from": "18:00", "to": "19:00"}, {"days": ["SUN"], "from": "20:00", "to": "21:00"},
                {"days": ["MON"], "from": "01:00", "to": "02:00"}, {"days": ["MON"], "from": "03:00", "to": "04:00"},
                {"days": ["TUE"], "from": "10:00", "to": "11:00", "form": "10:00"}],
    "exceptions": [{"date": "2026-13-24", "closed": true, "windows": [{"from": "10:00", "to": "11:00"}]}]},
  "allow": [{"platformUserId": "111", "groupId": "3"}, {"groupId": "456", "minRank": 300},
            {"gamepassId": 789}, {"groupId": "5", "minrank": 3}, {"badgeId": "9", "badgeId": "10"}],
  "deny": [{"platformUserId": "666", "until": "tomorrow"}, {"platformUserId": "666"}],
  "failMode": "AJAR"
}`
	out, stderr, err := d.run(nil, "policy", "set", d.door.ID, d.file(bad))
	if cli.ExitStatus(err) != 1 || out != "" || !errors.Is(err, gatehouse.ErrInvalid) || err.Error() != "the policy has 19 problems (above); nothing was stored" {
		t.Errorf("policy set of a bad policy: %q, %v (exit %d)", out, err, cli.ExitStatus(err))
	}
	want := strings.Join([]string{
		"allow[0]: must give only one of platformUserId, groupId, gamepassId, badgeId, premium",
		"allow[1].minRank: must be between 0 and 255",
		"allow[2].gamepassId: must be a string",
		"allow[3].minrank: is not a known field",
		"allow[4].badgeId: is given more than once",
		"deny[0].until: must be an RFC 3339 instant with an offset, e.g. 2026-12-01T00:00:00Z, from year 0000 to 9999 in UTC",
		"deny[1].platformUserId: repeats deny[0]",
		"failMode: must be CLOSED or OPEN",
		"mode: must be one of RULES, OPEN, LOCKED",
		"schedule.exceptions[0].date: must be a date YYYY-MM-DD",
		"schedule.exceptions[0].windows: must be empty when closed is true",
		"schedule.timeZone: is not a known IANA time zone",
		"schedule.timezone: is not a known field",
		"schedule.windows[0].days[1]: repeats MON",
		"schedule.windows[0].days[2]: must be one of MON, TUE, WED, THU, FRI, SAT, SUN",
		"schedule.windows[0].from: must be a time HH:MM from 00:00 to 23:59",
		"schedule.windows[0].to: must be a time HH:MM from 00:00 to 24:00",
		"schedule.windows[1].to: must differ from from",
		"schedule.windows[10].form: is not a known field",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("the problems printed (-want +got):\n%s", diff)
	}
	if _, _, err := d.run(nil, "policy", "show", d.door.ID); cli.ExitStatus(err) != 3 {
		t.Errorf("a refused policy was stored: policy show says %v", err)
	}

	for _, c := range []struct{ input, want string }{
		{"", "standard input: is empty: give one JSON object\n"},
		{`{"mode": "OPEN"`, "standard input: is not valid JSON: it ends before its last value does\n"},
		{"{\n  \"mode\": \"OPEN\",\n  \"allow\": [}\n}", "standard input: is not valid JSON at line 3, column 13: invalid character '}' looking for beginning of value\n"},
		{`{"mode": "OPEN"} {}`, "standard input: must be a single JSON value, with nothing after it\n"},
		{`["mode", "OPEN"]`, "standard input: must be a single JSON object\n"},
		{`{"mode": "OPEN", "schedule": "always"}`, "schedule: must be a single JSON object\n"},
	} {
		_, stderr, err := d.run(strings.NewReader(c.input), "policy", "set", d.door.ID, "-")
		if cli.ExitStatus(err) != 1 || stderr != c.want {
			t.Errorf("policy set of %q: stderr %q, %v; want %q", c.input, stderr, err, c.want)
		}
	}

	for _, args := range [][]string{
		{"policy", "set", d.door.ID},
		{"policy", "set", "nope", "-"},
		{"policy", "set", d.door.ID, "-", "extra"},
		{"policy", "set", d.door.ID, "-", "--if-version", "-1"},
		{"policy", "set", d.door.ID, "-", "--if-version", "two"},
		{"policy", "show"},
		{"policy", "show", "nope"},
	} {
		if _, _, err := d.run(strings.NewReader(`{"mode":"OPEN"}`), args...); cli.ExitStatus(err) != 2 {
			t.Errorf("gatehouse %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	if _, _, err := d.run(nil, "policy", "set", d.door.ID, filepath.Join(t.TempDir(), "missing.json")); cli.ExitStatus(err) != 1 {
		t.Errorf("policy set of a missing file: %v", err)
	}
}

// TestPolicySetIfVersion: --if-version 0 sets a first policy only; a
// stale version is a conflict that names the version there is and changes
// nothing.
func TestPolicySetIfVersion(t *testing.T) {
	d := newPolicyDoor(t)
	locked, open := d.file(`{"mode": "LOCKED"}`), d.file(`{"mode": "OPEN"}`)
	out, _, err := d.run(nil, "policy", "set", d.door.ID, locked, "--if-version", "0")
	if err != nil || !strings.Contains(out, "version 1") {
		t.Fatalf("--if-version 0 without a policy: %q, %v", out, err)
	}
	_, _, err = d.run(nil, "policy", "set", d.door.ID, open, "--if-version", "0")
	if !errors.Is(err, gatehouse.ErrConflict) || cli.ExitStatus(err) != 1 ||
		!strings.Contains(err.Error(), "has policy version 1 now, not what --if-version 0 names (no policy yet)") {
		t.Errorf("--if-version 0 with a policy: %v", err)
	}
	out, _, err = d.run(nil, "policy", "set", d.door.ID, open, "--if-version", "1")
	if err != nil || !strings.Contains(out, "version 2") {
		t.Fatalf("--if-version 1: %q, %v", out, err)
	}
	_, _, err = d.run(nil, "policy", "set", d.door.ID, locked, "--if-version", "1")
	if !errors.Is(err, gatehouse.ErrConflict) || !strings.Contains(err.Error(), "has policy version 2 now, not what --if-version 1 names (version 1)") {
		t.Errorf("a stale --if-version: %v", err)
	}
	var p gatehouse.Policy
	d.json(&p, "policy", "show", d.door.ID)
	if p.Version != 2 || p.Mode != gatehouse.ModeOpen {
		t.Errorf("after the conflicts the policy is %+v, want version 2, OPEN", p)
	}
	// The current version with the policy it has is unchanged, not a conflict.
	out, _, err = d.run(nil, "policy", "set", d.door.ID, open, "--if-version", "2")
	if err != nil || !strings.HasPrefix(out, "unchanged") {
		t.Errorf("--if-version of the current version, same policy: %q, %v", out, err)
	}
}

// TestPolicyUnknownAccessPoint: an access point no organization has is
// not found by every command, with its id in the message.
func TestPolicyUnknownAccessPoint(t *testing.T) {
	d := newPolicyDoor(t)
	id := uuid.NewString()
	for _, args := range [][]string{
		{"policy", "show", id},
		{"policy", "set", id, d.file(`{"mode": "OPEN"}`)},
		{"decide", "--access-point", id, "--platform-user-id", "1"},
		{"decide", "--access-point", d.hq.ID, "--platform-user-id", "1"}, // a location's id
	} {
		_, _, err := d.run(nil, args...)
		if !errors.Is(err, gatehouse.ErrNotFound) || cli.ExitStatus(err) != 1 || !strings.Contains(err.Error(), "access point ") {
			t.Errorf("gatehouse %s: %v (exit %d)", strings.Join(args, " "), err, cli.ExitStatus(err))
		}
	}
}

// TestPolicyShowExitStatus runs the binary: an access point without a
// policy exits 3, with it 0, an unknown one 1.
func TestPolicyShowExitStatus(t *testing.T) {
	d := newPolicyDoor(t)
	bin := gatehouseBinary(t)
	status := func(args ...string) int {
		cmd := exec.Command(bin, append(args, "--db", d.db)...)
		cmd.Dir = t.TempDir()
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if got := status("policy", "show", d.door.ID); got != 3 {
		t.Errorf("policy show without a policy exited %d, want 3", got)
	}
	if got := status("policy", "show", uuid.NewString()); got != 1 {
		t.Errorf("policy show of an unknown access point exited %d, want 1", got)
	}
	if got := status("policy", "set", d.door.ID, d.file(`{"mode": "OPEN"}`)); got != 0 {
		t.Errorf("policy set exited %d", got)
	}
	if got := status("policy", "show", d.door.ID); got != 0 {
		t.Errorf("policy show exited %d, want 0", got)
	}
}

// countEvents is how many events the organization has.
func countEvents(t *testing.T, g *gh, orgID string) int {
	t.Helper()
	ctx := context.Background()
	db, err := app.Open(ctx, g.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n, err := db.Service(time.Now).CountEventsUpTo(ctx, uuid.MustParse(orgID), gatehouse.EventFilter{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPolicySetLargest: a policy at every bound, pretty-printed by
// policy show --json, fits what policy set reads and sets back unchanged.
func TestPolicySetLargest(t *testing.T) {
	d := newPolicyDoor(t)
	p := gatehouse.Policy{Mode: gatehouse.ModeRules, Schedule: &gatehouse.Schedule{TimeZone: "America/Argentina/ComodRivadavia"}}
	for i := range gatehouse.MaxPolicyWindows {
		p.Schedule.Windows = append(p.Schedule.Windows, gatehouse.Window{Days: gatehouse.Weekdays, From: "23:59", To: fmt.Sprintf("%02d:00", i%24)})
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range gatehouse.MaxPolicyExceptions {
		e := gatehouse.Exception{Date: day.AddDate(0, 0, i).Format(time.DateOnly)}
		for range gatehouse.MaxPolicyExceptionWindows {
			e.Windows = append(e.Windows, gatehouse.TimeRange{From: "23:59", To: "24:00"})
		}
		p.Schedule.Exceptions = append(p.Schedule.Exceptions, e)
	}
	rank := gatehouse.MaxGroupRank
	for i := range gatehouse.MaxPolicyAllowRules {
		p.Allow = append(p.Allow, gatehouse.AllowRule{GroupID: fmt.Sprint(9_000_000_000_000 + i), MinRank: &rank})
	}
	until := gatehouse.Time(time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC))
	for i := range gatehouse.MaxPolicyDenyRules {
		p.Deny = append(p.Deny, gatehouse.DenyRule{PlatformUserID: fmt.Sprint(9_000_000_000_000 + i), Until: &until})
	}
	body, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := d.run(nil, "policy", "set", d.door.ID, d.file(string(body))); err != nil || !strings.Contains(out, "version 1") {
		t.Fatalf("policy set of the largest policy: %q, %v", out, err)
	}
	printed, _, err := d.run(nil, "policy", "show", d.door.ID, "--json")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the largest policy is %d bytes as policy show --json prints it", len(printed))
	out, _, err := d.run(strings.NewReader(printed), "policy", "set", d.door.ID, "-")
	if err != nil || !strings.HasPrefix(out, "unchanged") {
		t.Errorf("policy set of the printed largest policy: %q, %v", out, err)
	}
}
