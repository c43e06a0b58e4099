package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// insightList is the body of GET /insights.
type insightList struct {
	Data []gatehouse.InsightCount `json:"data"`
	Meta struct {
		GroupBy           string `json:"groupBy"`
		TimeZone          string `json:"timeZone"`
		Limit             int    `json:"limit"`
		DateFrom          string `json:"dateFrom"`
		DateTo            string `json:"dateTo"`
		DateRangeNarrowed bool   `json:"dateRangeNarrowed"`
		Truncated         bool   `json:"truncated"`
	} `json:"meta"`
}

func (e *env) insights(key, query string) insightList {
	e.t.Helper()
	var l insightList
	e.getOK("/api/consumer/v1/insights?"+query, key, &l)
	return l
}

// TestInsightsAPI: GET /insights counts the key's organization's events
// by every grouping, with labels, filters, zones and limits, and after an
// erasure no longer counts the erased player.
func TestInsightsAPI(t *testing.T) {
	e := newEnv(t)
	acme, rival := e.newOrg("Acme"), e.newOrg("Rival")
	front, vip := acme.accessPoints[0], acme.accessPoints[1]
	var evs []gatehouse.NewEvent
	for i := range 6 {
		d := e.ev(front, gatehouse.EventAccessDenied, 10+i) // 11:45–11:50 UTC
		d.Reason, d.PlatformUserID = ptr("OUTSIDE_SCHEDULE"), ptr("261")
		evs = append(evs, d)
	}
	for i := range 3 {
		g := e.ev(vip, gatehouse.EventAccessGranted, 90+i) // 10:27–10:30 UTC
		g.PlatformUserID = ptr("262")
		evs = append(evs, g)
	}
	evs = append(evs, e.ev(vip, gatehouse.EventRemoteUnlock, 5))
	e.ingest(acme, evs...)
	e.ingest(acme, evs[:4]...) // duplicates count once
	e.ingest(rival, e.ev(rival.accessPoints[0], gatehouse.EventAccessDenied, 1))

	byDoor := e.insights(acme.readKey, "groupBy=accessPointId")
	want := []gatehouse.InsightCount{
		{Key: front.ID.String(), Label: ptr("Front door"), Denied: 6},
		{Key: vip.ID.String(), Label: ptr("VIP area"), Granted: 3, RemoteUnlocks: 1},
	}
	if len(byDoor.Data) != 2 || byDoor.Data[0].Key != want[0].Key || *byDoor.Data[0].Label != "Front door" ||
		byDoor.Data[0].Denied != 6 || byDoor.Data[1].Granted != 3 || byDoor.Data[1].RemoteUnlocks != 1 {
		t.Errorf("by door = %+v, want %+v", byDoor.Data, want)
	}
	if m := byDoor.Meta; m.GroupBy != "accessPointId" || m.TimeZone != "UTC" || m.Limit != 50 ||
		m.DateTo != "2026-11-20T13:00:00.000Z" || m.DateFrom != "2026-10-21T13:00:00.000Z" || m.Truncated {
		t.Errorf("meta = %+v", m)
	}
	if l := e.insights(acme.readKey, "groupBy=locationId"); len(l.Data) != 1 || *l.Data[0].Label != "HQ" || l.Data[0].Denied != 6 {
		t.Errorf("by location = %+v", l.Data)
	}
	if l := e.insights(acme.readKey, "groupBy=reason"); len(l.Data) != 1 || l.Data[0].Key != "OUTSIDE_SCHEDULE" || l.Data[0].Label != nil {
		t.Errorf("by reason = %+v", l.Data)
	}
	if l := e.insights(acme.readKey, "groupBy=type&limit=2"); len(l.Data) != 2 || l.Data[0].Key != "ACCESS_DENIED" || !l.Meta.Truncated {
		t.Errorf("by type, 2 = %+v %+v", l.Data, l.Meta)
	}
	if l := e.insights(acme.readKey, "groupBy=platformUserId&allowed=denied"); len(l.Data) != 1 || l.Data[0].Key != "261" || l.Data[0].Denied != 6 {
		t.Errorf("denied players = %+v", l.Data)
	}
	if l := e.insights(acme.readKey, "groupBy=type&platformUserId=262&accessPointId="+vip.ID.String()); len(l.Data) != 1 || l.Data[0].Granted != 3 {
		t.Errorf("player 262 at the VIP area = %+v", l.Data)
	}
	// Hours in a zone: 10:xx and 11:xx UTC are 11:00 and 12:00 in Berlin.
	hours := e.insights(acme.readKey, "groupBy=hour&timeZone=Europe/Berlin")
	if len(hours.Data) != 2 || hours.Data[0].Key != "2026-11-20T11:00:00+01:00" || hours.Data[0].Granted != 3 ||
		hours.Data[1].Key != "2026-11-20T12:00:00+01:00" || hours.Data[1].Denied != 6 || hours.Meta.TimeZone != "Europe/Berlin" {
		t.Errorf("hours in Berlin = %+v", hours.Data)
	}
	// Kolkata is UTC+05:30: each UTC hour counts where it starts.
	if l := e.insights(acme.readKey, "groupBy=day&timeZone=Asia/Kolkata"); len(l.Data) != 1 || l.Data[0].Key != "2026-11-20" || l.Data[0].Total() != 10 {
		t.Errorf("days in Kolkata = %+v", l.Data)
	}
	// 2026-11-20 is a Friday (ISO 5).
	if l := e.insights(acme.readKey, "groupBy=hourOfWeek&type=ACCESS_DENIED"); len(l.Data) != 1 || l.Data[0].Key != "5-11" || l.Data[0].Denied != 6 {
		t.Errorf("denials by hour of the week = %+v", l.Data)
	}
	// A window that cuts hours counts their events one by one: the three
	// grants (10:28–10:30) and one denial (11:45) of 11:45–11:50.
	if l := e.insights(acme.readKey, "groupBy=type&dateFrom=2026-11-20T10:28:00Z&dateTo=2026-11-20T11:46:00Z"); len(l.Data) != 2 ||
		l.Data[0].Granted != 3 || l.Data[1].Denied != 1 {
		t.Errorf("a cut window = %+v", l.Data)
	}
	// Wider than 366 days narrows, as GET /events does.
	if l := e.insights(acme.readKey, "groupBy=type&dateFrom=2024-01-01&dateTo=2026-11-21"); !l.Meta.DateRangeNarrowed || l.Meta.DateFrom != "2025-11-20T00:00:00.000Z" {
		t.Errorf("a wide window = %+v", l.Meta)
	}

	// Another organization's ids count nothing; it sees only its own.
	if l := e.insights(rival.readKey, "groupBy=accessPointId"); len(l.Data) != 1 || l.Data[0].Key != rival.accessPoints[0].ID.String() {
		t.Errorf("Rival's doors = %+v", l.Data)
	}
	if l := e.insights(rival.readKey, "groupBy=type&accessPointId="+front.ID.String()); len(l.Data) != 0 {
		t.Errorf("Rival counts Acme's door: %+v", l.Data)
	}

	// After an erasure the player is gone from every count.
	privacy := e.newKey(acme.ID, gatehouse.ScopePrivacyWrite)
	if r := e.do(http.MethodDelete, "/api/consumer/v1/platform-users/261", privacy, nil); r.status != http.StatusOK {
		t.Fatalf("erase = %d %s", r.status, r.body)
	}
	if l := e.insights(acme.readKey, "groupBy=type"); len(l.Data) != 2 || l.Data[0].Granted != 3 || l.Data[1].RemoteUnlocks != 1 {
		t.Errorf("after the erasure = %+v", l.Data)
	}
}

// TestInsightsAPIErrors: every malformed parameter is a 400 keyed by the
// parameter, all at once; q is not a parameter here; the scope is
// events:read.
func TestInsightsAPIErrors(t *testing.T) {
	e := newEnv(t)
	acme := e.newOrg("Acme")
	for query, keys := range map[string][]string{
		"":                                   {"groupBy"},
		"groupBy=door":                       {"groupBy"},
		"groupBy=hour&timeZone=Mars/Olympus": {"timeZone"},
		"groupBy=hour&timeZone=Local":        {"timeZone"},
		"groupBy=type&limit=501":             {"limit"},
		"groupBy=type&limit=0":               {"limit"},
		"groupBy=type&q=door":                {"q"},
		"groupBy=type&dateFrom=2026-11-21&dateTo=2026-11-20": {"dateFrom"},
		"groupBy=type&dateFrom=yesterday":                    {"dateFrom"},
		"groupBy=x&limit=900&accessPointId=1":                {"groupBy", "limit", "accessPointId"},
	} {
		r := e.get("/api/consumer/v1/insights?"+query, acme.readKey)
		if r.status != http.StatusBadRequest {
			t.Errorf("%q: %d %s", query, r.status, r.body)
			continue
		}
		issues := r.apiError(t).Issues
		for _, k := range keys {
			if issues[k] == nil {
				t.Errorf("%q: issues %v lack %s", query, issues, k)
			}
		}
	}
	writeOnly := e.newKey(acme.ID, gatehouse.ScopeEventsWrite)
	if r := e.get("/api/consumer/v1/insights?groupBy=type", writeOnly); r.status != http.StatusForbidden {
		t.Errorf("an events:write key: %d", r.status)
	}
	if r := e.get("/api/consumer/v1/insights?groupBy=type&timeZone="+url.QueryEscape("America/St_Johns"), acme.readKey); r.status != http.StatusOK {
		t.Errorf("a zone of half hours: %d %s", r.status, r.body)
	}
}
