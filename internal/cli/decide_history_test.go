package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
)

// TestDecideAtExplainsByThePolicyThen: decide --at decides by the policy
// version in force at the instant (none before the first), and names its
// rule from that version; --current-policy tests the current one at the
// instant instead, and goes only with --at. The instants are read from the
// versions' own times, not from the day the test runs.
func TestDecideAtExplainsByThePolicyThen(t *testing.T) {
	d := newPolicyDoor(t)
	var v1, v2 struct {
		Version   int64
		UpdatedAt string
	}
	set := func(v any, policy string) {
		t.Helper()
		if _, _, err := d.run(nil, "policy", "set", d.door.ID, d.file(policy)); err != nil {
			t.Fatal(err)
		}
		d.json(v, "policy", "show", d.door.ID)
	}
	set(&v1, `{"mode": "RULES", "deny": [{"platformUserId": "5"}]}`)
	time.Sleep(5 * time.Millisecond) // the versions' times differ
	set(&v2, `{"mode": "OPEN"}`)
	first, err := gatehouse.ParseTime(v1.UpdatedAt)
	if err != nil || v1.Version != 1 || v2.Version != 2 || v2.UpdatedAt <= v1.UpdatedAt {
		t.Fatalf("the versions: %+v %+v (%v)", v1, v2, err)
	}
	decide := func(at time.Time, extra ...string) decisionJSON {
		t.Helper()
		var res decisionJSON
		d.json(&res, append([]string{"decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", gatehouse.FormatTime(at)}, extra...)...)
		return res
	}
	for _, c := range []struct {
		name          string
		at            time.Time
		extra         []string
		reason, rule  string
		policyVersion int64 // 0: none
	}{
		{"before the first version", first.Add(-time.Millisecond), nil, gatehouse.ReasonAccessPointDisabled, gatehouse.RuleFailMode, 0},
		{"while the first was in force", first, nil, gatehouse.ReasonBlocked, "deny[0]", 1},
		{"now", time.Now().Add(time.Minute), nil, gatehouse.ReasonOpen, gatehouse.RuleMode, 2},
		{"the current policy tested then", first.Add(-time.Millisecond), []string{"--current-policy"}, gatehouse.ReasonOpen, gatehouse.RuleMode, 2},
	} {
		res := decide(c.at, c.extra...)
		if res.Reason != c.reason || res.Rule != c.rule || (res.PolicyVersion == nil) != (c.policyVersion == 0) ||
			res.PolicyVersion != nil && *res.PolicyVersion != c.policyVersion {
			t.Errorf("%s: %+v, want %s by %s of version %d", c.name, res, c.reason, c.rule, c.policyVersion)
		}
	}
	out, _, err := d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--at", gatehouse.FormatTime(first))
	if err != nil || !strings.Contains(out, "  policy        version 1\n") || !strings.Contains(out, "  rule          deny[0]: platform user 5, for good\n") {
		t.Errorf("decide by an older version, for people: %q %v", out, err)
	}
	if _, _, err := d.run(nil, "decide", "--access-point", d.door.ID, "--platform-user-id", "5", "--current-policy"); cli.ExitStatus(err) != 2 {
		t.Errorf("--current-policy without --at: %v, want a usage error", err)
	}
}
