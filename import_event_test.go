package gatehouse_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// An import line may be the whole event an export writes: its id is
// kept, accessPoint and requestedBy give their ids and names, receivedAt
// is ignored; an unknown field is still refused, and accessPoint does not
// go with accessPointId.
func TestDecodeImportEventReadsWholeEvents(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	org := uuid.MustParse("01a2179e-0000-7000-8000-000000000001")
	const (
		id  = "01a2179e-1111-7000-8000-000000000001"
		ap  = "01a2179e-0000-7000-8000-0000000000aa"
		loc = "01a2179e-0000-7000-8000-0000000000bb"
		usr = "01a2179e-0000-7000-8000-0000000000cc"
	)
	whole := `{"id":"` + id + `","type":"REMOTE_UNLOCK","occurredAt":"2026-11-20T10:00:00.000Z","receivedAt":"2026-11-20T10:00:01.000Z",` +
		`"allowed":null,"reason":null,"platformUserId":"42","serverJobId":null,"scope":"PLAYER",` +
		`"location":{"id":"` + loc + `","name":"HQ"},"accessPoint":{"id":"` + ap + `","name":"Gate"},` +
		`"requestedBy":{"id":"` + usr + `","email":"ops@acme.test","name":"Ops"},` +
		`"command":{"id":"01a2179e-2222-7000-8000-000000000001","scope":"PLAYER","status":"EXECUTED","serverJobId":null,"platformUserId":"42","issuedAt":"2026-11-20T09:59:59.000Z"}}`
	ev, names, err := gatehouse.DecodeImportEvent(org, []byte(whole), now)
	if err != nil {
		t.Fatal(err)
	}
	if ev.ID.String() != id || ev.AccessPointID.String() != ap || ev.RequestedBy == nil || ev.RequestedBy.String() != usr ||
		ev.Command == nil || ev.Command.Status != gatehouse.CommandExecuted || *ev.PlatformUserID != "42" {
		t.Errorf("decoded %+v", ev)
	}
	if names != (gatehouse.ImportNames{Location: "HQ", AccessPoint: "Gate", RequesterEmail: "ops@acme.test", Requester: true}) {
		t.Errorf("names %+v", names)
	}
	for line, want := range map[string]string{
		strings.Replace(whole, `"receivedAt"`, `"karma":1,"receivedAt"`, 1):                              "karma: is not a known field",
		strings.Replace(whole, `"accessPoint":{`, `"accessPointId":"`+ap+`","accessPoint":{`, 1):         "accessPoint: give accessPointId or accessPoint, not both",
		strings.Replace(whole, `"accessPoint":{"id":"`+ap+`",`, `"accessPoint":{`, 1):                    "accessPoint.id: is required",
		strings.Replace(whole, `"email":"ops@acme.test",`, `"email":"ops@acme.test","role":"admin",`, 1): "requestedBy.role: is not a known field",
	} {
		if _, _, err := gatehouse.DecodeImportEvent(org, []byte(line), now); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	// Ingest (POST /events) reads only its own object.
	if _, err := gatehouse.DecodeIngestEvent([]byte(whole), now); err == nil || !strings.Contains(err.Error(), "accessPoint: is not a known field") {
		t.Errorf("ingest of a whole event: %v", err)
	}
}
