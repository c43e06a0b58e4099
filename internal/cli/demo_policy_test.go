package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoPrintsHowToExplainAnAttempt: the policy lines the demo prints,
// pasted into a shell with its variables, show the policy of
// ACCESS_POINT_ID and explain the attempt of EVENT_ID exactly as it was
// recorded: the demo's attempts are decisions of its policies. The unlock
// line printed before them runs first, as a reader going down the page
// would, and the door's policy is changed to OPEN (as the guide shows how
// to) before the decide line runs: neither an unlock issued now nor a
// policy set now explains an earlier attempt, which is decided at its
// instant by what was in force then.
func TestDemoPrintsHowToExplainAnAttempt(t *testing.T) {
	bin := gatehouseBinary(t)
	out, _ := startDemoJSON(t, filepath.Join(t.TempDir(), "demo.db"))
	if len(out.Policy) != 2 || !strings.Contains(out.Policy[0], "policy show") || !strings.Contains(out.Policy[1], `decide --org "$ORG_ID" --event "$EVENT_ID"`) {
		t.Fatalf("the demo's policy lines: %q", out.Policy)
	}
	var vars strings.Builder
	fmt.Fprintf(&vars, "PATH='%s':\"$PATH\"\n", filepath.Dir(bin))
	for name, value := range out.Variables {
		fmt.Fprintf(&vars, "%s='%s'\n", name, value)
	}
	run := func(line string) []byte {
		cmd := exec.Command("sh", "-c", vars.String()+line)
		cmd.Env = append(os.Environ(), "GATEHOUSE_DB=")
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v %s", line, err, stdout)
		}
		return stdout
	}
	if shown := run(out.Policy[0]); !strings.Contains(string(shown), "policy version 1 of access point "+out.Variables["ACCESS_POINT_ID"]) {
		t.Errorf("%s printed %s", out.Policy[0], shown)
	}
	run(out.Unlock[0])
	run(`echo '{"mode": "OPEN"}' | ` + strings.Replace(out.Policy[0], `policy show "$ACCESS_POINT_ID"`, `policy set "$ACCESS_POINT_ID" -`, 1))
	var decision struct{ Allowed, Reason string }
	if b := run(out.Policy[1] + " --json"); json.Unmarshal(b, &decision) != nil {
		t.Fatalf("%s printed %s", out.Policy[1], b)
	}
	var events struct {
		Data []struct {
			ID              string
			Allowed, Reason *string
		}
	}
	b := httpGet(t, out.Variables["API"]+"/events?q="+out.Variables["EVENT_ID"], out.Key.Key)
	if err := json.Unmarshal(b, &events); err != nil || len(events.Data) != 1 || events.Data[0].Allowed == nil || events.Data[0].Reason == nil {
		t.Fatalf("the attempt of EVENT_ID: %s (%v)", b, err)
	}
	if e := events.Data[0]; *e.Allowed != decision.Allowed || *e.Reason != decision.Reason || decision.Allowed != "denied" {
		t.Errorf("the attempt was recorded %s %s; decide explains %s %s", *e.Allowed, *e.Reason, decision.Allowed, decision.Reason)
	}
	// Read by a person, the answer sets what was recorded beside it.
	if text := string(run(out.Policy[1])); !strings.Contains(text, "recorded      denied: "+decision.Reason) {
		t.Errorf("%s printed %s", out.Policy[1], text)
	}
	// --event gives the door, player, server and instant: they are not
	// given twice.
	twice := exec.Command("sh", "-c", vars.String()+out.Policy[1]+` --at 2026-01-01T00:00:00Z`)
	twice.Env = append(os.Environ(), "GATEHOUSE_DB=")
	if b, err := twice.CombinedOutput(); err == nil || !strings.Contains(string(b), "--event gives the access point") {
		t.Errorf("--event with --at: %v %s", err, b)
	}
}
