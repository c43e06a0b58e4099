package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// exportedEvent is what the round trip compares of an event read back.
type exportedEvent struct {
	ID, Type, OccurredAt            string
	Allowed, Reason, PlatformUserID *string
	ServerJobID, Scope              *string
	Location, AccessPoint           struct{ Name string }
	RequestedBy                     *struct{ Email string }
	Command                         *struct{ ID, Scope, Status, IssuedAt string }
}

// tailEvents runs event tail to its end and returns its output and the
// events it wrote, by id.
func tailEvents(t *testing.T, g *gh, org string) (string, map[string]exportedEvent) {
	t.Helper()
	out, _, err := g.run(nil, "event", "tail", "--org", org, "--follow=false")
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]exportedEvent{}
	for line := range strings.Lines(out) {
		var ev exportedEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		events[ev.ID] = ev
	}
	return out, events
}

// What event tail writes (the whole events of GET /events, as the
// dashboard's NDJSON export writes them too) is imported unchanged: into
// another database (PostgreSQL with GATEHOUSE_TEST_BACKEND=postgres) whose
// organization has the same names but other ids,
// every event arrives with its id, type, times, reason, player, door and
// requester; importing it again, there or into the organization it came
// from, counts duplicates, not rejects.
func TestEventTailOutputImports(t *testing.T) {
	from, to := newGH(t), newBackendGH(t) // GATEHOUSE_TEST_BACKEND=postgres: from SQLite to PostgreSQL
	orgA, doorsA := from.place("Gate", "Vault")
	orgB, _ := to.place("Vault", "Gate") // other ids, in another order
	var u record
	from.env["GATEHOUSE_PASSWORD"], to.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple", "correct horse battery staple"
	from.json(&u, "user", "create", "--org", orgA.ID, "--email", "ops@acme.test", "--name", "Ops")
	to.json(&u, "user", "create", "--org", orgB.ID, "--email", "ops@acme.test", "--name", "Ops")
	var users []struct{ ID, Email string }
	from.json(&users, "user", "list", "--org", orgA.ID)
	gate, vault := doorsA[0].ID, doorsA[1].ID
	lines := []string{
		`{"type":"ACCESS_DENIED","occurredAt":"` + eventDay + `T10:00:00Z","accessPointId":"` + gate + `","reason":"OUTSIDE_SCHEDULE","platformUserId":"42","serverJobId":"job-1"}`,
		`{"type":"ACCESS_GRANTED","occurredAt":"` + eventDay + `T10:00:01.250Z","accessPointId":"` + vault + `","reason":"ALLOWLIST","platformUserId":"43"}`,
		`{"type":"REMOTE_UNLOCK","occurredAt":"` + eventDay + `T11:00:00Z","accessPointId":"` + vault + `","scope":"PLAYER","platformUserId":"44","requestedBy":"` + users[0].ID + `",` +
			`"command":{"id":"01a2179e-2222-7000-8000-000000000001","status":"EXECUTED","issuedAt":"` + eventDay + `T10:59:59Z"}}`,
		`{"type":"REMOTE_UNLOCK","occurredAt":"` + eventDay + `T12:00:00Z","accessPointId":"` + gate + `","scope":"SERVER","serverJobId":"job-2"}`,
	}
	for i := range 20 {
		lines = append(lines, fmt.Sprintf(`{"type":"ACCESS_GRANTED","occurredAt":"%sT09:00:%02dZ","accessPointId":%q,"platformUserId":"%d"}`, eventDays(-1), i, gate, 100+i))
	}
	var sum summary
	if out, _, err := from.run(strings.NewReader(strings.Join(lines, "\n")), "event", "import", "--org", orgA.ID, "--json"); err != nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Imported != len(lines) {
		t.Fatalf("seeding: %s %v", out, err)
	}
	export, want := tailEvents(t, from, orgA.ID)
	if len(want) != len(lines) {
		t.Fatalf("event tail wrote %d events, want %d", len(want), len(lines))
	}

	for _, pass := range []struct {
		g                *gh
		org              string
		imported, copies int
	}{{to, orgB.ID, len(lines), 0}, {to, orgB.ID, 0, len(lines)}, {from, orgA.ID, 0, len(lines)}} {
		out, _, err := pass.g.run(strings.NewReader(export), "event", "import", "--org", pass.org, "--json")
		if err != nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Imported != pass.imported || sum.Duplicates != pass.copies || sum.Rejected != 0 {
			t.Fatalf("importing event tail's output: %s %v, want %d imported and %d duplicates", out, err, pass.imported, pass.copies)
		}
	}
	_, got := tailEvents(t, to, orgB.ID)
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want))) {
		t.Fatalf("imported ids %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	for id, w := range want {
		gb, _ := json.Marshal(got[id])
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("event %s imported as\n%s\nwant\n%s", id, gb, wb)
		}
	}
	// A database whose doors have other names takes none of it, and says
	// which names it looked for.
	other := newGH(t)
	orgC, _ := other.place("Door")
	out, _, err := other.run(strings.NewReader(export), "event", "import", "--org", orgC.ID, "--json")
	if err == nil || json.Unmarshal([]byte(out), &sum) != nil || sum.Rejected != len(lines) ||
		!strings.Contains(sum.Errors[0].Error, `none is named "Gate" at a location named "HQ"`) && !strings.Contains(sum.Errors[0].Error, `none is named "Vault" at a location named "HQ"`) {
		t.Errorf("importing into other names: %s %v", out, err)
	}
	if e := want[findType(want, "REMOTE_UNLOCK", "PLAYER")]; e.RequestedBy == nil || e.Command == nil || e.Command.Status != "EXECUTED" {
		t.Errorf("the seeded unlock lost its requester or command: %+v", e)
	}
}

// findType is the id of the event of type typ and scope.
func findType(events map[string]exportedEvent, typ, scope string) string {
	for id, e := range events {
		if e.Type == typ && e.Scope != nil && *e.Scope == scope {
			return id
		}
	}
	return ""
}
