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

// TestDemoPrintsHowToUnlock: the demo's locations name their universes,
// and the unlock line it prints, pasted into a shell with its variables,
// issues a command for the demo's dashboard user.
func TestDemoPrintsHowToUnlock(t *testing.T) {
	bin := gatehouseBinary(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	out, _ := startDemoJSON(t, db)
	if len(out.Unlock) != 2 || !strings.Contains(out.Unlock[0], "command unlock") || !strings.Contains(out.Unlock[0], "--as demo@gatehouse.test") {
		t.Fatalf("the demo's unlock lines: %q", out.Unlock)
	}
	g := &gh{t: t, db: db, env: map[string]string{}}
	var locs []struct {
		Name       string
		UniverseID *string
	}
	g.json(&locs, "location", "list", "--org", out.Organization.ID)
	for _, l := range locs {
		if l.UniverseID == nil {
			t.Errorf("the demo's location %q names no universe", l.Name)
		}
	}

	var vars strings.Builder
	fmt.Fprintf(&vars, "PATH='%s':\"$PATH\"\n", filepath.Dir(bin))
	// As the reader pastes them: GATEHOUSE_DB exported, which the
	// printed lines rely on to find the demo's file from any folder.
	for name, value := range out.Variables {
		fmt.Fprintf(&vars, "export %s='%s'\n", name, value)
	}
	cmd := exec.Command("sh", "-c", vars.String()+out.Unlock[0]+" --json")
	cmd.Env = append(os.Environ(), "GATEHOUSE_DB=")
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v %s", out.Unlock[0], err, stdout)
	}
	var c struct {
		Status, Scope string
		AccessPoint   struct{ ID string }
		RequestedBy   struct{ Email string }
	}
	if err := json.Unmarshal(stdout, &c); err != nil || c.Status != "PENDING" || c.Scope != "UNIVERSE" ||
		c.AccessPoint.ID != out.Variables["ACCESS_POINT_ID"] || c.RequestedBy.Email != "demo@gatehouse.test" {
		t.Errorf("the demo's unlock answered %s (%v)", stdout, err)
	}
	list, err := exec.Command("sh", "-c", vars.String()+out.Unlock[1]).Output()
	if err != nil || !strings.Contains(string(list), "PENDING") || !strings.Contains(string(list), "0/0 executed") {
		t.Errorf("the demo's command list printed %q (%v)", list, err)
	}
}
