package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// injections are strings that break naive SQL, LIKE patterns, FTS
// queries, JSON, logs, paths and parsers.
var injections = []string{
	`' OR '1'='1`, `" OR ""="`, `1; DROP TABLE events; --`, `%' OR 1=1 --`, `%`, `_`, `\`, `\\%`, `'`,
	`") OR 1=1 --`, `" AND "x"*`, `NEAR(a b)`, `*`, `^`, `events_search MATCH '*'`, "\x00", "a\x00b",
	"\u202eevil", "\r\nX-Injected: 1", `${jndi:ldap://x/a}`, `../../etc/passwd`, `<script>alert(1)</script>`,
	`{"$gt":""}`, `[]`, `1e309`, `-1`, `0x7fffffffffffffff`, `99999999999999999999`, `NaN`,
	strings.Repeat("A", 5000), "😀😀😀", "\xff\xfe",
}

// TestInjectionIsHarmless sends every injection string in every parameter
// of every list endpoint, and in the headers the server reads: each answer
// is a result of the caller's own organization or a 400, never a 5xx or a
// database error, and every answer matches the OpenAPI document.
func TestInjectionIsHarmless(t *testing.T) {
	e := newEnv(t, func(c *app.Settings) { // every request reaches the handlers
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: time.Second}, Burst: 1e9}
		c.FailedAuthLimit = c.KeyLimit
	})
	mine, theirs := e.newOrg("Mine"), e.newOrg("Theirs")
	e.ingest(mine, e.ev(mine.accessPoints[0], gatehouse.EventAccessDenied, 5))
	e.ingest(theirs, e.ev(theirs.accessPoints[0], gatehouse.EventAccessGranted, 5))
	foreign := map[string]bool{theirs.ID.String(): true}
	for _, ap := range theirs.accessPoints {
		foreign[ap.ID.String()] = true
	}
	check := func(what string, r response) {
		t.Helper()
		if r.status >= 500 {
			t.Errorf("%.80q: %d %.200s", what, r.status, r.body)
		}
		for _, word := range []string{"SQL", "sqlite", "syntax", "pq:", "pgx", "near \""} {
			if strings.Contains(string(r.body), word) {
				t.Errorf("%.80q: the answer mentions %q: %.200s", what, word, r.body)
			}
		}
		for id := range foreign {
			if strings.Contains(string(r.body), id) {
				t.Errorf("%.80q: the answer shows another organization's %s", what, id)
			}
		}
	}
	params := append(slicesClone(gatehouse.EventQueryParams), "unknown")
	for _, s := range injections {
		for _, p := range params {
			path := "/api/consumer/v1/events?" + url.Values{p: {s}}.Encode()
			check("events "+p+"="+s, e.get(path, mine.allKey))
		}
		for _, p := range []string{"limit", "cursor"} {
			check("locations "+p+"="+s, e.get("/api/consumer/v1/locations?"+url.Values{p: {s}}.Encode(), mine.allKey))
		}
		check("Authorization "+s, e.do("GET", "/api/consumer/v1/events", "", nil, "Authorization", "Bearer "+headerSafe(s)))
		for _, h := range []string{"X-Request-Id", "Accept", "User-Agent", "X-Forwarded-For"} {
			r := e.do("GET", "/api/consumer/v1/events", mine.readKey, nil, h, headerSafe(s))
			check(h+" "+s, r)
			if r.status != http.StatusOK {
				t.Errorf("%s %.80q: %d", h, s, r.status)
			}
			if id := r.header.Get("X-Request-Id"); h == "X-Request-Id" && id == headerSafe(s) && strings.ContainsAny(id, "'\" <>$%{}\\") {
				t.Errorf("X-Request-Id %q echoed back as is", id)
			}
		}
		body := `{"events":[{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"` +
			mine.accessPoints[0].ID.String() + `","reason":` + jsonString(s) + `,"platformUserId":` + jsonString(s) +
			`,"serverJobId":` + jsonString(s) + `}]}`
		check("ingest "+s, e.post("/api/consumer/v1/events", mine.allKey, body))
		check("Content-Type "+s, e.do("POST", "/api/consumer/v1/events", mine.allKey, strings.NewReader(`{"events":[]}`), "Content-Type", headerSafe(s)))

		// Policies and decisions: the universe, the access point's id, the
		// conditional headers, and every string of the bodies.
		check("policies universeId "+s, e.get("/api/consumer/v1/policies?"+url.Values{"universeId": {s}}.Encode(), mine.allKey))
		check("policies If-None-Match "+s, e.do("GET", "/api/consumer/v1/policies?universeId=42", mine.allKey, nil, "If-None-Match", headerSafe(s)))
		check("policy id "+s, e.get("/api/consumer/v1/access-points/"+url.PathEscape(s)+"/policy", mine.allKey))
		policy := `{"mode": "RULES", "schedule": {"timeZone": ` + jsonString(s) + `, "windows": [{"days": [` + jsonString(s) + `], "from": ` + jsonString(s) + `, "to": "10:00"}]},
		  "allow": [{"platformUserId": ` + jsonString(s) + `}, {"groupId": ` + jsonString(s) + `}], "deny": [{"platformUserId": ` + jsonString(s) + `}]}`
		check("policy body "+s, e.put(policyPath(mine.accessPoints[0].ID), mine.allKey, policy))
		check("policy If-Match "+s, e.put(policyPath(mine.accessPoints[0].ID), mine.allKey, `{"mode": "OPEN"}`, "If-Match", headerSafe(s)))
		decision := `{"accessPointId": "` + mine.accessPoints[0].ID.String() + `", "platformUserId": ` + jsonString(s) + `, "serverJobId": ` + jsonString(s) +
			`, "attributes": {"groups": {` + jsonString(s) + `: 1}, "gamepasses": [` + jsonString(s) + `]}, "at": ` + jsonString(s) + `}`
		check("decision "+s, e.post("/api/consumer/v1/decisions", mine.allKey, decision))
		check("decision accessPointId "+s, e.post("/api/consumer/v1/decisions", mine.allKey, `{"accessPointId": `+jsonString(s)+`, "platformUserId": "1"}`))
	}
}

// headerSafe keeps what net/http lets a client send in a header value.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
