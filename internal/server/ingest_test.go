package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
)

func ingestBody(events ...string) string {
	return `{"events":[` + strings.Join(events, ",") + `]}`
}

func attempt(ap gatehouse.AccessPoint, id, at string) string {
	idField := ""
	if id != "" {
		idField = `"id":"` + id + `",`
	}
	return fmt.Sprintf(`{%s"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"%s","accessPointId":"%s","platformUserId":"42"}`, idField, at, ap.ID)
}

type ingestResult struct {
	Accepted, Duplicates int
	IDs                  []string
}

func TestIngestEvents(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	id := gatehouse.NewID().String()
	body := ingestBody(attempt(o.accessPoints[0], id, "2026-11-20T11:00:00Z"), attempt(o.accessPoints[1], "", "2026-11-20T11:01:00.5+01:00"))
	r := e.post("/api/consumer/v1/events", o.allKey, body)
	var res ingestResult
	r.decode(t, &res)
	if r.status != 200 || res.Accepted != 2 || res.Duplicates != 0 || len(res.IDs) != 2 || res.IDs[0] != id {
		t.Fatalf("first ingest: %d %s", r.status, r.body)
	}
	// A retry of the same batch stores nothing new.
	body = ingestBody(attempt(o.accessPoints[0], id, "2026-11-20T11:00:00Z"), attempt(o.accessPoints[1], res.IDs[1], "2026-11-20T11:01:00.5+01:00"))
	r = e.post("/api/consumer/v1/events", o.allKey, body)
	var again ingestResult
	r.decode(t, &again)
	if again.Accepted != 0 || again.Duplicates != 2 || !cmp.Equal(again.IDs, res.IDs) {
		t.Fatalf("retry: %s", r.body)
	}
	l := e.events(o.readKey, "")
	if diff := cmp.Diff([]string{id, res.IDs[1]}, l.ids()); diff != "" {
		t.Error(diff)
	}
	if l.Data[1].OccurredAt != "2026-11-20T10:01:00.500Z" {
		t.Errorf("occurredAt stored as %s", l.Data[1].OccurredAt)
	}
}

// TestIngestPlayerNames: a game server may send the player's display
// name with their id; the event shows it beside the id, a recorded
// decision too. A name without an id, an empty one or one past 50
// characters is refused, keyed platformUserName.
func TestIngestPlayerNames(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	ap := o.accessPoints[0].ID
	r := e.post("/api/consumer/v1/events", o.allKey, fmt.Sprintf(`{"events": [{"type": "ACCESS_DENIED", "occurredAt": "2026-11-20T11:00:00Z",
		"accessPointId": %q, "reason": "BANNED", "platformUserId": "156", "platformUserName": " Nightowl "}]}`, ap))
	if r.status != 200 {
		t.Fatalf("ingest with a name: %d %s", r.status, r.body)
	}
	e.putPolicy(o.policyKey, ap, `{"mode": "OPEN"}`)
	d := e.decide(o.serverKey, fmt.Sprintf(`{"accessPointId": %q, "platformUserId": "157", "platformUserName": "Skye", "record": true}`, ap))
	if d.EventID == nil {
		t.Fatalf("a recorded decision: %+v", d)
	}
	names := map[string]string{}
	for _, ev := range e.events(o.readKey, "").Data {
		if ev.PlatformUserName != nil {
			names[*ev.PlatformUserID] = *ev.PlatformUserName
		}
	}
	if names["156"] != "Nightowl" || names["157"] != "Skye" {
		t.Errorf("the names shown: %v", names)
	}
	for _, bad := range []string{`"platformUserName": "Nightowl"`, `"platformUserId": "156", "platformUserName": ""`,
		`"platformUserId": "156", "platformUserName": "` + strings.Repeat("x", 51) + `"`} {
		r := e.post("/api/consumer/v1/events", o.allKey, fmt.Sprintf(`{"events": [{"type": "ACCESS_GRANTED", "occurredAt": "2026-11-20T11:00:00Z",
			"accessPointId": %q, %s}]}`, ap, bad))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "platformUserName") {
			t.Errorf("%s: %d %s", bad, r.status, r.body)
		}
	}
}

func TestIngestIsAllOrNothing(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	other := e.newOrg("Other")
	events := []string{
		attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z"),
		attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z"),
		attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z"),
		`{"type":"ACCESS_DENIED","occurredAt":"yesterday","accessPointId":"` + o.accessPoints[0].ID.String() + `"}`,
		`{"type":"WAVE","accessPointId":"x"}`,
	}
	r := e.post("/api/consumer/v1/events", o.allKey, ingestBody(events...))
	if r.status != 400 {
		t.Fatalf("status %d %s", r.status, r.body)
	}
	want := []string{"events[3].occurredAt", "events[4].accessPointId", "events[4].occurredAt", "events[4].type"}
	if diff := cmp.Diff(want, sortedKeys(r.apiError(t).Issues)); diff != "" {
		t.Errorf("issues (-want +got)\n%s", diff)
	}
	// An access point of another organization is found by the store, still all or nothing.
	r = e.post("/api/consumer/v1/events", o.allKey, ingestBody(events[0], attempt(other.accessPoints[0], "", "2026-11-20T11:00:00Z")))
	if r.status != 400 || r.apiError(t).Issues["events[1].accessPointId"] == nil {
		t.Fatalf("foreign access point: %d %s", r.status, r.body)
	}
	if l := e.events(o.readKey, ""); len(l.Data) != 0 {
		t.Errorf("a rejected batch stored %d events", len(l.Data))
	}
}

// TestIngestRefusesEventsPastRetention: an event that occurred before
// the organization's retention would be deleted minutes after a 200 said
// it was accepted, so the batch is refused with an issue per such event,
// all or nothing; the retention is the organization's own, and an event
// on its edge is kept.
func TestIngestRefusesEventsPastRetention(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	now := e.clock.Now()
	at := func(days int, extra time.Duration) string {
		return now.AddDate(0, 0, -days).Add(extra).Format(time.RFC3339Nano)
	}
	events := []string{
		attempt(o.accessPoints[0], "", at(0, -time.Hour)),
		attempt(o.accessPoints[0], "", at(400, -time.Millisecond)), // 400 days and a millisecond ago
		attempt(o.accessPoints[0], "", at(400, 0)),                 // on the edge: kept
		attempt(o.accessPoints[0], "", "2001-02-03T04:05:06Z"),
	}
	r := e.post("/api/consumer/v1/events", o.allKey, ingestBody(events...))
	if r.status != http.StatusBadRequest {
		t.Fatalf("status %d %s", r.status, r.body)
	}
	issues := r.apiError(t).Issues
	if diff := cmp.Diff([]string{"events[1].occurredAt", "events[3].occurredAt"}, sortedKeys(issues)); diff != "" {
		t.Fatalf("issues (-want +got)\n%s", diff)
	}
	if msg := issues["events[1].occurredAt"][0]; !strings.Contains(msg, "older than the retention of 400 days") {
		t.Errorf("message %q", msg)
	}
	if l := e.events(o.readKey, ""); len(l.Data) != 0 {
		t.Errorf("a refused batch stored %d events", len(l.Data))
	}
	// The rest of the batch, sent again, is stored.
	if r := e.post("/api/consumer/v1/events", o.allKey, ingestBody(events[0], events[2])); r.status != http.StatusOK {
		t.Fatalf("the events within the retention: %d %s", r.status, r.body)
	}
	// A longer retention takes what the default refused.
	settings := e.do(http.MethodPatch, "/api/consumer/v1/organization/settings", o.allKey, strings.NewReader(`{"retentionDays": 730}`), "Content-Type", "application/json")
	if settings.status != http.StatusOK {
		t.Fatalf("PATCH settings: %d %s", settings.status, settings.body)
	}
	if r := e.post("/api/consumer/v1/events", o.allKey, ingestBody(events[1])); r.status != http.StatusOK {
		t.Errorf("within a retention of 730 days: %d %s", r.status, r.body)
	}
}

func TestIngestBodyRules(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	one := attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z")
	many := make([]string, 1001)
	for i := range many {
		many[i] = one
	}
	for _, tc := range []struct {
		name, body, code, issue string
	}{
		{"not JSON", `{"events":[`, "invalid_json", ""},
		{"two documents", `{"events":[]} {}`, "invalid_json", ""},
		{"no events", `{"events":[]}`, "validation_failed", "events"},
		{"null", `null`, "validation_failed", "events"},
		{"events not an array", `{"events":{}}`, "validation_failed", "events"},
		{"unknown field", `{"events":[` + one + `],"dryRun":true}`, "validation_failed", "dryRun"},
		{"1001 events", ingestBody(many...), "validation_failed", "events"},
		{"element not an object", `{"events":[1]}`, "validation_failed", "events[0]"},
		{"a stray bracket after the body", ingestBody(one) + "]", "invalid_json", ""},
		{"events given twice", `{"events":[` + one + `],"events":[` + one + `]}`, "validation_failed", "events"},
		{"a field given twice", ingestBody(one, strings.Replace(one, "{", `{"type":"ACCESS_GRANTED",`, 1)), "validation_failed", "events[1].type"},
		{"not an object", `[` + one + `]`, "validation_failed", "events"},
		{"unknown field, then events", `{"dryRun":true,"events":[` + one + `]}`, "validation_failed", "dryRun"},
	} {
		r := e.post("/api/consumer/v1/events", o.allKey, tc.body)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: status %d %s", tc.name, r.status, r.body)
			continue
		}
		got := r.apiError(t)
		if got.Code != tc.code || (tc.issue != "" && got.Issues[tc.issue] == nil) {
			t.Errorf("%s: %s", tc.name, r.body)
		}
	}
}

func TestIngestSizeAndMediaType(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	big := `{"events":[` + attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z") + `],"pad":"` + strings.Repeat("x", 1<<20) + `"}`
	r := e.post("/api/consumer/v1/events", o.allKey, big)
	if r.status != http.StatusRequestEntityTooLarge || r.apiError(t).Code != "request_too_large" {
		t.Errorf("over 1 MiB: %d %s", r.status, r.body)
	}
	r = e.do(http.MethodPost, "/api/consumer/v1/events", o.allKey, strings.NewReader(`{"events":[]}`), "Content-Type", "text/plain")
	if r.status != http.StatusUnsupportedMediaType || r.apiError(t).Code != "unsupported_media_type" {
		t.Errorf("text/plain: %d %s", r.status, r.body)
	}
	r = e.do(http.MethodPost, "/api/consumer/v1/events", o.allKey,
		strings.NewReader(ingestBody(attempt(o.accessPoints[0], "", "2026-11-20T11:00:00Z"))), "Content-Type", "application/json; charset=utf-8")
	if r.status != 200 {
		t.Errorf("charset parameter: %d %s", r.status, r.body)
	}
}

// An instant that is year 10000 in UTC, sent with a negative offset, would
// be stored and then written in a form no RFC 3339 reader (the Go client
// among them) accepts, breaking every page that holds it.
func TestIngestRefusesInstantsPastYear9999(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	ev := fmt.Sprintf(`{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"%s",`+
		`"command":{"id":"%s","status":"PENDING","scope":"UNIVERSE","issuedAt":"9999-12-31T23:59:59.999-23:59"}}`,
		o.accessPoints[0].ID, gatehouse.NewID())
	r := e.post("/api/consumer/v1/events", o.allKey, ingestBody(ev))
	if r.status != http.StatusBadRequest || r.apiError(t).Issues["events[0].command.issuedAt"] == nil {
		t.Fatalf("issuedAt in year 10000: %d %s", r.status, r.body)
	}
}

// The whole range a date parameter accepts reaches the store and comes
// back in meta as RFC 3339 with a four-digit year.
func TestListEventsDateRangeEnds(t *testing.T) {
	f := newFixture(t)
	l := f.env.events(f.org.readKey, "dateFrom=0000-01-01&dateTo=9999-12-31T23:59:59.999%2B23:59")
	if *l.Meta.DateTo != "9999-12-31T00:00:59.999Z" || !l.Meta.DateRangeNarrowed || len(l.Data) != 0 {
		t.Errorf("meta %+v, %d events", l.Meta, len(l.Data))
	}
	l = f.env.events(f.org.readKey, "dateFrom=0000-01-01T00:00:00Z&dateTo=0000-02-01")
	if *l.Meta.DateFrom != "0000-01-01T00:00:00.000Z" || len(l.Data) != 0 {
		t.Errorf("meta %+v, %d events", l.Meta, len(l.Data))
	}
}
