package gatehouse_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
)

const ap = `"accessPointId":"0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"`

var ingestNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func TestDecodeIngestEventAccepts(t *testing.T) {
	id := "0193a5b2-0000-7000-8000-000000000001"
	for _, tc := range []struct {
		name, line string
		check      func(gatehouse.NewEvent) bool
	}{
		{"granted inferred", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00.1234Z",` + ap + `}`,
			func(e gatehouse.NewEvent) bool {
				return *e.Allowed == gatehouse.Granted && e.OccurredAt.Equal(time.Date(2026, 11, 20, 11, 0, 0, 123e6, time.UTC))
			}},
		{"denied with reason", `{"type":"ACCESS_DENIED","allowed":"denied","reason":"OUTSIDE_SCHEDULE","platformUserId":"42","occurredAt":"2026-11-20T13:00:00+02:00",` + ap + `}`,
			func(e gatehouse.NewEvent) bool {
				return *e.Allowed == gatehouse.Denied && *e.Reason == "OUTSIDE_SCHEDULE"
			}},
		{"id kept", `{"id":"` + id + `","type":"ACCESS_DENIED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`,
			func(e gatehouse.NewEvent) bool { return e.ID.String() == id }},
		{"universe unlock", `{"type":"REMOTE_UNLOCK","scope":"UNIVERSE","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`,
			func(e gatehouse.NewEvent) bool { return e.Allowed == nil && *e.Scope == gatehouse.ScopeUniverse }},
		{"unlock with explicit null allowed", `{"type":"REMOTE_UNLOCK","allowed":null,"scope":"SERVER","serverJobId":"job-1","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`,
			func(e gatehouse.NewEvent) bool { return e.Allowed == nil }},
		{"command defaults from the unlock", `{"type":"REMOTE_UNLOCK","scope":"PLAYER","platformUserId":"7","occurredAt":"2026-11-20T11:00:00Z",` + ap + `,"command":{"id":"` + id + `","status":"PENDING"}}`,
			func(e gatehouse.NewEvent) bool {
				c := e.Command
				return c.Scope == gatehouse.ScopePlayer && *c.PlatformUserID == "7" && c.IssuedAt.Equal(e.OccurredAt) && c.Status == gatehouse.CommandPending
			}},
		{"granted attempt names its command", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `,"command":{"id":"` + id + `","status":"EXECUTED","scope":"UNIVERSE"}}`,
			func(e gatehouse.NewEvent) bool { return e.Command.Scope == gatehouse.ScopeUniverse }},
		{"an hour ahead is skew", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T13:00:00Z",` + ap + `}`,
			func(e gatehouse.NewEvent) bool { return true }},
	} {
		ev, err := gatehouse.DecodeIngestEvent([]byte(tc.line), ingestNow)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if ev.ID.Version() != 7 && tc.name != "id kept" {
			t.Errorf("%s: assigned id %s is not a UUIDv7", tc.name, ev.ID)
		}
		if !tc.check(ev) {
			t.Errorf("%s: decoded %+v", tc.name, ev)
		}
	}
}

func TestDecodeIngestEventRejects(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		keys       []string
	}{
		{"not an object", `[1]`, []string{""}},
		{"not JSON", `{"type":`, []string{""}},
		{"two values", `{} {}`, []string{""}},
		{"a stray bracket after the object", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}]`, []string{""}},
		{"a field given twice", `{"type":"ACCESS_GRANTED","type":"ACCESS_DENIED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"type"}},
		{"a command field given twice", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap +
			`,"command":{"id":"0193a5b2-0000-7000-8000-000000000001","status":"PENDING","status":"EXECUTED","scope":"UNIVERSE"}}`, []string{"command.status"}},
		{"empty object", `{}`, []string{"accessPointId", "occurredAt", "type"}},
		{"unknown field", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `,"allowd":"granted"}`, []string{"allowd"}},
		{"unknown type", `{"type":"DOOR_OPENED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"type"}},
		{"contradictory outcome", `{"type":"ACCESS_GRANTED","allowed":"denied","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"allowed"}},
		{"no offset", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00",` + ap + `}`, []string{"occurredAt"}},
		{"number for a string", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `,"platformUserId":42}`, []string{"platformUserId"}},
		{"before 2000", `{"type":"ACCESS_GRANTED","occurredAt":"1999-12-31T23:59:59.999Z",` + ap + `}`, []string{"occurredAt"}},
		{"the epoch", `{"type":"ACCESS_GRANTED","occurredAt":"1970-01-01T00:00:00Z",` + ap + `}`, []string{"occurredAt"}},
		{"issuedAt in year 10000 in UTC", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z",` + ap + `,"command":{"id":"0193a5b2-0000-7000-8000-000000000001","status":"PENDING","scope":"UNIVERSE","issuedAt":"9999-12-31T23:59:59.999-23:59"}}`,
			[]string{"command.issuedAt"}},
		{"far future", `{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T13:00:00.001Z",` + ap + `}`, []string{"occurredAt"}},
		{"bad reason", `{"type":"ACCESS_DENIED","reason":"outside schedule","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"reason"}},
		{"bad access point", `{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"door-1"}`, []string{"accessPointId"}},
		{"scope on an attempt", `{"type":"ACCESS_DENIED","scope":"UNIVERSE","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"scope"}},
		{"unlock without scope", `{"type":"REMOTE_UNLOCK","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"scope"}},
		{"unlock with outcome", `{"type":"REMOTE_UNLOCK","scope":"UNIVERSE","allowed":"granted","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"allowed"}},
		{"server unlock without job", `{"type":"REMOTE_UNLOCK","scope":"SERVER","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"serverJobId"}},
		{"player unlock without user", `{"type":"REMOTE_UNLOCK","scope":"PLAYER","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"platformUserId"}},
		{"empty user id", `{"type":"ACCESS_GRANTED","platformUserId":"","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"platformUserId"}},
		{"bad requester", `{"type":"ACCESS_GRANTED","requestedBy":"ops@example.com","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"requestedBy"}},
		{"command not an object", `{"type":"ACCESS_GRANTED","command":"x","occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`, []string{"command"}},
		{"command problems keyed by path", `{"type":"ACCESS_GRANTED","command":{"status":"DONE","extra":1},"occurredAt":"2026-11-20T11:00:00Z",` + ap + `}`,
			[]string{"command.extra", "command.id", "command.scope", "command.status"}},
	} {
		_, err := gatehouse.DecodeIngestEvent([]byte(tc.line), ingestNow)
		if !errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.keys, issueKeys(err)); diff != "" {
			t.Errorf("%s: issue keys (-want +got)\n%s", tc.name, diff)
		}
	}
}

func TestValidationErrorMergeKeysByPath(t *testing.T) {
	var inner, outer gatehouse.ValidationError
	inner.Add("", "must be a JSON object")
	inner.Add("occurredAt", "is required")
	outer.Merge("events[3]", &inner)
	want := map[string][]string{"events[3]": {"must be a JSON object"}, "events[3].occurredAt": {"is required"}}
	if diff := cmp.Diff(want, outer.Issues); diff != "" {
		t.Error(diff)
	}
}

// BenchmarkDecodeIngestEvent measures one ingest object with a command,
// the costliest shape:
//
//	go test . -run '^$' -bench DecodeIngestEvent -benchmem
func BenchmarkDecodeIngestEvent(b *testing.B) {
	line := []byte(`{"id":"0193a5b2-0000-7000-8000-000000000001","type":"REMOTE_UNLOCK","occurredAt":"2026-11-20T11:00:00.123Z",` + ap +
		`,"scope":"PLAYER","platformUserId":"1234567","command":{"id":"0193a5b2-0000-7000-8000-000000000002","status":"EXECUTED"}}`)
	for b.Loop() {
		if _, err := gatehouse.DecodeIngestEvent(line, ingestNow); err != nil {
			b.Fatal(err)
		}
	}
}
