package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// The Event Log's NDJSON export is what `event import` reads: its lines,
// unchanged, are duplicates in the organization they came from, and new
// events with the same ids in another whose location and access point
// have the same names.
func TestNDJSONExportImports(t *testing.T) {
	s := newSite(t)
	acme, zeta := s.tenant("Acme"), s.tenant("Zeta")
	ctx := context.Background()
	loc, err := s.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), zeta.org.ID, acme.loc.Name)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), zeta.org.ID, loc.ID, acme.ap.Name)
	if err != nil {
		t.Fatal(err)
	}
	nd := s.signedIn(acme).do("GET", "/dashboard/events/export.ndjson", nil)
	lines := strings.Split(strings.TrimSpace(nd.body), "\n")
	if nd.status != 200 || len(lines) != 2 {
		t.Fatalf("export: %d %q", nd.status, nd.body)
	}
	for _, to := range []struct {
		org           tenant
		ap            gatehouse.AccessPoint
		new, existing int
	}{{acme, acme.ap, 0, 2}, {zeta, twin, 2, 0}} {
		dec, err := s.svc.NewImportDecoder(ctx, to.org.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		var events []gatehouse.NewEvent
		for _, line := range lines {
			ev, err := dec.Decode([]byte(line))
			if err != nil {
				t.Fatalf("into %s: %s: %v", to.org.org.Name, line, err)
			}
			if ev.AccessPointID != to.ap.ID {
				t.Errorf("into %s: the access point %s, want %s", to.org.org.Name, ev.AccessPointID, to.ap.ID)
			}
			events = append(events, ev)
		}
		res, err := s.svc.IngestEvents(ctx, to.org.org.ID, events)
		if err != nil || res.Accepted != to.new || res.Duplicates != to.existing {
			t.Errorf("into %s: %+v %v, want %d new and %d duplicates", to.org.org.Name, res, err, to.new, to.existing)
		}
		for i, id := range res.IDs {
			if want := []string{acme.denied.ID.String(), acme.granted.ID.String()}; !strings.Contains(strings.Join(want, " "), id.String()) {
				t.Errorf("into %s: event %d stored as %s, not an exported id", to.org.org.Name, i, id)
			}
		}
	}
}

// TestExportOfARemovedRequesterImports: an export names a user since
// removed by id alone (requestedBy with no email); the line imports with
// no requester instead of being refused.
func TestExportOfARemovedRequesterImports(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	dec, err := s.svc.NewImportDecoder(ctx, acme.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"id": "` + gatehouse.NewID().String() + `", "type": "REMOTE_UNLOCK", "occurredAt": "2026-11-20T11:00:00Z",
		"receivedAt": "2026-11-20T11:00:01Z", "allowed": null, "reason": null, "platformUserId": null, "serverJobId": null,
		"scope": "UNIVERSE", "location": {"id": "` + acme.loc.ID.String() + `", "name": "` + acme.loc.Name + `"},
		"accessPoint": {"id": "` + acme.ap.ID.String() + `", "name": "` + acme.ap.Name + `"},
		"requestedBy": {"id": "` + gatehouse.NewID().String() + `", "email": "", "name": ""}, "command": null}`
	ev, err := dec.Decode([]byte(strings.ReplaceAll(line, "\n", " ")))
	if err != nil || ev.RequestedBy != nil {
		t.Fatalf("a removed requester: %+v, %v; want the event with no requester", ev.RequestedBy, err)
	}
	if res, err := s.svc.IngestEvents(ctx, acme.org.ID, []gatehouse.NewEvent{ev}); err != nil || res.Accepted != 1 {
		t.Fatalf("importing it: %+v %v", res, err)
	}
}
