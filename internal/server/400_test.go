package server_test

import (
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListEventsRejectsBadParameters(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		query string
		keys  []string
	}{
		{"accessPointId=door", []string{"accessPointId"}},
		{"locationId=1", []string{"locationId"}},
		{"allowed=true", []string{"allowed"}},
		{"scope=GLOBAL", []string{"scope"}},
		{"dateFrom=last+week", []string{"dateFrom"}},
		{"dateTo=2026-13-01", []string{"dateTo"}},
		{"dateTo=9999-12-31T23:59:59.999-23:59", []string{"dateTo"}}, // 10000-01-01 in UTC: meta could not show it
		{"dateFrom=2026-11-02&dateTo=2026-11-01", []string{"dateFrom"}},
		{"limit=0", []string{"limit"}},
		{"limit=501", []string{"limit"}},
		{"cursor=not-a-cursor", []string{"cursor"}},
		{"reason=outside", []string{"reason"}},
		{"platformUserID=111", []string{"platformUserID"}},
		{"allowed=granted&allowed=denied", []string{"allowed"}},
		{"allowed=x&scope=y&limit=z&locationId=w&cursor=v", []string{"allowed", "cursor", "limit", "locationId", "scope"}},
	} {
		r := f.env.get("/api/consumer/v1/events?"+tc.query, f.org.readKey)
		if r.status != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400", tc.query, r.status)
			continue
		}
		e := r.apiError(t)
		if e.Code != "validation_failed" {
			t.Errorf("?%s: code %q", tc.query, e.Code)
		}
		if diff := cmp.Diff(tc.keys, slices.Sorted(maps.Keys(e.Issues))); diff != "" {
			t.Errorf("?%s: issues (-want +got)\n%s", tc.query, diff)
		}
		for k, msgs := range e.Issues {
			if len(msgs) == 0 || msgs[0] == "" {
				t.Errorf("?%s: issue %s has no message", tc.query, k)
			}
		}
		if r.header.Get("RateLimit") == "" {
			t.Errorf("?%s: an authenticated 400 lacks RateLimit", tc.query)
		}
	}
}

func TestListEventsEmptyValueIsAbsent(t *testing.T) {
	f := newFixture(t)
	all := f.env.events(f.org.readKey, "")
	empty := f.env.events(f.org.readKey, "allowed=&scope=&type=&q=&dateFrom=&dateTo=&limit=&cursor=&accessPointId=")
	if !slices.Equal(all.ids(), empty.ids()) {
		t.Errorf("empty values filtered: %v vs %v", empty.ids(), all.ids())
	}
}

func TestLocationsRejectsBadParameters(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	for query, key := range map[string]string{"limit=0": "limit", "cursor=zz": "cursor", "q=x": "q"} {
		r := e.get("/api/consumer/v1/locations?"+query, o.allKey)
		if r.status != http.StatusBadRequest || r.apiError(t).Issues[key] == nil {
			t.Errorf("?%s: %d %s", query, r.status, r.body)
		}
	}
	// A cursor of the events list is not a locations cursor.
	for i := range 3 {
		e.ingest(o, e.ev(o.accessPoints[0], "ACCESS_GRANTED", i))
	}
	l := e.events(o.readKey, "limit=1")
	r := e.get("/api/consumer/v1/locations?cursor="+*l.NextCursor, o.allKey)
	if r.status != http.StatusBadRequest || !strings.Contains(r.apiError(t).Issues["cursor"][0], "not a valid cursor") {
		t.Errorf("events cursor on locations: %d %s", r.status, r.body)
	}
}

func TestMalformedQueryStringIsRejected(t *testing.T) {
	f := newFixture(t)
	// Go's lenient parser would drop "q=%_o" and answer with every event.
	r := f.env.get("/api/consumer/v1/events?allowed=denied&q=%_o", f.org.readKey)
	if r.status != http.StatusBadRequest || r.apiError(t).Code != "invalid_query" {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestSecondAuthorizationHeaderIs400: with two Authorization headers,
// which key counts is ambiguous, so neither does.
func TestSecondAuthorizationHeaderIs400(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	other := e.newOrg("Rival")
	req, _ := http.NewRequest(http.MethodGet, e.url+"/api/consumer/v1/events", nil)
	req.Header.Add("Authorization", "Bearer "+o.readKey)
	req.Header.Add("Authorization", "Bearer "+other.readKey)
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, body: body}
	if r.status != http.StatusBadRequest {
		t.Fatalf("two Authorization headers: %d %s", r.status, r.body)
	}
	if e := r.apiError(t); e.Code != "validation_failed" || len(e.Issues["Authorization"]) != 1 {
		t.Errorf("error body %s", r.body)
	}
	if strings.Contains(string(body), o.readKey) || strings.Contains(string(body), other.readKey) {
		t.Error("the error echoes a key")
	}
}
