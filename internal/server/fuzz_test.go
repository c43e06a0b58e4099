package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// fuzzHTTP serves each input through the whole handler (authentication,
// limits, parsing, the store): no input may get a 5xx, and every answer
// must match the OpenAPI document.
func fuzzHTTP(f *testing.F, seeds []string, request func(o org, input string) *http.Request) {
	e := newEnv(f, func(c *app.Settings) { // every input reaches the query, none is rate limited
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: time.Second}, Burst: 1e9}
	})
	o := e.newOrg("Acme")
	for i, ap := range o.accessPoints {
		e.ingest(o, e.ev(ap, gatehouse.EventAccessGranted, i+1), e.ev(ap, gatehouse.EventAccessDenied, i+2))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	check := apitest.Document(f)
	f.Fuzz(func(t *testing.T, input string) {
		req := request(o, input)
		if req == nil {
			return
		}
		body := ""
		if req.Body != nil {
			body = input
		}
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q: %d %s", input, w.Code, w.Body)
		}
		if err := check.Check(req, []byte(body), w.Code, w.Header(), w.Body.Bytes()); err != nil {
			t.Fatalf("%q: %v", input, err)
		}
	})
}

func FuzzListEvents(f *testing.F) {
	fuzzHTTP(f, []string{"", "limit=2", "q=door", "q=%25", "allowed=denied&type=ACCESS_DENIED,FOO", "dateFrom=2026-01-01&dateTo=2027-06-01",
		"cursor=AAAA", "q='; DROP TABLE events; --", "platformUserId=%00", "a=b&a=c", "limit=-1", "q=%C0%80"},
		func(o org, raw string) *http.Request {
			req, err := http.NewRequest("GET", "/api/consumer/v1/events?"+raw, nil)
			if err != nil || strings.ContainsAny(raw, "# ") {
				return nil // not a request line a client can send
			}
			req.Header.Set("Authorization", "Bearer "+o.readKey)
			return req
		})
}

func FuzzIngest(f *testing.F) {
	fuzzHTTP(f, []string{`{"events":[]}`, `{"events":[{}]}`, `{"events":null}`, `[]`, `{"events":[{"type":"ACCESS_DENIED"}]}`,
		`{"events":[{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"01a206f0-47fc-799a-bda8-edf8088752e0"}]}`,
		`{"events":[{"id":"01a206f0-47fc-799a-bda8-edf8088752e0","type":"REMOTE_UNLOCK","scope":"PLAYER"}]}`, `{"events":[1,2,3]}`, "\x00"},
		func(o org, body string) *http.Request {
			req, _ := http.NewRequest("POST", "/api/consumer/v1/events", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.allKey)
			req.Header.Set("Content-Type", "application/json")
			return req
		})
}

func FuzzDecide(f *testing.F) {
	ap := "01a206f0-47fc-799a-bda8-edf8088752e0"
	fuzzHTTP(f, []string{`{}`, `[]`, `null`, "\x00", `{"accessPointId":"` + ap + `","platformUserId":"156"}`,
		`{"accessPointId":"` + ap + `","platformUserId":"156","record":true,"at":"2026-11-20T12:00:00Z"}`,
		`{"platformUserId":"156","attributes":{"groups":{"456":999},"badges":[1],"premium":"yes"}}`,
		`{"platformUserId":"156","attributes":{"groups":{"":1},"x":1},"at":"2026-13-40T99:00:00Z","serverJobId":""}`,
		`{"accessPointId":null,"platformUserId":null,"serverJobId":null,"attributes":null,"record":null,"at":null}`},
		func(o org, body string) *http.Request {
			// The first access point of the organization stands for the
			// seeds' placeholder, so that inputs reach a real decision.
			body = strings.ReplaceAll(body, ap, o.accessPoints[0].ID.String())
			req, _ := http.NewRequest("POST", "/api/consumer/v1/decisions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.allKey)
			req.Header.Set("Content-Type", "application/json")
			return req
		})
}

func FuzzSetPolicy(f *testing.F) {
	fuzzHTTP(f, []string{`{}`, `[]`, `null`, `{"mode":"OPEN"}`, `{"mode":"LOCKED","failMode":"OPEN"}`, `{"mode":"RULES","failMode":""}`,
		`{"mode":"RULES","schedule":{"timeZone":"Europe/Berlin","windows":[{"days":["SAT"],"from":"22:00","to":"02:00"}],"exceptions":[{"date":"2026-12-25","closed":true},{"date":"2026-12-24","windows":[{"from":"10:00","to":"14:00"}]}]},"allow":[{"groupId":"456","minRank":200},{"premium":true}],"deny":[{"platformUserId":"666","until":"2026-12-01T00:00:00Z"}]}`,
		`{"mode":"RULES","schedule":null,"allow":null,"deny":null,"version":7,"updatedAt":"x"}`,
		`{"mode":"RULES","allow":[{"premium":false},{"groupId":"1","minRank":null},{"platformUserId":"1","badgeId":null}]}`,
		`{"mode":"RULES","schedule":{"timeZone":"UTC","windows":[{"days":["MON"],"from":"24:00","to":"00:00"}]}}`},
		func(o org, body string) *http.Request {
			req, _ := http.NewRequest("PUT", "/api/consumer/v1/access-points/"+o.accessPoints[0].ID.String()+"/policy", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.allKey)
			req.Header.Set("Content-Type", "application/json")
			return req
		})
}
