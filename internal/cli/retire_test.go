package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestArchiveRestoreDelete: location and access-point archive, restore
// and delete take the id as their argument. Archived records leave the
// lists unless --archived, and take no new change (a policy here) until
// restored; delete refuses what events name, saying to archive it, and
// deletes a mistake; each change is in the audit log by the operator.
func TestArchiveRestoreDelete(t *testing.T) {
	g := newBackendGH(t)
	org, aps := g.place("Front door", "Mistake")
	door, mistake := aps[0], aps[1]
	var hq record
	for _, l := range g.locations(org.ID, true) {
		hq = l.record
	}

	type archivable struct {
		record
		ArchivedAt *string
	}
	var ap archivable
	g.json(&ap, "access-point", "archive", door.ID)
	if ap.ID != door.ID || ap.ArchivedAt == nil {
		t.Fatalf("access-point archive: %+v", ap)
	}
	var listed []archivable
	g.json(&listed, "access-point", "list", "--location", hq.ID)
	if len(listed) != 1 || listed[0].ID != mistake.ID {
		t.Errorf("access-point list without --archived: %+v", listed)
	}
	g.json(&listed, "access-point", "list", "--location", hq.ID, "--archived")
	if len(listed) != 2 || listed[0].ID != door.ID || listed[0].ArchivedAt == nil || listed[1].ArchivedAt != nil {
		t.Errorf("access-point list --archived: %+v", listed)
	}
	out, _, err := g.run(nil, "access-point", "list", "--location", hq.ID, "--archived")
	if err != nil || !strings.Contains(out, "Front door  archived ") {
		t.Errorf("access-point list --archived for people: %q %v", out, err)
	}
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"mode": "OPEN"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = g.run(nil, "policy", "set", door.ID, policy)
	if !errors.Is(err, gatehouse.ErrConflict) || !strings.Contains(err.Error(), `access point "Front door" is archived: restore it first`) {
		t.Errorf("policy set of an archived access point: %v", err)
	}
	g.json(&ap, "access-point", "restore", door.ID)
	if ap.ArchivedAt != nil {
		t.Errorf("access-point restore: %+v", ap)
	}
	if _, _, err := g.run(nil, "policy", "set", door.ID, policy); err != nil {
		t.Errorf("policy set once restored: %v", err)
	}

	var loc archivable
	g.json(&loc, "location", "archive", hq.ID)
	if loc.ID != hq.ID || loc.ArchivedAt == nil {
		t.Errorf("location archive: %+v", loc)
	}
	if got := g.locations(org.ID, false); len(got) != 0 {
		t.Errorf("location list without --archived: %+v", got)
	}
	if got := g.locations(org.ID, true); len(got) != 1 || len(got[0].AccessPoints) != 2 {
		t.Errorf("location list --archived: %+v", got)
	}
	out, _, err = g.run(nil, "location", "list", "--org", org.ID, "--archived")
	if err != nil || !strings.Contains(out, "(2 access points)  archived ") {
		t.Errorf("location list --archived for people: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "access-point", "rename", mistake.ID, "--name", "Oops"); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("rename of an access point of an archived location: %v", err)
	}
	g.json(&loc, "location", "restore", hq.ID)

	// Delete: refused for what events name, done for a mistake.
	ingest(t, g, org.ID, door.ID)
	_, _, err = g.run(nil, "access-point", "delete", door.ID)
	if !errors.Is(err, gatehouse.ErrConflict) || err.Error() != `access point "Front door" has 1 event: archive it instead` {
		t.Errorf("delete of an access point with an event: %v", err)
	}
	out, _, err = g.run(nil, "access-point", "delete", mistake.ID)
	if err != nil || !strings.Contains(out, "deleted access point "+mistake.ID) {
		t.Errorf("access-point delete: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "access-point", "delete", mistake.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("delete of a deleted access point: %v", err)
	}
	_, _, err = g.run(nil, "location", "delete", hq.ID)
	if !errors.Is(err, gatehouse.ErrConflict) || !strings.Contains(err.Error(), "delete or move its access points first") {
		t.Errorf("delete of a location with an access point: %v", err)
	}
	var empty, deleted record
	g.json(&empty, "location", "create", "--org", org.ID, "--name", "Empty")
	g.json(&deleted, "location", "delete", empty.ID)
	if deleted.ID != empty.ID || deleted.Status != "deleted" {
		t.Errorf("location delete: %+v", deleted)
	}
	for _, args := range [][]string{
		{"location", "archive"},                      // no id
		{"location", "delete", "nope"},               // not a UUID
		{"access-point", "restore", door.ID, "more"}, // two ids
	} {
		if _, _, err := g.run(nil, args...); !isUsage(err) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}

	var log []auditRecord
	g.json(&log, "audit", "list", "--org", org.ID)
	var actions []string
	for _, e := range log {
		switch gatehouse.AuditAction(e.Action) {
		case gatehouse.AuditAccessPointArchived, gatehouse.AuditAccessPointRestored, gatehouse.AuditAccessPointDeleted,
			gatehouse.AuditLocationArchived, gatehouse.AuditLocationRestored, gatehouse.AuditLocationDeleted:
			actions = append(actions, e.Action)
			if e.Actor.Type != "cli" {
				t.Errorf("%s by %+v, want the operator (cli)", e.Action, e.Actor)
			}
		}
	}
	want := "location.deleted,access_point.deleted,location.restored,location.archived,access_point.restored,access_point.archived"
	if strings.Join(actions, ",") != want {
		t.Errorf("audit list = %s, want %s", strings.Join(actions, ","), want)
	}
}

// listedLocation is a location as location list --json prints it.
type listedLocation struct {
	record
	ArchivedAt   *string
	AccessPoints []struct {
		record
		ArchivedAt *string
	}
}

// locations lists the organization's locations, archived ones too when
// archived.
func (g *gh) locations(org string, archived bool) []listedLocation {
	g.t.Helper()
	args := []string{"location", "list", "--org", org}
	if archived {
		args = append(args, "--archived")
	}
	var locs []listedLocation
	g.json(&locs, args...)
	return locs
}

// ingest imports one event of the access point.
func ingest(t *testing.T, g *gh, org, ap string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "event.ndjson")
	line := `{"type":"ACCESS_GRANTED","allowed":"granted","occurredAt":"` + eventDay + `T03:04:05Z","accessPointId":"` + ap + `"}`
	if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	var sum struct{ Imported int }
	g.json(&sum, "event", "import", "--org", org, file)
	if sum.Imported != 1 {
		t.Fatalf("imported %+v", sum)
	}
}
